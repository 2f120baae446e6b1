package scenarios

// Sequence counters and seqlocks: what a scenario writes and how it is
// checked.
//
//	{ write_seqcount_begin = "LINE" }, ..., { write_seqcount_end = "LINE" }
//	{ read_seqcount = "LINE", steps = [ { load = "data" } ] }
//	{ write_seqlock = "LOCK" }, ..., { write_sequnlock = "LOCK" }
//	{ read_seqbegin = "LOCK", steps = [ ... ] }
//
// A seqcount's sequence lives on its line; a seqlock's on its spinlock's
// line (the lock's own, or its line = "...").

// readSection says whether a step of kind k is a seqcount's read section,
// its steps retried while a writer came.
func (k StepKind) readSection() bool { return k == StepReadSeqcount || k == StepReadSeqbegin }

// readSection checks a read section's steps, which it needs, and its line.
func (c *checker) readSection(field string, at []string, st *Step, raw []stepRaw, names map[string]string, depth int) []Step {
	if len(raw) == 0 {
		c.fail(field+".steps", at, "%s needs the steps it reads, retried while a writer comes: steps = [ { load = \"data\" } ]", st.Kind)
		return nil
	}
	return c.steps(field, at, raw, names, depth+1)
}

// seqLine checks that a seqcount step's line is shared: readers on every
// CPU must see one sequence.
func (c *checker) seqLine(field string, at []string, st *Step) {
	switch st.Kind {
	case StepWriteSeqcountBegin, StepWriteSeqcountEnd, StepReadSeqcount:
		if c.perCPU(st.Arg) {
			c.fail(field+"."+st.Kind.String(), at, "%q is a per-cpu line, and a seqcount's readers on every CPU read one sequence; put it on a shared line", st.Arg)
		}
	case StepSRCUReadLock, StepSRCUReadUnlock, StepSynchronizeSRCU, StepCallSRCU:
		if c.perCPU(st.Arg) {
			c.fail(field+"."+st.Kind.String(), at, "%q is a per-cpu line; name the srcu_struct's shared line (its per-cpu srcu_data is made beside it)", st.Arg)
		}
	}
}
