package scenarios

import (
	"fmt"
	"reflect"
	"strings"

	"contend/models"
)

// WorkloadKind is what drives the cores: a packet flood, a batch of
// control-plane operations, or both at once.
type WorkloadKind uint8

// The zero kind is a flood, the default of a [workload] table.
const (
	WorkloadFlood WorkloadKind = iota // every flood CPU runs the variant in a loop or at a rate
	WorkloadBatch                     // one CPU runs the variant batch_ops times
	WorkloadBoth                      // a flood and a batch at once, one of them fixed
)

var workloadNames = []string{"flood", "batch", "both"}

func (k WorkloadKind) String() string { return workloadNames[k] }

// parseWorkloadKind reads a [workload] kind as written.
func parseWorkloadKind(s string) (WorkloadKind, bool) {
	for i, n := range workloadNames {
		if n == s {
			return WorkloadKind(i), true
		}
	}
	return 0, false
}

// StepKind is what a step does: which operation key it sets.
type StepKind uint8

// Step kinds, in the order errors list them.
const (
	StepCompute StepKind = iota + 1
	StepLoad
	StepStore
	StepRMW
	StepPingPong
	StepPingPongRead
	StepSmpMb
	StepLock
	StepUnlock
	StepReadLock
	StepReadUnlock
	StepWriteLock
	StepWriteUnlock
	StepMutexLock
	StepMutexUnlock
	StepRCUReadLock
	StepRCUReadUnlock
	StepSynchronizeRCU
	StepCallRCU
	StepQueueRCUWork
	StepKfreeRCU
	StepSleep
	StepScan
	StepOncePerJiffy
	StepBlock
	StepPercpuCounterInc
	StepPercpuCounterDec
	StepCmpxchg
	StepLockrefGet
	StepLockrefGetNotDead
	StepLockrefPutReturn
	StepWriteSeqcountBegin
	StepWriteSeqcountEnd
	StepReadSeqcount
	StepWriteSeqlock
	StepWriteSequnlock
	StepReadSeqbegin
	StepRefcountInc
	StepRefcountDecAndTest
	StepRefcountIncNotZero
	StepPercpuRefGet
	StepPercpuRefPut
	StepPercpuRefTrygetLive
	StepPercpuRefKill
	StepDownRead
	StepUpRead
	StepDownWrite
	StepUpWrite
	StepSRCUReadLock
	StepSRCUReadUnlock
	StepSynchronizeSRCU
	StepCallSRCU
	StepRCUReadLockTrace
	StepRCUReadUnlockTrace
	StepPercpuDownRead
	StepPercpuUpRead
	StepPercpuDownWrite
	StepPercpuUpWrite
	numStepKinds
)

// stepKeys are the keys users write, by kind.
var stepKeys = [numStepKinds]string{"", "compute", "load", "store", "rmw", "pingpong", "pingpong_read", "smp_mb", "lock", "unlock",
	"read_lock", "read_unlock", "write_lock", "write_unlock", "mutex_lock", "mutex_unlock",
	"rcu_read_lock", "rcu_read_unlock", "synchronize_rcu", "call_rcu", "queue_rcu_work", "kfree_rcu",
	"sleep", "scan", "once_per_jiffy", "block", "percpu_counter_inc", "percpu_counter_dec",
	"cmpxchg", "lockref_get", "lockref_get_not_dead", "lockref_put_return",
	"write_seqcount_begin", "write_seqcount_end", "read_seqcount", "write_seqlock", "write_sequnlock", "read_seqbegin",
	"refcount_inc", "refcount_dec_and_test", "refcount_inc_not_zero",
	"percpu_ref_get", "percpu_ref_put", "percpu_ref_tryget_live", "percpu_ref_kill",
	"down_read", "up_read", "down_write", "up_write",
	"srcu_read_lock", "srcu_read_unlock", "synchronize_srcu", "call_srcu", "rcu_read_lock_trace", "rcu_read_unlock_trace",
	"percpu_down_read", "percpu_up_read", "percpu_down_write", "percpu_up_write"}

// String is the step's key in a scenario file.
func (k StepKind) String() string { return stepKeys[k] }

// Flag says whether the step is written with true (rcu_read_lock = true):
// it has no operand.
func (k StepKind) Flag() bool {
	return k == StepSmpMb || k == StepRCUReadLock || k == StepRCUReadUnlock || k == StepSynchronizeRCU ||
		k == StepRCUReadLockTrace || k == StepRCUReadUnlockTrace
}

// freesBytes says whether the step's operand is a size freed after a grace
// period.
func (k StepKind) freesBytes() bool {
	return k == StepCallRCU || k == StepQueueRCUWork || k == StepKfreeRCU
}

