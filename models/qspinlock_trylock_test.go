package models

import (
	"testing"

	"contend/cpu"
	"contend/sim"
)

// after waits a time of its own on each CPU: how the CPUs arrive.
type after []sim.Time

func (a after) Exec(c *cpu.Core) (cpu.Outcome, sim.Time) { return cpu.Next, c.Now() + a[c.ID] }

// A CPU that queues initialises its MCS node and tries the lock once more
// before it swaps the tail (queued_spin_trylock, kernel/locking/qspinlock.c
// since 4.2). Here cpu 0 holds the lock, cpu 1 waits on the pending bit and
// cpu 2 queues; cpu 2's node is cold (a 2 us miss to memory), and by the
// time it is initialised cpu 1 has taken the lock and let it go: the
// trylock reads the word free and takes it, and no CPU ever swaps the tail.
func TestQspinlockTrylockAfterNode(t *testing.T) {
	w, l := qspinlockWorld(t, 4, 2*sim.Microsecond)
	order := []int{}
	got := probeStep(func(c *cpu.Core) { order = append(order, c.ID) })
	prog := &cpu.Program{Name: "once", Steps: []cpu.Step{
		after{0, 10 * sim.Nanosecond, 20 * sim.Nanosecond},
		&LockStep{L: l}, got,
		after{100 * sim.Nanosecond, 10 * sim.Nanosecond, 10 * sim.Nanosecond},
		&UnlockStep{L: l},
		after{sim.Millisecond, sim.Millisecond, sim.Millisecond},
	}}
	if _, err := w.Run(RunSpec{Flood: &Flood{CPUs: []int{0, 1, 2}, Program: prog}, Duration: 20 * sim.Microsecond}); err != nil {
		t.Fatal(err)
	}
	if len(order) != 3 || order[0] != 0 || order[1] != 1 || order[2] != 2 {
		t.Fatalf("acquired in the order %v, want [0 1 2]", order)
	}
	if s := l.algo.(*qspinlock); s.tailSwaps != 0 {
		t.Errorf("%d xchg_tail()s: cpu 2 should have taken the lock with the trylock after its node", s.tailSwaps)
	}
}

// qspinlockWorld is a socket of n cores, memory that far away, and one
// qspinlock.
func qspinlockWorld(t *testing.T, n int, memory sim.Time) (*World, *Spinlock) {
	t.Helper()
	p := cpu.Profile{
		Name: "t", GHz: 3, Sockets: 1, CoresPerSocket: n, ThreadsPerCore: 1,
		L1Hit: sim.Nanosecond, SMTSibling: 15 * sim.Nanosecond, SameSocket: 40 * sim.Nanosecond,
		OtherSocket: 120 * sim.Nanosecond, Memory: memory,
		Atomic: 7 * sim.Nanosecond, AtomicOverlap: 0.6, Wakeup: 5 * sim.Microsecond,
	}
	m, err := cpu.NewMachine(p, 1)
	if err != nil {
		t.Fatal(err)
	}
	w, err := NewWorld(m, DefaultKernel())
	if err != nil {
		t.Fatal(err)
	}
	l, err := w.NewSpinlock("lock", Qspinlock, "lock", "unlock")
	if err != nil {
		t.Fatal(err)
	}
	return w, l
}

// probeStep calls f on the core that runs it and takes no time.
type probeStep func(c *cpu.Core)

func (p probeStep) Exec(c *cpu.Core) (cpu.Outcome, sim.Time) {
	p(c)
	return cpu.Next, c.Now()
}
