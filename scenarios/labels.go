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
	StepLockrefGet: "lockref_get", StepLockrefGetNotDead: "lockref_get_not_dead", StepLockrefPutReturn: "lockref_put_return",
	StepWriteSeqcountBegin: "write_seqcount_begin", StepWriteSeqcountEnd: "write_seqcount_end", StepReadSeqcount: "read_seqcount_begin",
	StepWriteSeqlock: "write_seqlock", StepWriteSequnlock: "write_sequnlock", StepReadSeqbegin: "read_seqbegin",
	StepRefcountInc: "refcount_inc", StepRefcountDecAndTest: "refcount_dec_and_test", StepRefcountIncNotZero: "refcount_inc_not_zero",
	StepPercpuRefGet: "percpu_ref_get", StepPercpuRefPut: "percpu_ref_put", StepPercpuRefTrygetLive: "percpu_ref_tryget_live",
	StepPercpuRefKill: "percpu_ref_kill",
	StepSRCUReadLock:  "__srcu_read_lock", StepSRCUReadUnlock: "__srcu_read_unlock", StepSynchronizeSRCU: "synchronize_srcu",
	StepCallSRCU: "call_srcu", StepRCUReadLockTrace: "rcu_read_lock_trace", StepRCUReadUnlockTrace: "rcu_read_unlock_trace",
	StepPercpuDownWrite: "rcu_sync_enter", // the first writer's grace period; the rest under the lock's label
}

// labelName is the label st's own time is counted under; false for the
// steps that count theirs under a lock's labels, or under no label (the
// RCU steps that only queue a callback).
func (st *Step) labelName() (string, bool) {
	if _, ok := accessOps[st.Kind]; ok || st.Kind == StepCmpxchg {
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
	case rwsemClass:
		return or(l.Acquire, "down_read"), or(l.Release, "down_write")
	case percpuRwsemClass:
		return or(l.Acquire, "percpu_down_read"), ""
	}
	return or(l.Acquire, "_raw_spin_lock"), or(l.Release, "_raw_spin_unlock")
}

// refSwitchLabel is the label of a percpu_ref's switch to atomic mode, the
// RCU callback its kill queues.
const refSwitchLabel = "percpu_ref_switch_to_atomic_rcu"

// foldLabel is the label of a percpu_counter's fold into its shared count.
const foldLabel = "__percpu_counter_add"

// sleeps are the steps that block their CPU, off it until they wake.
var sleeps = map[StepKind]bool{StepSleep: true, StepSynchronizeRCU: true, StepMutexLock: true, StepDownRead: true, StepDownWrite: true, StepSynchronizeSRCU: true,
	StepPercpuDownRead: true, StepPercpuDownWrite: true}

// labelsOf returns every label the steps of the named variants count time
// under, through their blocks, gates and callbacks, and the machine's idle;
// with offCPU, the labels they block under.
func (s *Scenario) labelsOf(offCPU bool, variants ...string) []string {
	set := map[string]bool{}
	if !offCPU {
		set["idle"] = true
	}
	s.eachStep(variants, func(st *Step) {
		if name, ok := st.labelName(); ok && (!offCPU || sleeps[st.Kind]) {
			set[name] = true
		}
		if (st.Kind == StepPercpuCounterInc || st.Kind == StepPercpuCounterDec) && !offCPU {
			set[foldLabel] = true
		}
		if st.Kind == StepPercpuRefKill && !offCPU {
			set[refSwitchLabel] = true
		}
		if l := s.lockOf(st); l != nil && (!offCPU || sleeps[st.Kind]) {
			acq, rel := l.labels()
			set[acq] = true
			if rel != "" {
				set[rel] = true
			}
		}
	})
	return sortedKeys(set)
}

// Labels returns the labels a point of variant counts on-CPU time under,
// sorted: the symbols of its simulated perf report.
func (s *Scenario) Labels(variant string) []string {
	return s.labelsOf(false, s.pointVariants(variant)...)
}

// pointVariants are the variants a point of variant runs: itself, and
// the batch and flood beside it where the workload runs both.
func (s *Scenario) pointVariants(variant string) []string {
	variants := []string{variant}
	if wl := s.Workload; wl.Kind == WorkloadBoth {
		variants = append(variants, wl.BatchVariant, wl.FloodVariant)
	}
	return variants
}

// eachStep calls visit with every step the named variants run, through
// their blocks (each once), gates and callbacks.
func (s *Scenario) eachStep(variants []string, visit func(st *Step)) {
	seen := map[string]bool{} // blocks walked
	var walk func(steps []Step)
	walk = func(steps []Step) {
		for i := range steps {
			st := &steps[i]
			visit(st)
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
}

// lockOf is the lock a lock step takes or releases; nil for other steps.
func (s *Scenario) lockOf(st *Step) *Lock {
	if wants[st.Kind] == "" || wants[st.Kind] == "line" {
		return nil
	}
	if j := slices.IndexFunc(s.Locks, func(l Lock) bool { return l.Name == st.Arg }); j >= 0 {
		return &s.Locks[j]
	}
	return nil
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
	offCPU := false
	if !ok {
		if label, offCPU = strings.CutPrefix(ref.Metric, "offcpu_in_"); !offCPU {
			return
		}
	}
	have := c.s.labelsOf(offCPU, c.s.pointVariants(ref.Variant)...)
	switch {
	case slices.Contains(have, label):
	case offCPU && len(have) == 0:
		c.fail("series.reference.metric", at, "no step of variant %q blocks (sleep, synchronize_rcu, mutex_lock), so its time off the CPU in %q would be predicted 0; name a variant that blocks, or another metric", ref.Variant, label)
	case offCPU:
		c.fail("series.reference.metric", at, "no step of variant %q blocks under %q, so it would be predicted 0; give the sleep, synchronize_rcu or mutex it means label = %q, or name one of the labels it blocks under: %s", ref.Variant, label, label, strings.Join(have, ", "))
	default:
		c.fail("series.reference.metric", at, "no step of variant %q counts time under %q, so it would be predicted 0; give the step it means label = %q, or name one of its labels: %s", ref.Variant, label, label, strings.Join(have, ", "))
	}
}
