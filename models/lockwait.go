package models

import (
	"fmt"

	"contend/cacheline"
	"contend/cpu"
	"contend/sim"
)

// What every lock shares: taking it, waiting for it (with deadlock
// detection), and spinning on a line until it is written.

// acquired records that c now holds a spinning lock (spinlock or rwlock):
// it may not sleep until it lets go, and it no longer waits for anything.
func (w *World) acquired(c *cpu.Core, stats *LockStats, contended bool) {
	stats.Acquisitions++
	if contended {
		stats.Contended++
	}
	st := &w.percpu[c.ID]
	st.spinHeld++
	if st.waitFor != nil {
		d := c.Now() - st.waitSince
		stats.Waited += max(d, 0)
		w.recordWait(d)
	}
	st.waitFor = nil
}

// wait checks that c may wait for l and records the wait. It returns false
// after failing the run on a deadlock.
func (w *World) wait(c *cpu.Core, l locker) bool {
	if w.deadlock(c.ID, l) {
		c.Fail(fmt.Sprintf("deadlock: waits for %s, which can only be released by a CPU waiting for this one (or by itself)", l.name()))
		return false
	}
	st := &w.percpu[c.ID]
	if st.waitFor != l { // a reader that looks again and still waits goes on waiting
		st.waitSince = c.Now()
	}
	st.waitFor = l
	return true
}

// waiting reports whether cpu has waited for a lock since it last took one:
// an acquisition that ends a wait is a contended one.
func (w *World) waiting(cpu int) bool { return w.percpu[cpu].waitFor != nil }

// spinOn blocks c spinning on line from time from until the line is written.
// A core can only wait for a line it holds: a write by the line's owner is a
// hit that wakes nobody. If the line has gone (an MCS successor's link store
// can take a queue node from under its owner), the step runs again at once
// and re-reads it, as a spinning core's next load would. If it is going but
// the snoop has not come, the core's own copy serves this read: it sees the
// lock as it was and reads again somewhere in the pause after the copy goes,
// as a spinner does whose line is taken while it holds it.
func spinOn(c *cpu.Core, line *cacheline.Line, from sim.Time, label cpu.Label) (cpu.Outcome, sim.Time) {
	if !line.Holds(c.ID) {
		at := from
		if kept := line.KeptUntil(c.ID); kept > from {
			// The line is leaving, but the snoop has not come: the
			// core's own copy serves this read, which sees the lock
			// as it was, and the core reads again after a pause.
			at = c.Notices(kept)
		}
		c.Charge(label, cpu.Spin, at-from)
		return cpu.Again, at
	}
	c.Watch(line)
	c.BlockFrom(from, label, cpu.Spin)
	return cpu.Block, 0
}

// reload re-reads a line after it was invalidated, charging the miss as spin.
func reload(c *cpu.Core, line *cacheline.Line, label cpu.Label) sim.Time {
	now := c.Now()
	done := c.Reread(line)
	c.Charge(label, cpu.Spin, done-now)
	return done
}
