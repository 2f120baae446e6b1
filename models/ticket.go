package models

import (
	"contend/cpu"
	"contend/sim"
)

// The ticket spinlock of x86 before Linux 4.2, arch/x86/include/asm/
// spinlock.h: arch_spin_lock() takes a ticket with xadd on the tail half of
// the word and, unless the head half already shows it, spins reading the
// word until the head reaches its ticket; arch_spin_unlock() adds one to
// the head, a plain (unlocked) add, that is a store. Every waiter reads the
// word, so every release is seen by all of them, and each one's re-read
// queues at the line (the Boyd-Wickizer collapse). The proportional backoff
// (a waiter k tickets from its turn waits k backoffs before reading again)
// is Rik van Riel's 2013 proposal, never merged.
//
// Phases: outside -> (xadd) taken, or ticketWaiting -> (each read) taken,
// or spinning or backing off again.

const ticketWaiting lockPhase = outside + 1 // has a ticket; spins or backs off until it is served

type ticketLock struct {
	l             *Spinlock
	next, serving int64   // the word's tail and head
	ticket        []int64 // ticket held while waiting, by CPU
	served        func(*cpu.Core) bool
}

func newTicket(l *Spinlock) spinAlgorithm {
	t := &ticketLock{l: l, ticket: make([]int64, l.w.M.NumCPUs())}
	l.freed = func() { t.serving++ }
	// A waiter's re-read that finds its turn is the read lock() then takes
	// the lock on.
	t.served = func(c *cpu.Core) bool {
		l.reading[c.ID] = t.serving == t.ticket[c.ID]
		return l.reading[c.ID]
	}
	return t
}

func (t *ticketLock) unlockStores() bool { return true }

func (t *ticketLock) unlock(c *cpu.Core) (cpu.Outcome, sim.Time) { return t.l.unlockStore(c) }

// lock: fetch-add a ticket; until it is served, spin on the word, or with a
// backoff wait in proportion to the tickets ahead and read again.
func (t *ticketLock) lock(c *cpu.Core) (cpu.Outcome, sim.Time) {
	l, id := t.l, c.ID
	var done sim.Time
	if l.phase.p[id] == outside {
		var ok bool
		if done, ok = l.rmw(c, l.Line, l.Acquire, false); !ok {
			return cpu.Again, done
		}
		my := t.next
		t.next++
		if t.serving == my {
			l.take(c, false)
			return cpu.Next, done
		}
		if !l.w.wait(c, l) {
			return cpu.Block, 0
		}
		t.ticket[id] = my
		l.phase.set(id, ticketWaiting)
	} else {
		var ok bool
		if done, ok = l.read(c, l.Acquire); !ok {
			return cpu.Again, done
		}
		if t.serving == t.ticket[id] {
			l.take(c, true)
			return cpu.Next, done
		}
	}
	if l.Backoff > 0 {
		delay := sim.Time(t.ticket[id]-t.serving) * l.Backoff
		c.Charge(l.Acquire, cpu.Spin, delay)
		return cpu.Again, done + delay
	}
	return c.SpinRereads(l.Line, done, l.Acquire, t.served)
}
