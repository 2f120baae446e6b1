package cpu

import (
	"contend/cacheline"
	"contend/sim"
)

// State is what a core's time is spent on.
type State uint8

// States. Work, Stall and Spin are on-CPU; Sleep is off-CPU (blocked); Idle
// means the core has nothing to run.
const (
	Work  State = iota // executing instructions
	Stall              // waiting for a cache line
	Spin               // busy-waiting for a lock
	Sleep              // blocked off-CPU
	Idle
	NumStates
)

var stateNames = [NumStates]string{"work", "stall", "spin", "sleep", "idle"}

func (s State) String() string { return stateNames[s] }

// OnCPU reports whether s counts as CPU cycles.
func (s State) OnCPU() bool { return s <= Spin }

// Outcome says what a step wants next.
type Outcome uint8

// Outcomes.
const (
	Next  Outcome = iota // move to the next step at the returned time
	Again                // run this step again at the returned time
	Block                // wait: someone will call Wake
)

// Step is one instruction of a program.
type Step interface {
	// Exec runs the step on c at c.Now(), charging the time it takes.
	Exec(c *Core) (Outcome, sim.Time)
}

// Program is what a core runs, once per packet or operation.
type Program struct {
	Name  string
	Steps []Step
}

// Driver decides what a core does between programs.
type Driver interface {
	// ProgramDone is called when c finishes its program at now. Returning true
	// starts it again at once; otherwise the core idles until Start.
	ProgramDone(c *Core, now sim.Time) bool
}

// Core is one logical CPU.
type Core struct {
	ID int
	M  *Machine

	ev      sim.Event
	prog    *Program
	driver  Driver
	runOn   AheadDriver // driver, if it is an AheadDriver: asked at every program's end
	code    []op        // the program's steps, decoded once by Load
	pc      int
	advance bool
	running bool
	idle    bool
	waiting bool     // blocked in a step until Wake
	nested  bool     // running a step of a program a step runs itself (ExecNested)
	since   sim.Time // start of the current idle or blocked span
	blocked struct {
		label Label
		state State
	}
	// A core running steps that touch nothing shared (compute, per-cpu
	// lines) runs them back to back ahead of the engine's clock, at local,
	// instead of one event each.
	ahead    bool
	local    sim.Time
	lastFire sim.Time // time of the latest Fire, and how many Fires it has had
	stuck    int
	shadow   sim.Time        // what is left of the latest atomic's time that independent compute after it overlaps
	runShade sim.Time        // the part of shadow from the atomic's wait for its line, with Profile.RunAhead
	hitShade sim.Time        // the same for loads that hit and stores' issue, which use other ports
	early    []early         // lines independent loads asked for ahead of their step (loadsAhead)
	indep    bool            // the program has an independent load: a load that waits looks ahead for it
	rmwWait  sim.Time        // how long the latest atomic waited for its line
	rmwLine  *cacheline.Line // the line of the latest atomic step, and when it completed (afterAtomic)
	rmwDone  sim.Time
	atomLine *cacheline.Line // the line of the latest atomic of any step, and when it completed (commitAt)
	atomDone sim.Time
	// The store buffer: commit times of the stores still in it, oldest at
	// sbHead, in a ring of the profile's capacity. Stores commit in order.
	sb      []sim.Time
	sbHead  int
	sbCount int
	drained sim.Time // when the last store commits
	landed  sim.Time // when the last store's line reached this core: others see it from then

	spin spinner // what the core spins on with SpinRereads, while it does

	acct      []*account // by label; a label's account never moves
	Completed uint64     // programs completed in the measured interval
	FirstHalf uint64     // those of them completed before the machine's halfway mark (SetHalfway)
}

// Now returns the current simulated time.
func (c *Core) Now() sim.Time {
	if c.ahead {
		return c.local
	}
	return c.M.eng.Now()
}

// Program returns the program the core runs.
func (c *Core) Program() *Program { return c.prog }

// PC returns the index of the current step.
func (c *Core) PC() int { return c.pc }

// Running reports whether the core is executing a program (possibly blocked in it).
func (c *Core) Running() bool { return c.running }

// Load sets the program and driver; Start begins it. The program's steps
// must not change while it is loaded.
func (c *Core) Load(p *Program, d Driver) {
	c.prog, c.driver, c.pc, c.advance = p, d, 0, false
	c.runOn, _ = d.(AheadDriver)
	c.code, c.indep = c.code[:0], false
	for _, s := range p.Steps {
		c.code = append(c.code, c.decode(s))
		c.indep = c.indep || c.code[len(c.code)-1].indep
	}
	for i := range c.code {
		c.code[i].then = thenEnd
		if i+1 < len(c.code) {
			c.code[i].then = thenShared
			switch next := &c.code[i+1]; {
			case next.local:
				c.code[i].then = thenLocal
			case next.readOnly:
				c.code[i].then = thenReadOnly
			}
		}
	}
}

