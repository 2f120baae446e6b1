package cpu

import (
	"slices"

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
	shadow   sim.Time // what is left of the latest atomic's time that independent compute after it overlaps
	hitShade sim.Time // the same for loads that hit and stores' issue, which use other ports
	rmwWait  sim.Time // how long the latest atomic waited for its line
	// The store buffer: commit times of the stores still in it, oldest at
	// sbHead, in a ring of the profile's capacity. Stores commit in order.
	sb      []sim.Time
	sbHead  int
	sbCount int
	drained sim.Time // when the last store commits
	landed  sim.Time // when the last store's line reached this core: others see it from then

	acct      []*account // by label; a label's account never moves
	Completed uint64     // programs completed in the measured interval
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
	c.code = c.code[:0]
	for _, s := range p.Steps {
		c.code = append(c.code, c.decode(s))
	}
	for i := range c.code {
		c.code[i].then = thenEnd
		if i+1 < len(c.code) {
			c.code[i].then = thenShared
			if c.code[i+1].local {
				c.code[i].then = thenLocal
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
			c.Completed++
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
			case o.acc == cacheline.Load && lines.Hit(t, c.ID, o.line, cacheline.Load, 0):
				d := c.hideHit(l1)
				o.acct.add(Work, d)
				at = t + d
			case o.acc == cacheline.Store && c.drained <= t && lines.Hit(t, c.ID, o.line, cacheline.Store, 0):
				c.sbCount = 0 // every store has committed
				at = c.stored(o.acct, Work, t, t)
			default:
				at = c.access(o.acct, o.line, o.acc, Work, Stall, t)
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
		case then == thenLocal:
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

// endAhead ends the program of a core ahead of the engine's clock, its last
// step (at pc) done at at, if it may run on into the next program: that
// program's first step touches nothing shared and the driver ends this one
// without an event (see AheadDriver). The driver sees the core as
// ProgramDone does, wrapped round to its first step.
func (c *Core) endAhead(pc int, at sim.Time) (ended, again bool) {
	if c.runOn == nil || !c.code[0].local {
		return false, false
	}
	c.Completed++
	c.pc, c.ahead, c.local = 0, true, at
	if ended, again = c.runOn.EndAhead(c, at); !ended {
		c.Completed--
		c.pc = pc
	}
	return ended, again
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
}

type opKind uint8

// then says what follows a step: one that touches nothing another core
// sees, one that does, or the program's end.
type then uint8

const (
	thenShared then = iota
	thenLocal
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
		o := op{step: s, acct: c.account(s.Label), line: s.Line, acc: s.Op, local: s.Line.PerCPU}
		if s.Op != cacheline.RMW { // an atomic step's shadow is Exec's business
			o.kind = opAccess
		}
		return o
	}
	return op{step: s}
}

const maxInlineSteps = 1 << 20

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

// Compute runs for d (already including cycles), less whatever the shadow of
// a preceding atomic hides, and charges it as work to label.
func (c *Core) Compute(label Label, d sim.Time) sim.Time {
	now := c.Now()
	d = c.hide(c.M.Duration(d))
	c.charge(label, Work, d)
	return now + d
}

// hide returns what is left of d, compute that does not wait for the latest
// atomic, once the atomic's shadow has hidden its part: the out-of-order core
// ran it while the atomic waited for the store buffer and executed. What it
// hides the shadow no longer has.
func (c *Core) hide(d sim.Time) sim.Time {
	if c.shadow == 0 {
		// Nothing to hide, and no shadow to change: most work follows
		// no atomic, and a store here would only make the next step's
		// loads wait for it.
		return max(d, 0)
	}
	hidden := min(c.shadow, max(d, 0))
	c.shadow -= hidden
	return d - hidden
}

// hideHit is hide for a load that hits or a store's issue: they run in the
// atomic's shadow beside its compute (the load and store ports, not the
// ALUs), from a shadow of their own.
func (c *Core) hideHit(d sim.Time) sim.Time {
	if c.hitShade == 0 {
		return d
	}
	hidden := min(c.hitShade, d)
	c.hitShade -= hidden
	return d - hidden
}

// unshade ends the latest atomic's shadow: the core waits.
func (c *Core) unshade() { c.shadow, c.hitShade = 0, 0 }

// Access performs a memory access and returns when the core may go on. Time
// waiting for the line is a stall, the instruction itself is work. A store
// retires into the store buffer and the core goes on unless the buffer is
// full; an atomic first drains the buffer, and leaves a shadow that the next
// compute step overlaps.
func (c *Core) Access(label Label, l *cacheline.Line, op cacheline.Op) sim.Time {
	return c.access(c.account(label), l, op, Work, Stall, c.Now())
}

// PrefetchW asks for ownership of l now and does not wait for it: the
// request for ownership a core sends for a younger store whose address it
// knows while an atomic still waits for its own line. The store commits
// after the atomic, but its line comes meanwhile, as it does for a store
// behind a store in the store buffer. Without it a ticket lock whose
// critical section ends in a CAS costs a transfer more per hand-over than
// one whose section ends in a store, where the calibrate host measures the
// two the same (loops ticket and ticket-cas); and a qspinlock head that
// claims the lock with a cmpxchg and then hands on costs a transfer more
// than one that claims it with a store, which Linux commit 2c83e8e9492d
// measured 1-3% apart on a Westmere-EX.
func (c *Core) PrefetchW(l *cacheline.Line) {
	if l.PerCPU || l.Owner() == c.ID {
		return
	}
	c.M.lines.Access(c.Now(), c.ID, l, cacheline.Store, 0)
}

// SpinAccess is Access made by a waiting core (a lock's retry, a queue
// link): all of its time is spin.
func (c *Core) SpinAccess(label Label, l *cacheline.Line, op cacheline.Op) sim.Time {
	return c.access(c.account(label), l, op, Spin, Spin, c.Now())
}

// access is Access made at now, the core's time, charging the instruction
// to a as work and the wait for the line as stall.
func (c *Core) access(a *account, l *cacheline.Line, op cacheline.Op, work, stall State, now sim.Time) sim.Time {
	p := &c.M.prof
	if c.M.lines.Trace != nil {
		c.M.asking = Label(slices.Index(c.acct, a))
	}
	// First what the core waits for before the request leaves: a free
	// slot in the store buffer for a store, an empty one for an atomic.
	var hold sim.Time
	switch op {
	case cacheline.Store:
		if c.drained > now {
			if slot := c.storeSlot(a, now, stall); slot > now {
				c.unshade() // the core waited for a full store buffer
				now = slot
			}
		} else {
			c.sbCount = 0 // every store has committed: they commit in order
		}
	case cacheline.RMW:
		if c.drained > now && !l.Holds(c.ID) && l.KeptUntil(c.ID) <= now && !l.WatchedByOthers(c.ID) {
			// The atomic's line is asked for while the stores before it
			// drain, and kept until it has executed. On this project's
			// calibrate host a 2-thread MCS hand-over costs what a bare
			// flag hand-over does (about 300 ns): the successor's link,
			// written after the releaser's xchg of the tail, lands in the
			// line the grant took, before the waiter reads it. Not when
			// another core spins on the line: it would take it back
			// before the atomic executes, and the host's ping-pong with a
			// store miss before the CAS costs more than both in series.
			// Nor when the core has the line or is still its previous
			// owner: then nothing need be fetched early. A core that asks
			// for the line meanwhile waits until the atomic has executed;
			// hardware could hand it over and fetch it again, which the
			// model does not (an approximation that favours the atomic).
			done := c.M.lines.Access(now, c.ID, l, op, p.Atomic).Done
			exec := max(done, c.drained)
			c.M.lines.HoldUntil(l, exec+p.Atomic)
			c.sbCount = 0
			var local sim.Time // the wait is the drain's, not the line's
			if done <= c.drained {
				local = c.drainOnly(now)
			}
			return c.executed(a, work, stall, now, exec, local)
		}
		local := c.drainOnly(now)
		now = c.drain(a, now, work)
		hold = p.Atomic
		done := now
		if !c.M.lines.Hit(now, c.ID, l, op, hold) {
			done = c.M.lines.Access(now, c.ID, l, op, hold).Done
		}
		if done > now {
			local = 0
		}
		return c.executed(a, work, stall, now, done, local)
	}
	// A hit in the core's own copy is served inline, without a call.
	done := now
	if !c.M.lines.Hit(now, c.ID, l, op, hold) {
		done = c.M.lines.Access(now, c.ID, l, op, hold).Done
	}
	if op == cacheline.Store {
		return c.stored(a, work, now, done)
	}
	// A load, or a load for ownership (LoadOwn): the core waits for the
	// data. A load that hits runs under the latest atomic's shadow; one
	// that waits ends it.
	if done > now {
		c.unshade()
	}
	a.add(stall, done-now)
	d := c.hideHit(p.L1Hit)
	a.add(work, d)
	return done + d
}

// executed finishes an atomic issued at now whose line is at the core, and
// the stores before it drained, at exec: the wait is a stall, the atomic
// work. The work after the atomic that does not wait for it (a share
// AtomicOverlap of it: no load passes a locked instruction) runs while the
// atomic executes, and while it waited for the store buffer to drain
// (local, the part of the wait spent on the core's own stores), but not
// while it waits for its line: on both archived calibrate hosts two threads
// that each add to one counter and then do 50 units of work take a transfer
// longer per add than the work, where a window that hid the miss would make
// them take the work's time; and on both a ticket lock's uncontended loop
// (an atomic, the section's load, store and work, the unlock's store) costs
// what a store and an atomic cost alone (ticket x1 against store-add), the
// section's work done while the atomic waited for the unlock's store.
func (c *Core) executed(a *account, work, stall State, now, exec, local sim.Time) sim.Time {
	p := &c.M.prof
	a.add(stall, exec-now)
	a.add(work, p.Atomic)
	c.shadow = sim.Time(p.AtomicOverlap * float64(p.Atomic+local))
	c.hitShade = c.shadow
	c.rmwWait = exec - now
	return exec + p.Atomic
}

// stored finishes a store issued at now whose line is at the core at done:
// it goes into the store buffer and the core goes on after a cycle. It
// commits a cycle after its line is there, plus the profile's drain: on the
// calibrate host a store before an atomic add costs the add 0.2-0.3 ns, not
// an L1 load's latency (store-add 6.39-6.53 ns against add 6.08-6.24, with
// l1_hit 1.56).
func (c *Core) stored(a *account, work State, now, done sim.Time) sim.Time {
	cyc := c.M.storeIssue
	c.landed = max(c.landed, done)
	c.pushStore(max(c.drained, done+cyc+c.M.prof.StoreDrain))
	d := c.hideHit(cyc)
	a.add(work, d)
	return now + d
}

// ReorderReach is how far, in cycles, an out-of-order core runs independent
// work past an instruction that waits: a reorder buffer of about 224 entries
// (Skylake, Zen 2 and 3) at two instructions a cycle.
const ReorderReach = 112

// Fence waits for the store buffer to drain, as a locked instruction does,
// and executes an atomic on a line the core owns.
func (c *Core) Fence(label Label) sim.Time {
	p := &c.M.prof
	a := c.account(label)
	now := c.drain(a, c.Now(), Stall)
	a.add(Work, p.Atomic)
	return now + p.Atomic
}

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

func (c *Core) resetStats(now sim.Time) {
	for _, a := range c.acct {
		*a = account{}
	}
	c.Completed = 0
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
}

// Exec implements Step.
//
// An atomic step that waits for its line lets a store behind it ask for its
// own line meanwhile (PrefetchW).
func (s *AccessStep) Exec(c *Core) (Outcome, sim.Time) {
	done := c.Access(s.Label, s.Line, s.Op)
	if s.Op == cacheline.RMW {
		if c.rmwWait > 0 && !c.nested {
			if l := c.storeAhead(s.Line); l != nil {
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
