package scenarios

import "slices"

// Inline returns v's steps with its blocks inlined, inside once_per_jiffy
// gates too, and each call_rcu's callback written in place (its Steps, its
// Callback name gone): the program as tools that rewrite step lists
// (contend advise) see it.
func (s *Scenario) Inline(v *Variant) []Step { return s.inline(v.Steps) }

// RunsCallbacks reports whether v queues RCU callbacks that have steps (a
// call_rcu's, a percpu_ref_kill's): its CPUs then run them before each
// packet.
func (s *Scenario) RunsCallbacks(v *Variant) bool {
	return runsCallbacks(s.Inline(v))
}

// runsCallbacks reports whether steps, inlined, queue callbacks that have
// steps: a call_rcu's written among them, a kfree_rcu's free, or a
// percpu_ref_kill's switch to atomic mode anywhere in them.
func runsCallbacks(steps []Step) bool {
	return slices.ContainsFunc(steps, func(st Step) bool {
		return (st.Kind == StepCallRCU && len(st.Steps) > 0) || (st.Kind == StepKfreeRCU && st.Free != "")
	}) || kills(steps)
}

// kills reports whether steps, or the steps they guard, kill a percpu_ref.
func kills(steps []Step) bool {
	return slices.ContainsFunc(steps, func(st Step) bool {
		return st.Kind == StepPercpuRefKill || st.Kind == StepPercpuUpWrite || st.Kind != StepCallRCU && kills(st.Steps)
	})
}

func (s *Scenario) inline(steps []Step) []Step {
	out := make([]Step, 0, len(steps))
	for _, st := range steps {
		switch st.Kind {
		case StepBlock:
			out = append(out, s.inline(s.Blocks[st.Arg])...)
			continue
		case StepOncePerJiffy, StepReadSeqcount, StepReadSeqbegin, StepRefcountDecAndTest, StepRefcountIncNotZero, StepPercpuRefTrygetLive:
			st.Steps = s.inline(st.Steps)
		case StepCmpxchg, StepLockrefPutReturn: // the fallback, written in place
			st.Steps, st.Fallback = s.inline(st.Steps), ""
		case StepCallRCU:
			if st.Callback != "" {
				st.Steps, st.Callback = s.Blocks[st.Callback], ""
			}
			if len(st.Steps) > 0 {
				st.Steps = s.inline(st.Steps)
			}
		}
		out = append(out, st)
	}
	return out
}
