package scenarios

// ReadOnlyLines returns the shared lines of s that no step of any program
// can store to or change atomically, in file order: lines that only load
// steps name (seed 000's qdisc_state, read by test_bit on every packet and
// never written). Every other use of a line counts as a write: a lock's
// word on it, a percpu_counter's or a percpu_ref's count, a jiffy gate, a ping-pong, a store
// or an atomic in any variant, block or callback, whether or not the point
// runs it. The check is static, made once the machine is built, so a run
// never depends on what its cores happen to do; cacheline panics if a write
// reaches a line it marked all the same.
func (s *Scenario) ReadOnlyLines() []string {
	written := map[string]bool{}
	for _, l := range s.Lines {
		if l.PercpuCounter != "" {
			written[l.PercpuCounter], written[l.Name] = true, true
		}
		if l.PercpuRef != "" { // a percpu_ref's atomic count, written once it is killed
			written[l.PercpuRef], written[l.Name] = true, true
		}
	}
	for _, l := range s.Locks {
		if l.Line != "" {
			written[l.Line] = true
		}
	}
	var walk func(steps []Step)
	walk = func(steps []Step) {
		for i := range steps {
			if st := &steps[i]; st.Kind != StepLoad {
				written[st.Arg] = true
				walk(st.Steps)
			}
		}
	}
	for _, v := range s.Variants {
		walk(v.Steps)
	}
	for _, steps := range s.Blocks {
		walk(steps)
	}
	var out []string
	for _, l := range s.Lines {
		if !l.PerCPU && !written[l.Name] {
			out = append(out, l.Name)
		}
	}
	return out
}

// markReadOnly marks the lines ReadOnlyLines finds on the machine: a core
// that holds a copy of one runs its loads ahead of the clock.
func (b *builder) markReadOnly() {
	for _, name := range b.s.ReadOnlyLines() {
		b.lines[name].MarkReadOnly()
	}
}