// Start begins the program at at (from its first step).
func (c *Core) Start(at sim.Time) {
	if c.running {
		panic("cpu: start of a running core")
	}
	c.running = true
	c.pc, c.advance = 0, false
	c.M.eng.Schedule(&c.ev, at)
}

// Fire runs steps until one takes time or blocks.
func (c *Core) Fire(now sim.Time) {
	// A core woken again and again at one instant (a zero sleep, a spin that
	// never waits) would stop the clock: fail instead of hanging.
	if now == c.lastFire {
		if c.stuck++; c.stuck > maxInlineSteps {
			c.Fail("the core makes no progress in time: its steps keep waking it at the same instant; give some step a duration")
			return
		}
	} else {
		c.lastFire, c.stuck = now, 0
	}
	if c.idle {
		c.charge(0, Idle, now-c.since)
		c.idle = false
	}
	if c.advance {
		c.pc++
		c.advance = false
	}
	if len(c.prog.Steps) == 0 {
		c.Fail("the program has no steps; give it at least one")
		return
	}
	inline := c.run(now)
	c.M.eng.Inline(uint64(inline))
}

// Fail stops the run with an error about the current step.
func (c *Core) Fail(what string) {
	name := ""
	if c.prog != nil {
		name = c.prog.Name
	}
	c.M.Fail(&ModelError{At: c.Now(), Core: c.ID, Program: name, Step: c.pc, What: what})
}

// BlockFrom marks the core as waiting from time from (the end of what the
// step has already charged), charging the wait to label and state when it is
// woken.
func (c *Core) BlockFrom(from sim.Time, label Label, s State) {
	c.blocked.label, c.blocked.state = label, s
	c.waiting = true
	c.since = from
}

// BlockedState returns the state a waiting core's time is charged to.
func (c *Core) BlockedState() State { return c.blocked.state }

// Wake resumes a blocked core at at: with Next it moves past the blocking
// step, with Again it runs that step again.
func (c *Core) Wake(at sim.Time, o Outcome) {
	if !c.waiting {
		panic("cpu: wake of a core that is not blocked")
	}
	c.waiting = false
	// A core blocks from the end of what its step already did; a wake-up
	// that comes sooner resumes it then, not before.
	at = max(at, c.since)
	c.charge(c.blocked.label, c.blocked.state, at-c.since)
	c.advance = o == Next
	c.M.eng.Schedule(&c.ev, at)
}

// LineLost wakes a core spinning on a watched line: it runs its step again
// once its spin loop comes round, at the end of the current pause.
func (c *Core) LineLost(at sim.Time) { c.Wake(c.Notices(at), Again) }

// Notices returns when a core that spins on a line, a PAUSE between its
// reads, reads it again after the line is taken from it at at: somewhere
// in the pause it is in then.
func (c *Core) Notices(at sim.Time) sim.Time { return at + c.M.Uniform(c.M.prof.Pause) }

// Skip makes the core jump over the next n steps when the current step
// returns Next: the way a conditional block is skipped.
func (c *Core) Skip(n int) { c.pc += n }

// ExecNested runs s, a step of a program the current step runs itself (a
// softirq's callbacks), and returns its outcome and how many steps of that
// program it asked to skip; the core's own program does not move.
func (c *Core) ExecNested(s Step) (Outcome, sim.Time, int) {
	pc := c.pc
	c.nested = true
	out, at := s.Exec(c)
	c.nested = false
	skip := c.pc - pc
	c.pc = pc
	return out, at, skip
}

// Charge accounts d of time to label in state s.
func (c *Core) Charge(label Label, s State, d sim.Time) { c.charge(label, s, d) }

func (c *Core) charge(label Label, s State, d sim.Time) { c.account(label).add(s, d) }

// account is the time a core has charged to one label, by state.
type account [NumStates]sim.Time

func (a *account) add(s State, d sim.Time) {
	if d > 0 {
		a[s] += d
	}
}

// account returns the core's account of label. A program's steps look
// theirs up once, when it is loaded.
func (c *Core) account(label Label) *account {
	for int(label) >= len(c.acct) {
		c.acct = append(c.acct, new(account))
	}
	return c.acct[label]
}

// Time returns the time charged to label in state s.
func (c *Core) Time(label Label, s State) sim.Time {
	if int(label) >= len(c.acct) {
		return 0
	}
	return c.acct[label][s]
}

func (c *Core) resetStats(now sim.Time) {
	for _, a := range c.acct {
		*a = account{}
	}
	c.Completed, c.FirstHalf = 0, 0
	c.since = max(c.since, now) // open idle and blocked spans count from now
}

// settle charges an open idle or blocked span up to now, so totals add up at
// the end of a run.
func (c *Core) settle(now sim.Time) {
	switch {
	case c.idle:
		c.charge(0, Idle, now-c.since)
	case c.waiting:
		c.charge(c.blocked.label, c.blocked.state, now-c.since)
	default:
		return
	}
	c.since = now
}

// Waiting reports whether the core is blocked in a step.
func (c *Core) Waiting() bool { return c.waiting }
