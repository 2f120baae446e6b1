package cpu

import (
	"fmt"

	"contend/cacheline"
	"contend/sim"
)

// run runs steps from now until one takes time or blocks, and returns how
// many it ran without an event of their own. The steps cpu defines run
// without an interface call, and the core's place (pc), whether it runs
// ahead and its time t (what Now returns) are kept in registers: they are
// written back to the core before anything outside package cpu can look.
func (c *Core) run(now sim.Time) (inline int) {
	limit := c.aheadLimit(now)
	code := c.code
	pc, ahead, t := c.pc, false, now
	// What the steps below use from the machine, looked up once: a
	// step's draw then waits for fewer loads one after the other.
	rnd, lines, l1 := c.M.rand, c.M.lines, c.M.prof.L1Hit
	for ; ; inline++ {
		if inline > maxInlineSteps {
			c.pc, c.ahead, c.local = pc, ahead, t
			c.Fail("a loop of steps that take no time never ends; add a compute step or fix the loop")
			return inline
		}
		if pc >= len(code) {
			c.complete(t)
			pc = 0
			c.pc, c.ahead, c.local = pc, ahead, t
			if !c.driver.ProgramDone(c, t) {
				c.idleFrom(t)
				return inline
			}
		}
		var at sim.Time
		o := &code[pc]
		then := o.then
		switch o.kind {
		case opCompute:
			d := o.d
			if o.spread > 0 {
				d += sim.Time(o.spread * rnd.Centered())
			} else {
				d = c.M.Duration(d)
			}
			d = c.hide(d)
			o.acct.add(Work, d)
			at = t + d
		case opAccess:
			// access's commonest cases, a hit that waits for nothing,
			// without a call.
			switch {
			case o.acc == cacheline.Load && len(c.early) == 0 && lines.Hit(t, c.ID, o.line, cacheline.Load, 0):
				d := c.hideHit(l1)
				o.acct.add(Work, d)
				at = t + d
			case o.acc == cacheline.Store && c.drained <= t && lines.Hit(t, c.ID, o.line, cacheline.Store, 0):
				c.sbCount = 0 // every store has committed
				at = c.stored(o.acct, o.line, Work, t, t)
			default:
				at = c.access(o.acct, o.line, o.acc, Work, Stall, t)
				if c.indep && o.acc != cacheline.Store && at > t+l1 {
					c.loadsAhead(pc, t)
				}
			}
			if o.line == c.rmwLine && o.acc == cacheline.Load {
				at = c.afterAtomic(o.acct, at)
			}
		default:
			c.pc, c.ahead, c.local = pc, ahead, t
			var out Outcome
			if out, at = o.step.Exec(c); out != Next {
				c.ahead = false
				if out == Again {
					c.M.eng.Schedule(&c.ev, at)
				}
				return inline
			}
			if pc = c.pc; pc < len(code) { // a step may skip those after it
				then = code[pc].then
			} else {
				then = thenEnd
			}
		}
		if at == now && !ahead {
			pc++
			continue
		}
		switch {
		case at >= limit:
		case then == thenLocal, then == thenReadOnly && c.localize(pc+1):
			pc++
			ahead, t = true, at
			continue
		case then == thenEnd:
			if ended, again := c.endAhead(pc, at); ended {
				if !again {
					c.idleFrom(at)
					return inline
				}
				pc = 0
				ahead, t = true, at
				continue
			}
		}
		// The next step waits for its time on the engine's clock.
		c.pc, c.ahead, c.advance = pc, false, true
		c.M.eng.Schedule(&c.ev, at)
		return inline
	}
}

// Lookahead is how far past the event that woke it a core runs steps that
// touch nothing shared: far enough to take many packets in one event, near
// enough that anyone sampling the run sees at most this much of a core's
// future.
const Lookahead = sim.Microsecond

// AheadDriver is a Driver that can end a program without an event when its
// end needs nothing at the engine's time (a closed loop with nothing to
// report), so a core may run on into its next program.
type AheadDriver interface {
	Driver
	// EndAhead is asked when c, ahead of the engine's clock, reaches its
	// program's end at now and could run on into the next program. If
	// the end needs nothing at the engine's time it ends the program as
	// ProgramDone does and returns true and ProgramDone's answer; if not
	// it does nothing and returns false, and the core ends the program
	// at an event of its own.
	EndAhead(c *Core, now sim.Time) (ended, again bool)
}

