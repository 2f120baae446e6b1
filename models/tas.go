package models

import (
	"contend/cpu"
	"contend/sim"
)

// The test-and-set lock, the textbook lock the others improve on: lock()
// retries an atomic exchange on the word until it returns the lock free;
// unlock() stores zero. Every retry is an atomic that takes the line from
// the holder and from the other waiters. Linux's own spinning loops read
// between their atomics (virt_spin_lock in arch/x86/include/asm/
// qspinlock.h, bit_spin_lock in include/linux/bit_spinlock.h): that is
// ttas.go.
//
// Phases: outside -> (xchg) taken, or tasRetrying -> (xchg) taken or again.

const tasRetrying lockPhase = outside + 1 // its exchange found the lock held

type tasLock struct{ l *Spinlock }

func newTAS(l *Spinlock) spinAlgorithm { return &tasLock{l} }

func (t *tasLock) unlockStores() bool { return true }

func (t *tasLock) unlock(c *cpu.Core) (cpu.Outcome, sim.Time) { return t.l.unlockStore(c) }

// lock retries an atomic exchange until it finds the lock free.
func (t *tasLock) lock(c *cpu.Core) (cpu.Outcome, sim.Time) {
	l, id := t.l, c.ID
	// A retry is spinning, not work.
	done, ok := l.rmw(c, l.Line, l.Acquire, l.phase.p[id] != outside)
	if !ok {
		return cpu.Again, done
	}
	if l.holder < 0 {
		l.take(c, l.phase.p[id] != outside)
		return cpu.Next, done
	}
	if l.phase.p[id] == outside {
		if !l.w.wait(c, l) {
			return cpu.Block, 0
		}
		l.phase.set(id, tasRetrying)
	}
	return cpu.Again, done
}
