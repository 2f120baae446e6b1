package models

import (
	"contend/cpu"
	"contend/sim"
)

// The test-and-test-and-set lock: lock() tries the atomic once and, while
// the lock is held, spins reading the word, trying the atomic again only
// when it reads free; unlock() stores zero. This is virt_spin_lock()
// (arch/x86/include/asm/qspinlock.h: while the word reads non-zero,
// cpu_relax(); then cmpxchg 0 to locked), the spinlock of a guest without
// paravirt spinlocks, and the shape of bit_spin_lock() and of x86's
// rwlocks before queued rwlocks (arch/x86/lib/rwlock.S,
// __write_lock_failed). A release wakes every spinner, and all of them
// race for the atomic.
//
// Phases: outside -> (xchg) taken, or ttasSpinning -> (read) spin again,
// or (read free, xchg) taken or spin again.

const ttasSpinning lockPhase = outside + 1 // reads the word until it is free

type ttasLock struct{ l *Spinlock }

func newTTAS(l *Spinlock) spinAlgorithm { return &ttasLock{l} }

func (t *ttasLock) unlockStores() bool { return true }

func (t *ttasLock) unlock(c *cpu.Core) (cpu.Outcome, sim.Time) { return t.l.unlockStore(c) }

// lock reads the lock word while it is held and tries the exchange only
// when it reads free.
func (t *ttasLock) lock(c *cpu.Core) (cpu.Outcome, sim.Time) {
	l, id := t.l, c.ID
	spinning := l.phase.p[id] == ttasSpinning
	if spinning && !l.inflight[id] {
		done, ok := l.read(c, l.Acquire)
		if !ok {
			return cpu.Again, done
		}
		if l.holder >= 0 {
			return spinOn(c, l.Line, done, l.Acquire)
		}
	}
	done, ok := l.rmw(c, l.Line, l.Acquire, false)
	if !ok {
		return cpu.Again, done
	}
	if l.holder < 0 {
		l.take(c, spinning)
		return cpu.Next, done
	}
	if !spinning {
		if !l.w.wait(c, l) {
			return cpu.Block, 0
		}
		l.phase.set(id, ttasSpinning)
	}
	return spinOn(c, l.Line, done, l.Acquire)
}
