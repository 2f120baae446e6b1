package cpu

import (
	"contend/cacheline"
	"contend/sim"
)

// Watch has the core told (LineLost) when another core takes l from its
// cache: a waiter spinning on a cached copy does nothing until then.
func (c *Core) Watch(l *cacheline.Line) { c.M.lines.Watch(l, c.ID, c) }

// Reread loads l at the core's time, as a spinning core's next read does
// once its copy is gone, and returns when the load completes. Nothing is
// charged (the caller says as what) and no store buffer is involved.
func (c *Core) Reread(l *cacheline.Line) sim.Time {
	c.M.asking = -1
	return c.M.lines.Access(c.Now(), c.ID, l, cacheline.Load, 0).Done
}
