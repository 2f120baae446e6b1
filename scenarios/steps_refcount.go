package scenarios

import "slices"

// refcount_t and percpu_ref: what a scenario writes and how it is checked.
//
//	{ refcount_inc = "LINE" }
//	{ refcount_dec_and_test = "LINE", steps = [ ... ] }    # the free, run at zero
//	{ refcount_inc_not_zero = "LINE", steps = [ ... ] }    # run when it gives up
//
//	[[line]]
//	name = "q_usage_percpu"
//	percpu = true
//	percpu_ref = "q_usage_counter"   # the shared line of its atomic count
//
//	{ percpu_ref_get = "q_usage_percpu" }, { percpu_ref_put = "q_usage_percpu" }
//	{ percpu_ref_tryget_live = "q_usage_percpu", steps = [ ..., { percpu_ref_put = "q_usage_percpu" } ] }
//	{ percpu_ref_kill = "q_usage_percpu" }

// guards says whether a step of kind k may guard steps of the file's: run
// them when it hits zero (refcount_dec_and_test), when it gives up
// (refcount_inc_not_zero), or holding what it took (percpu_ref_tryget_live).
func (k StepKind) guards() bool {
	return k == StepRefcountDecAndTest || k == StepRefcountIncNotZero || k == StepPercpuRefTrygetLive
}

// percpuRefSteps are the steps on a percpu_ref.
var percpuRefSteps = []StepKind{StepPercpuRefGet, StepPercpuRefPut, StepPercpuRefTrygetLive, StepPercpuRefKill}

// percpuRef checks a line that is a percpu_ref's per-cpu counters: it is
// per-cpu, and its atomic count is on a shared line.
func (c *checker) percpuRef(l lineRaw, lines []lineRaw) {
	if l.PercpuRef == "" {
		return
	}
	at := []string{"[[line]]", quote(l.Name), keyNeedle("percpu_ref")}
	i := slices.IndexFunc(lines, func(x lineRaw) bool { return x.Name == l.PercpuRef })
	switch {
	case !l.PerCPU:
		c.fail("line.percpu_ref", at, "a percpu_ref's counters are per cpu; set percpu = true on %q", l.Name)
	case l.PercpuCounter != "":
		c.fail("line.percpu_ref", at, "%q is already a percpu_counter's deltas; give the percpu_ref a per-cpu line of its own", l.Name)
	case i < 0:
		c.fail("line.percpu_ref", at, "%q is not a defined line; declare the shared line of the ref's atomic count under [[line]]", l.PercpuRef)
	case lines[i].PerCPU:
		c.fail("line.percpu_ref", at, "%q is a per-cpu line; a percpu_ref's atomic count is shared, name a shared line", l.PercpuRef)
	}
}

// refLine checks a refcount's and a percpu_ref's line.
func (c *checker) refLine(field string, at []string, st *Step) {
	op := field + "." + st.Kind.String()
	i := slices.IndexFunc(c.s.Lines, func(x lineRaw) bool { return x.Name == st.Arg })
	if i < 0 {
		return // reported as an undefined line
	}
	switch {
	case slices.Contains(percpuRefSteps, st.Kind) && c.s.Lines[i].PercpuRef == "":
		c.fail(op, at, "%q is not a percpu_ref's line; give it percpu = true and percpu_ref = \"<shared line>\" under [[line]]", st.Arg)
	case (st.Kind == StepRefcountInc || st.Kind == StepRefcountDecAndTest || st.Kind == StepRefcountIncNotZero) && c.s.Lines[i].PerCPU:
		c.fail(op, at, "%q is a per-cpu line, and a refcount_t is one count every CPU shares; put it on a shared line (or make it a percpu_ref)", st.Arg)
	}
}
