package cpu

import (
	"contend/cacheline"
	"contend/sim"
)

// ComputeStep is a compute step.
type ComputeStep struct {
	Label Label
	D     sim.Time
}

// Exec implements Step.
func (s *ComputeStep) Exec(c *Core) (Outcome, sim.Time) { return Next, c.Compute(s.Label, s.D) }

// AccessStep is a load, store or atomic RMW on a line.
type AccessStep struct {
	Label Label
	Line  *cacheline.Line
	Op    cacheline.Op
	// ByCPU, when set, gives each CPU the line its own element of a packed
	// per-cpu array is on, indexed by CPU number; Line is then unused.
	ByCPU []*cacheline.Line
	// Independent: a load whose address does not come from the loads
	// before it, so it asks for its line while one of them waits
	// (Core.loadsAhead).
	Independent bool
}

// LineOf returns the line the step accesses when c runs it.
func (s *AccessStep) LineOf(c *Core) *cacheline.Line {
	if s.ByCPU != nil {
		return s.ByCPU[c.ID]
	}
	return s.Line
}

// Exec implements Step.
//
// An atomic step that waits for its line lets a store behind it ask for its
// own line meanwhile (PrefetchW).
func (s *AccessStep) Exec(c *Core) (Outcome, sim.Time) {
	line := s.LineOf(c)
	done := c.Access(s.Label, line, s.Op)
	if s.Op == cacheline.RMW {
		c.rmwLine, c.rmwDone = line, done
		if c.rmwWait > 0 && !c.nested {
			if l := c.storeAhead(line); l != nil {
				c.PrefetchW(l)
			}
		}
	}
	return Next, done
}

// Storer is a step whose first access to memory is a plain store to a line
// known before it runs (an unlock that is a store); StoreLine returns that
// line, or nil when the step does not begin so.
type Storer interface {
	StoreLine() *cacheline.Line
}

// storeAhead returns the line of the store that follows the current step
// within the reorder window, past work but nothing else, if it is not
// line: a store whose address the core knows while an atomic before it
// waits, and whose line it asks for meanwhile. It returns nil if there is
// none.
func (c *Core) storeAhead(line *cacheline.Line) *cacheline.Line {
	reach := c.M.reorderReach
	for n := c.pc + 1; n < len(c.code); n++ {
		o := &c.code[n]
		var l *cacheline.Line
		switch st, ok := o.step.(Storer); {
		case o.kind == opCompute:
			if reach -= o.d; reach < 0 {
				return nil
			}
			continue
		case o.kind == opAccess && o.acc == cacheline.Store:
			l = o.line
		case ok:
			l = st.StoreLine()
		}
		if l == line {
			return nil
		}
		return l
	}
	return nil
}

// FenceStep is smp_mb(): on x86 Linux a locked add to the stack, so it
// waits for the store buffer to drain and costs an atomic on an owned line.
type FenceStep struct{ Label Label }

// Exec implements Step.
func (s *FenceStep) Exec(c *Core) (Outcome, sim.Time) { return Next, c.Fence(s.Label) }

// ClosedLoop restarts every program as soon as it finishes.
type ClosedLoop struct{}

// ProgramDone implements Driver.
func (ClosedLoop) ProgramDone(*Core, sim.Time) bool { return true }
