package models

import (
	"contend/cacheline"
	"contend/cpu"
	"contend/sim"
)

// PingPong is the benchmark behind core-to-core latency tables: CPUs take
// turns with a ball on one line, each spinning with compare-and-swap until
// the ball is its own and then passing it to the next, in the order the CPUs
// first ran the step. One pass is one operation; its time is the one-way
// latency the tables publish.
type PingPong struct {
	Line  *cacheline.Line
	Label cpu.Label
	order []int
	turn  int
	cas   []pingPongPhase
}

type pingPongPhase uint8

const (
	casIssue  pingPongPhase = iota // ask for the line with a CAS
	casResult                      // the CAS has the line: see whose turn it is
)

// NewPingPong returns a ball on line.
func (w *World) NewPingPong(line *cacheline.Line, label cpu.Label) *PingPong {
	return &PingPong{Line: line, Label: label, cas: make([]pingPongPhase, w.M.NumCPUs())}
}

// PingPongStep takes the ball once: it returns when this CPU has passed it on.
type PingPongStep struct{ P *PingPong }

// Exec implements cpu.Step. A CAS compares when it executes at the line, not
// when it is issued, so the turn is read once the line has arrived.
func (s *PingPongStep) Exec(c *cpu.Core) (cpu.Outcome, sim.Time) {
	p := s.P
	if p.cas[c.ID] == casIssue {
		p.register(c.ID)
		p.cas[c.ID] = casResult
		return cpu.Again, c.Access(p.Label, p.Line, cacheline.RMW)
	}
	p.cas[c.ID] = casIssue
	if p.order[p.turn] != c.ID {
		return cpu.Again, c.Now() // the CAS failed: try again
	}
	p.turn = (p.turn + 1) % len(p.order)
	return cpu.Next, c.Now()
}

func (p *PingPong) register(id int) {
	for _, o := range p.order {
		if o == id {
			return
		}
	}
	p.order = append(p.order, id)
}
