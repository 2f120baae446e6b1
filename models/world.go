package models

import (
	"contend/cpu"
	"contend/sim"
)

// World is a machine with kernel mechanisms on it.
type World struct {
	M      *cpu.Machine
	K      Kernel
	Jiffy  sim.Time
	RCU    *RCU
	percpu []coreState
	locks  []locker
	words  []*Word // the words cmpxchg loops update
	// seqcounts are the sequence counters, whose sections the warm-up
	// forgets.
	seqcounts []*Seqcount
	refs      []*PercpuRef
	srcus     []*SRCU
	gates     int
	// counters are the percpu_counters, whose folds the warm-up forgets.
	counters []*PercpuCounter
	// lockWait counts spinning-lock waits by length: bucket i holds waits
	// of [2^i, 2^(i+1)) ns (bucket 0 also the shorter ones).
	lockWait [LockWaitBuckets]uint64
	// Items is the number of items inserted so far: the length a ScanStep
	// walks. A batch adds one per operation.
	Items int64
}

type coreState struct {
	spinHeld   int // spinlocks and rwlocks held: no sleeping
	mutexHeld  int
	rcuDepth   int    // rcu_read_lock nesting
	traceDepth int    // rcu_read_lock_trace nesting
	waitFor    locker // lock this core waits for (deadlock detection)
	waitSince  sim.Time
	lastJiffy  []int64 // per-cpu jiffy gates, by gate id
	kind       coreKind
	softirq    softirqQueue // ready RCU callbacks' steps, run at the next packet
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
	if err := k.fill(m.NumCPUs()); err != nil {
		return nil, err
	}
	w := &World{M: m, K: k, Jiffy: sim.Second / sim.Time(k.HZ)}
	w.percpu = make([]coreState, m.NumCPUs())
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