// Step is one checked step of a program.
type Step struct {
	Kind StepKind
	// Arg is the operand as written: a duration or param (compute, sleep,
	// scan), a line, a lock, a block, or "percpu" or a line for
	// once_per_jiffy; empty for the flags (rcu_read_lock...) and for the
	// steps that free bytes.
	Arg   string
	Bytes int64  // call_rcu, queue_rcu_work, kfree_rcu: the size freed
	Label string // "" for the step's default
	Steps []Step // once_per_jiffy: the steps it guards; call_rcu: its callback's
	// Callback is a call_rcu's callback: a block of computes, accesses and
	// jiffy gates run on the calling CPU once a grace period has passed.
	// A callback written in place is the call_rcu's Steps instead.
	Callback string
	// Free is a kfree_rcu's cost to the kworker that frees its objects
	// after the grace period (kfree_rcu_work): a duration or a param.
	Free string
	// Retries bounds a cmpxchg loop (0: until it succeeds); Fallback names
	// the block it runs when it gives up, which Steps then calls.
	Retries  int
	Fallback string
	// Relax is cpu_relax() after a cmpxchg that failed, before the next
	// (lib/lockref.c's CMPXCHG_LOOP until v6.2).
	Relax bool
	// Independent: a load whose address does not depend on the loads
	// before it, which asks for its line while one of them waits.
	Independent bool
}

// operand is the value of the step's key as written, to find it in its file.
func (st *Step) operand() string {
	if st.Kind.freesBytes() {
		return fmt.Sprint(st.Bytes)
	}
	return st.Arg
}

// stepFields are the fields of stepRaw that hold an operation, by kind:
// the field tagged with the kind's key.
var stepFields = func() [numStepKinds]int {
	var out [numStepKinds]int
	t := reflect.TypeFor[stepRaw]()
	for i := 0; i < t.NumField(); i++ {
		key := strings.Split(t.Field(i).Tag.Get("toml"), ",")[0]
		for k := StepCompute; k < numStepKinds; k++ {
			if stepKeys[k] == key {
				out[k] = i
			}
		}
	}
	return out
}()

// kindsOf returns the kinds of the operation keys set in st: one for a step
// that can run.
func kindsOf(st *stepRaw) []StepKind {
	var set []StepKind
	v := reflect.ValueOf(st).Elem()
	for k := StepCompute; k < numStepKinds; k++ {
		if !v.Field(stepFields[k]).IsZero() {
			set = append(set, k)
		}
	}
	return set
}

// parseStep reads a raw step of kind k; the checker adds its nested steps.
func parseStep(st *stepRaw, k StepKind) Step {
	out := Step{Kind: k, Label: st.Label, Callback: st.Callback, Free: st.Free, Fallback: st.Fallback, Independent: st.Independent, Relax: st.Relax}
	if st.Retries != nil {
		out.Retries = *st.Retries
	}
	switch f := reflect.ValueOf(st).Elem().Field(stepFields[k]); f.Kind() {
	case reflect.String:
		out.Arg = f.String()
	case reflect.Pointer:
		out.Bytes = f.Elem().Int()
	}
	return out
}

// lockClass is what a lock is to the steps that take it.
type lockClass uint8

const (
	notALock         lockClass = iota
	spinlockClass              // ticket, qspinlock, cna, mcs, tas, ttas: lock and unlock
	rwlockClass                // read_lock, read_unlock, write_lock, write_unlock
	mutexClass                 // mutex_lock, mutex_unlock
	rwsemClass                 // down_read, up_read, down_write, up_write
	percpuRwsemClass           // percpu_down_read, percpu_up_read, percpu_down_write, percpu_up_write
)

func (c lockClass) String() string {
	return [...]string{"", "spinlock", "rwlock", "mutex", "rw_semaphore", "percpu_rw_semaphore"}[c]
}

// parseLockKind reads a [[lock]] kind: its class and, for a spinlock, the
// implementation.
func parseLockKind(k string) (lockClass, models.LockKind) {
	switch k {
	case "rwlock":
		return rwlockClass, 0
	case "mutex":
		return mutexClass, 0
	case "rw_semaphore":
		return rwsemClass, 0
	case "percpu_rw_semaphore":
		return percpuRwsemClass, 0
	}
	if spin, ok := models.ParseLockKind(k); ok {
		return spinlockClass, spin
	}
	return notALock, 0
}

// Lock is a checked [[lock]]: its fields as written (tools write them back),
// and its kind parsed.
type Lock struct {
	Name, Kind, Line, Backoff, Claim, Acquire, Release string
	PrefetchNext                                       *bool // qspinlock, cna: nil is the default, true

	class lockClass
	spin  models.LockKind // the implementation of a spinlock
}
