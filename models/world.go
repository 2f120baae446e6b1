package models

import (
	"fmt"

	"contend/cpu"
	"contend/sim"
)

// Kernel holds the kernel configuration the mechanisms follow. The defaults are
// Linux's: CONFIG_HZ=250 and tree RCU's force-quiescent-state delays.
type Kernel struct {
	HZ int
	// Force-quiescent-state scan delays in jiffies. Zero takes the kernel's
	// default, RCU_JIFFIES_TILL_FORCE_QS = 1 + (HZ > 250) + (HZ > 500).
	JiffiesTillFirstFQS int
	JiffiesTillNextFQS  int
	// JiffiesToSchedQS is when a CPU that has not reported is asked urgently
	// (rcu_urgent_qs). Zero takes max(first + 2·next, HZ/10).
	JiffiesToSchedQS int
	// SoftirqQS: a CPU processing packets passes a quiescent state between
	// packets once it has noticed the grace period (rcu_softirq_qs in
	// ksoftirqd). Without it, only context switches and urgent requests do.
	SoftirqQS bool
	// Expedited makes synchronize_rcu use synchronize_rcu_expedited: an IPI to
	// every CPU instead of waiting for ticks.
	Expedited bool
	// IPI is the latency of an inter-processor interrupt (expedited GPs).
	IPI sim.Time
}

// DefaultKernel returns Linux's defaults.
func DefaultKernel() Kernel { return Kernel{HZ: 250, SoftirqQS: true, IPI: 2 * sim.Microsecond} }

func (k *Kernel) fill() error {
	if k.HZ < 10 || k.HZ > 10000 {
		return fmt.Errorf("kernel: hz: %d; use a CONFIG_HZ value such as 100, 250, 300 or 1000", k.HZ)
	}
	def := 1
	if k.HZ > 250 {
		def++
	}
	if k.HZ > 500 {
		def++
	}
	if k.JiffiesTillFirstFQS == 0 {
		k.JiffiesTillFirstFQS = def
	}
	if k.JiffiesTillNextFQS == 0 {
		k.JiffiesTillNextFQS = def
	}
	if k.JiffiesTillFirstFQS < 0 || k.JiffiesTillNextFQS < 0 || k.JiffiesToSchedQS < 0 {
		return fmt.Errorf("kernel: force-quiescent-state delays must not be negative")
	}
	if k.JiffiesToSchedQS == 0 {
		k.JiffiesToSchedQS = max(k.JiffiesTillFirstFQS+2*k.JiffiesTillNextFQS, k.HZ/10)
	}
	// Linux clamps the scan delays to HZ; larger values would also overflow
	// the clock when turned into time.
	if k.JiffiesTillFirstFQS > k.HZ || k.JiffiesTillNextFQS > k.HZ || k.JiffiesToSchedQS > 21*k.HZ {
		return fmt.Errorf("kernel: force-quiescent-state delays are at most hz jiffies, jiffies_to_sched_qs at most 21·hz")
	}
	if k.IPI < 0 {
		return fmt.Errorf("kernel: ipi: negative latency %v", k.IPI)
	}
	return nil
}

// World is a machine with kernel mechanisms on it.
type World struct {
	M      *cpu.Machine
	K      Kernel
	Jiffy  sim.Time
	RCU    *RCU
	percpu []coreState
	locks  []locker
	gates  int
	// lockWait counts spinning-lock waits by length: bucket i holds waits
	// of [2^i, 2^(i+1)) ns (bucket 0 also the shorter ones).
	lockWait [LockWaitBuckets]uint64
	// Items is the number of items inserted so far: the length a ScanStep
	// walks. A batch adds one per operation.
	Items int64
}

type coreState struct {
	spinHeld  int // spinlocks and rwlocks held: no sleeping
	mutexHeld int
	rcuDepth  int    // rcu_read_lock nesting
	waitFor   locker // lock this core waits for (deadlock detection)
	waitSince sim.Time
	lastJiffy []int64 // per-cpu jiffy gates, by gate id
	kind      coreKind
}

type coreKind uint8

const (
	kernelCore coreKind = iota // runs kernel code (softirq, syscalls)
	userCore                   // runs in user mode between operations
)

// locker is any lock, for deadlock detection.
type locker interface {
	name() string
	// holders returns the CPUs holding the lock in a buffer of the lock's,
	// valid until its next call (a walk that meets the lock again gets the
	// same answer, as nothing changes during it).
	holders() []int
}

// NewWorld puts kernel mechanisms on m.
func NewWorld(m *cpu.Machine, k Kernel) (*World, error) {
	if err := k.fill(); err != nil {
		return nil, err
	}
	w := &World{M: m, K: k, Jiffy: sim.Second / sim.Time(k.HZ)}
	w.percpu = make([]coreState, len(m.Cores))
	w.RCU = newRCU(w)
	return w, nil
}

// Jiffies returns the jiffies counter at now.
func (w *World) Jiffies(now sim.Time) int64 { return int64(now / w.Jiffy) }

// NextTick returns the first jiffy boundary strictly after now.
func (w *World) NextTick(now sim.Time) sim.Time { return (now/w.Jiffy + 1) * w.Jiffy }

// deadlock reports whether core c waiting for l closes a cycle of waits.
func (w *World) deadlock(c int, l locker) bool {
	seen := 0
	var walk func(l locker) bool
	walk = func(l locker) bool {
		if seen++; seen > len(w.percpu)*4 {
			return false
		}
		for _, h := range l.holders() {
			if h == c {
				return true
			}
			if next := w.percpu[h].waitFor; next != nil && walk(next) {
				return true
			}
		}
		return false
	}
	return walk(l)
}

// CheckKernel fills k's defaults and reports a setting that cannot work.
func CheckKernel(k *Kernel) error { return k.fill() }
