package scenarios

import "strconv"

// WrittenStep is a step as a scenario file writes it: its operation's key,
// the operand, and the steps a once_per_jiffy gate guards. Tools that
// rewrite step lists (contend advise) read variants this way and write the
// result back as TOML.
type WrittenStep struct {
	Op    string // "compute", "store", "lock", "once_per_jiffy"...
	Arg   string // a line, lock, duration or param; "percpu" or a line for once_per_jiffy
	Bytes int64  // what call_rcu, queue_rcu_work and kfree_rcu free
	Label string
	Steps []WrittenStep
}

// Inline returns v's steps with its blocks inlined.
func (s *Scenario) Inline(v *Variant) []WrittenStep { return s.inline(v.Steps) }

func (s *Scenario) inline(steps []stepRaw) []WrittenStep {
	var out []WrittenStep
	for i := range steps {
		st := &steps[i]
		op := opOf(st)[0]
		if op == "block" {
			out = append(out, s.inline(s.Blocks[st.Block])...)
			continue
		}
		w := WrittenStep{Op: op, Arg: operand(st, op), Label: st.Label}
		switch op {
		case "call_rcu", "queue_rcu_work", "kfree_rcu":
			w.Bytes, _ = strconv.ParseInt(w.Arg, 10, 64)
			w.Arg = ""
		case "rcu_read_lock", "rcu_read_unlock", "synchronize_rcu":
			w.Arg = ""
		case "once_per_jiffy":
			w.Steps = s.inline(st.Steps)
		}
		out = append(out, w)
	}
	return out
}
