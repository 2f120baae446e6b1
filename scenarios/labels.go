package scenarios

import (
	"slices"
	"strings"
)

// stepLabels are the labels a step's time is counted under when the file
// gives it none: perf's name for the code it runs. A load, store or rmw is
// counted under its line's name; a lock's steps under the lock's labels.
var stepLabels = map[StepKind]string{
	StepCompute: "compute", StepPingPong: "cmpxchg", StepPingPongRead: "cmpxchg", StepOncePerJiffy: "jiffies",
	StepPercpuCounterInc: "percpu_counter_add", StepPercpuCounterDec: "percpu_counter_add", StepSmpMb: "smp_mb",
	StepSynchronizeRCU: "synchronize_rcu", StepSleep: "schedule_timeout", StepScan: "scan",
}

// labelName is the label st's own time is counted under; false for the
// steps that count theirs under a lock's labels, or under no label (the
// RCU steps that only queue a callback).
func (st *Step) labelName() (string, bool) {
	if _, ok := accessOps[st.Kind]; ok {
		return or(st.Label, st.Arg), true
	}
	def, ok := stepLabels[st.Kind]
	return or(st.Label, def), ok
}

// labels returns a lock's acquire and release labels, defaults filled in:
// a spinlock's and a rwlock's (readers and writers) as Linux names them, a
// mutex's one label as acquire.
func (l *Lock) labels() (acquire, release string) {
	switch l.class {
	case rwlockClass:
		return or(l.Acquire, "_raw_read_lock"), or(l.Release, "_raw_write_lock")
	case mutexClass:
		return or(l.Acquire, "mutex_lock"), ""
	}
	return or(l.Acquire, "_raw_spin_lock"), or(l.Release, "_raw_spin_unlock")
}

// foldLabel is the label of a percpu_counter's fold into its shared count.
const foldLabel = "__percpu_counter_add"

// labelsOf returns every label the steps of the named variants count time
// under, through their blocks, gates and callbacks, and the machine's idle.
func (s *Scenario) labelsOf(variants ...string) []string {
	set := map[string]bool{"idle": true}
	seen := map[string]bool{} // blocks walked
	var walk func(steps []Step)
	walk = func(steps []Step) {
		for i := range steps {
			st := &steps[i]
			if name, ok := st.labelName(); ok {
				set[name] = true
			}
			if st.Kind == StepPercpuCounterInc || st.Kind == StepPercpuCounterDec {
				set[foldLabel] = true
			}
			if wants[st.Kind] != "" && wants[st.Kind] != "line" {
				if j := slices.IndexFunc(s.Locks, func(l Lock) bool { return l.Name == st.Arg }); j >= 0 {
					acq, rel := s.Locks[j].labels()
					set[acq] = true
					if rel != "" {
						set[rel] = true
					}
				}
			}
			for _, b := range []string{st.Callback, blockOf(st)} {
				if b != "" && !seen[b] {
					seen[b] = true
					walk(s.Blocks[b])
				}
			}
			walk(st.Steps)
		}
	}
	for _, v := range variants {
		if v := s.Variant(v); v != nil {
			walk(v.Steps)
		}
	}
	return sortedKeys(set)
}

// blockOf is the block a block step calls; "" for other steps.
func blockOf(st *Step) string {
	if st.Kind == StepBlock {
		return st.Arg
	}
	return ""
}

// labelMetric checks that a share_of_cycles_<label> or offcpu_in_<label>
// reference names a label its point's steps have: one they do not would be
// predicted 0, an error of -100% that a fit cannot move.
func (c *checker) labelMetric(at []string, ref *Reference) {
	label, ok := strings.CutPrefix(ref.Metric, "share_of_cycles_")
	if !ok {
		if label, ok = strings.CutPrefix(ref.Metric, "offcpu_in_"); !ok {
			return
		}
	}
	variants := []string{ref.Variant}
	if wl := c.s.Workload; wl.Kind == WorkloadBoth {
		variants = append(variants, wl.BatchVariant, wl.FloodVariant)
	}
	have := c.s.labelsOf(variants...)
	if !slices.Contains(have, label) {
		c.fail("series.reference.metric", at, "no step of variant %q counts time under %q, so it would be predicted 0; give the step it means label = %q, or name one of its labels: %s", ref.Variant, label, label, strings.Join(have, ", "))
	}
}