// aheadLimit returns the time before which a core woken at from may go on
// to a step that touches nothing shared without an event: the lookahead, and
// never past the engine's horizon.
func (c *Core) aheadLimit(from sim.Time) sim.Time {
	return min(c.M.eng.Horizon(), from+Lookahead)
}

// complete counts a program that ended at t.
func (c *Core) complete(t sim.Time) {
	c.Completed++
	if t < c.M.halfway {
		c.FirstHalf++
	}
}

// uncomplete takes back complete(t): the program did not end after all.
func (c *Core) uncomplete(t sim.Time) {
	c.Completed--
	if t < c.M.halfway {
		c.FirstHalf--
	}
}

// endAhead ends the program of a core ahead of the engine's clock, its last
// step (at pc) done at at, if it may run on into the next program: that
// program's first step touches nothing shared and the driver ends this one
// without an event (see AheadDriver). The driver sees the core as
// ProgramDone does, wrapped round to its first step.
func (c *Core) endAhead(pc int, at sim.Time) (ended, again bool) {
	if c.runOn == nil || !c.code[0].local && !c.localize(0) {
		return false, false
	}
	c.complete(at)
	c.pc, c.ahead, c.local = 0, true, at
	if ended, again = c.runOn.EndAhead(c, at); !ended {
		c.uncomplete(at)
		c.pc = pc
	}
	return ended, again
}

// localize reports whether the step at i is a load of a read-only line
// the core holds. The core keeps that copy for the run, since nothing
// takes a copy of a line no one writes (cacheline.Line.MarkReadOnly): from
// then on the step is decoded as one that touches nothing another core
// sees, and the line is not asked again.
func (c *Core) localize(i int) bool {
	o := &c.code[i]
	if !o.readOnly || !o.line.Holds(c.ID) {
		return false
	}
	o.local = true
	if i > 0 {
		c.code[i-1].then = thenLocal
	}
	return true
}

// idleFrom leaves the core idle from t: its driver has no program for it.
func (c *Core) idleFrom(t sim.Time) {
	c.ahead = false
	c.running = false
	c.idle, c.since = true, t
}

// op is a step of the loaded program decoded once, so that running the
// steps cpu defines costs no interface call, and a compute step's jitter
// no work that does not depend on the draw.
type op struct {
	step   Step
	line   *cacheline.Line // an access's line
	d      sim.Time        // a compute step's mean duration
	spread float64         // its jitter's spread (see Machine.spread)
	acct   *account        // the core's account of the step's label
	kind   opKind
	then   then // what the step after this one touches
	acc    cacheline.Op
	local  bool // the step touches nothing another core sees
	indep  bool // a load whose address does not wait for the loads before it
	// readOnly: the step is a load of a line marked read-only, which
	// touches nothing another core sees once the core holds the line.
	readOnly bool
}

type opKind uint8

// then says what follows a step: one that touches nothing another core
// sees, one that does, or the program's end.
type then uint8

const (
	thenShared then = iota
	thenLocal
	// thenReadOnly: a load of a line no access of the run writes
	// (cacheline.Line.MarkReadOnly). Once the core has a copy, the load
	// hits whenever it runs, so it runs ahead as a local step does; the
	// load that brings the copy waits for the clock.
	thenReadOnly
	thenEnd
)

const (
	opStep    opKind = iota // any other step: run through the Step interface
	opCompute               // a ComputeStep
	opAccess                // an AccessStep that is not an atomic
)

func (c *Core) decode(s Step) op {
	switch s := s.(type) {
	case *ComputeStep:
		return op{step: s, kind: opCompute, d: s.D, spread: c.M.spread(s.D), acct: c.account(s.Label), local: true}
	case *AccessStep:
		l := s.LineOf(c)
		if s.Op != cacheline.Load && l.ReadOnly() {
			panicReadOnly(l, s.Op)
		}
		o := op{step: s, acct: c.account(s.Label), line: l, acc: s.Op, local: l.PerCPU,
			readOnly: s.Op == cacheline.Load && l.ReadOnly(), indep: s.Independent && s.Op != cacheline.Store && s.Op != cacheline.RMW}
		if s.Op != cacheline.RMW { // an atomic step's shadow is Exec's business
			o.kind = opAccess
		}
		return o
	}
	return op{step: s}
}

const maxInlineSteps = 1 << 20

// panicReadOnly reports a write to a line a static check marked read-only:
// the check was wrong.
func panicReadOnly(l *cacheline.Line, op cacheline.Op) {
	panic(fmt.Sprintf("cpu: a %v of line %q, which was marked read-only", op, l.Name))
}
