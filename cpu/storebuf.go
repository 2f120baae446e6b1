package cpu

import (
	"contend/sim"
)

// drainOnly returns how long an atomic issued at now waits for the store
// buffer once the lines of the stores in it are at the core: the wait on
// the core's own commits, not on other cores.
func (c *Core) drainOnly(now sim.Time) sim.Time {
	return max(0, c.drained-max(now, c.landed))
}

// drain waits from now for the store buffer to empty, as a locked
// instruction does, charging the wait to label in state s, and returns when
// it is empty.
func (c *Core) drain(a *account, now sim.Time, s State) sim.Time {
	if c.drained > now {
		a.add(s, c.drained-now)
		now = c.drained
	}
	c.sbCount = 0
	return now
}

// LastStoreLands returns when the core's last store has its line, from
// when other cores read what it wrote.
func (c *Core) LastStoreLands() sim.Time { return c.landed }

// StoresVisible returns when the core's stores so far are visible to other
// cores: the last one has its line and has left the store buffer.
func (c *Core) StoresVisible() sim.Time { return c.drained }

// storeSlot returns when a store issued at now finds a free entry in the
// store buffer, charging any wait as a stall.
func (c *Core) storeSlot(a *account, now sim.Time, stall State) sim.Time {
	for c.sbCount > 0 && c.sb[c.sbHead] <= now {
		c.popStore()
	}
	if c.sbCount == len(c.sb) {
		oldest := c.sb[c.sbHead]
		a.add(stall, oldest-now)
		c.popStore()
		return oldest
	}
	return now
}

// The ring wraps by a compare, not a modulo: a division by the buffer's
// size on every store would cost more than the rest of the store.
func (c *Core) pushStore(commit sim.Time) {
	i := c.sbHead + c.sbCount
	if i >= len(c.sb) {
		i -= len(c.sb)
	}
	c.sb[i] = commit
	c.sbCount++
	c.drained = commit
}

func (c *Core) popStore() {
	if c.sbHead++; c.sbHead == len(c.sb) {
		c.sbHead = 0
	}
	c.sbCount--
}
