package models

import (
	"slices"

	"contend/cacheline"
	"contend/cpu"
	"contend/sim"
)

// PingPong is the benchmark behind core-to-core latency tables: CPUs take
// turns with a ball on one line, each waiting until the ball is its own and
// then passing it to the next with a compare-and-swap, in the order the CPUs
// first ran the step. One pass is one operation.
//
// A waiter spins either with CAS, as the published tables' benchmark does
// (a pass is one transfer and the atomic: the one-way latency a profile
// gives), or with loads (Reads), as contend calibrate's loop does: then a
// pass is two transfers, the waiter's read that sees the ball and its CAS
// taking the line back from the passer, now a sharer.
type PingPong struct {
	Line  *cacheline.Line
	Label cpu.Label
	Reads bool // waiters spin with loads, not with CAS
	order []int
	turn  int
	phase []pingPongPhase
}

type pingPongPhase uint8

const (
	ppIssue   pingPongPhase = iota // ask for the line: a CAS, or a load (Reads)
	ppLook                         // the load has the line: whose turn is it?
	ppPassing                      // the CAS has the line: see whose turn it is
)

// NewPingPong returns a ball on line.
func (w *World) NewPingPong(line *cacheline.Line, label cpu.Label, reads bool) *PingPong {
	return &PingPong{Line: line, Label: label, Reads: reads, phase: make([]pingPongPhase, w.M.NumCPUs())}
}

// PingPongStep takes the ball once: it returns when this CPU has passed it on.
type PingPongStep struct{ P *PingPong }

// Exec implements cpu.Step. A CAS compares when it executes at the line, not
// when it is issued, so the turn is read once the line has arrived.
func (s *PingPongStep) Exec(c *cpu.Core) (cpu.Outcome, sim.Time) {
	p, id := s.P, c.ID
	switch p.phase[id] {
	case ppIssue:
		p.register(id)
		if !p.Reads {
			return p.cas(c)
		}
		p.phase[id] = ppLook
		return cpu.Again, c.SpinAccess(p.Label, p.Line, cacheline.Load)
	case ppLook:
		if p.order[p.turn] != id {
			p.phase[id] = ppIssue
			return spinOn(c, p.Line, c.Now(), p.Label)
		}
		return p.cas(c)
	}
	p.phase[id] = ppIssue
	if p.order[p.turn] != id {
		return cpu.Again, c.Now() // the CAS failed: try again
	}
	p.turn = (p.turn + 1) % len(p.order)
	return cpu.Next, c.Now()
}

// cas issues the CAS that passes the ball, once the line has arrived.
func (p *PingPong) cas(c *cpu.Core) (cpu.Outcome, sim.Time) {
	p.phase[c.ID] = ppPassing
	return cpu.Again, c.Access(p.Label, p.Line, cacheline.RMW)
}

func (p *PingPong) register(id int) {
	if !slices.Contains(p.order, id) {
		p.order = append(p.order, id)
	}
}
