package models

import (
	"contend/cacheline"
	"contend/cpu"
	"contend/sim"
)

// SleepStep blocks the task off-CPU for D (msleep, schedule_timeout).
type SleepStep struct {
	W     *World
	D     sim.Time
	Label cpu.Label
}

// Exec implements cpu.Step.
func (s *SleepStep) Exec(c *cpu.Core) (cpu.Outcome, sim.Time) {
	w := s.W
	if !w.mayBlock(c, "sleep") {
		return cpu.Block, 0
	}
	now := c.Now()
	w.sleep(c, now, s.Label)
	w.M.Schedule(&w.RCU.wakeEv[c.ID], now+s.D)
	return cpu.Block, 0
}

// JiffyGate runs the Skip steps that follow it at most once per jiffy. With a
// Line it is the `if (dst->lastuse != jiffies)` test on a shared line: every
// pass loads the line, and the first CPU to see a new jiffy runs the block.
// Without one the time stamp is per-cpu: each CPU runs the block once per
// jiffy (seed 004's per-cpu flush).
type JiffyGate struct {
	W     *World
	Line  *cacheline.Line
	Label cpu.Label
	Skip  int

	id   int
	last int64 // shared time stamp
}

// NewJiffyGate returns a gate over the skip steps that follow it.
func (w *World) NewJiffyGate(line *cacheline.Line, label cpu.Label, skip int) *JiffyGate {
	g := &JiffyGate{W: w, Line: line, Label: label, Skip: skip, last: -1}
	g.id = w.gates
	w.gates++
	for i := range w.percpu {
		w.percpu[i].lastJiffy = append(w.percpu[i].lastJiffy, -1)
	}
	return g
}

// Exec implements cpu.Step.
func (g *JiffyGate) Exec(c *cpu.Core) (cpu.Outcome, sim.Time) {
	w := g.W
	at := c.Now()
	last := &w.percpu[c.ID].lastJiffy[g.id]
	if g.Line != nil {
		at = c.Access(g.Label, g.Line, cacheline.Load)
		last = &g.last
	}
	if j := w.Jiffies(at); *last != j {
		*last = j
	} else {
		c.Skip(g.Skip)
	}
	return cpu.Next, at
}

// ScanStep walks a list whose length is the number of items inserted so far
// (tcf_chain_tp_find walking the chain's filters), PerItem each.
type ScanStep struct {
	W       *World
	PerItem sim.Time
	Label   cpu.Label
}

// Exec implements cpu.Step.
func (s *ScanStep) Exec(c *cpu.Core) (cpu.Outcome, sim.Time) {
	return cpu.Next, c.Compute(s.Label, sim.Time(s.W.Items)*s.PerItem)
}
