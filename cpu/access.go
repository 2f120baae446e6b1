package cpu

import (
	"slices"

	"contend/cacheline"
	"contend/sim"
)

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
// ran it while the atomic waited for the store buffer and executed.
func (c *Core) hide(d sim.Time) sim.Time {
	if c.runShade == 0 {
		return shaded(&c.shadow, d)
	}
	// The shadow of the atomic's own execution first, then the share
	// RunAhead of what is left from the time it waited for its line.
	own := min(c.shadow-c.runShade, max(d, 0))
	run := min(c.runShade, sim.Time(c.M.prof.RunAhead*float64(max(d, 0)-own)))
	c.shadow -= own + run
	c.runShade -= run
	return d - own - run
}

// hideHit is hide for a load that hits or a store's issue: they run in the
// atomic's shadow beside its compute (the load and store ports, not the
// ALUs), from a shadow of their own.
func (c *Core) hideHit(d sim.Time) sim.Time { return shaded(&c.hitShade, d) }

// shaded returns what is left of d once shade has hidden its part, and takes
// that part from shade.
func shaded(shade *sim.Time, d sim.Time) sim.Time {
	if *shade == 0 {
		// Nothing to hide, and no shadow to change: most work follows
		// no atomic, and a store here would only make the next step's
		// loads wait for it.
		return max(d, 0)
	}
	hidden := min(*shade, max(d, 0))
	*shade -= hidden
	return d - hidden
}

// unshade ends the latest atomic's shadow: the core waits.
func (c *Core) unshade() { c.shadow, c.hitShade, c.runShade = 0, 0, 0 }

// Access performs a memory access and returns when the core may go on. Time
// waiting for the line is a stall, the instruction itself is work. A store
// retires into the store buffer and the core goes on unless the buffer is
// full; an atomic first drains the buffer, and leaves a shadow that the work
// after it overlaps.
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
	if op != cacheline.Load && l.ReadOnly() {
		panicReadOnly(l, op)
	}
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
		if c.drained > now && !l.Holds(c.ID) && l.KeptUntil(c.ID) <= now && !l.WatchedByOthers(c.ID, now) {
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
			c.atomLine, c.atomDone = l, exec+p.Atomic
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
		c.atomLine, c.atomDone = l, done+p.Atomic
		return c.executed(a, work, stall, now, done, local)
	}
	// A hit in the core's own copy is served inline, without a call.
	done := now
	if !c.M.lines.Hit(now, c.ID, l, op, hold) {
		if op == cacheline.Store {
			// When the store would commit were its line here.
			hold = c.commitAt(l, now) - now
		}
		done = c.M.lines.Access(now, c.ID, l, op, hold).Done
	}
	if op == cacheline.Store {
		return c.stored(a, l, work, now, done)
	}
	// A load, or a load for ownership (LoadOwn): the core waits for the
	// data, which may still be on its way for a load asked for early. A
	// load that hits runs under the latest atomic's shadow; one that
	// waits ends it.
	if len(c.early) > 0 {
		done = max(done, c.arrival(l))
	}
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
// (local, the part of the wait spent on the core's own stores), and for a
// share MissOverlap of its wait for its line: on the Intel guest two threads
// that each add to one counter and then do 50 units of work take a transfer
// longer per add than the work (its MissOverlap fits 0.07), on the Zen 4
// guest about the work's time (0.61); and on the first two hosts archived
// a ticket lock's uncontended loop
// (an atomic, the section's load, store and work, the unlock's store) costs
// what a store and an atomic cost alone (ticket x1 against store-add), the
// section's work done while the atomic waited for the unlock's store.
func (c *Core) executed(a *account, work, stall State, now, exec, local sim.Time) sim.Time {
	p := &c.M.prof
	a.add(stall, exec-now)
	a.add(work, p.Atomic)
	// Atomics one after another, none waiting for a line, add up: the
	// work after them runs while they all execute, as far as the reorder
	// window reaches.
	// And a share MissOverlap of its wait for the line, on a core whose
	// work runs ahead of a waiting atomic: the atomics of the next
	// iterations then find the line there and execute back to back.
	// With RunAhead the whole wait is open to the work, which hides
	// that share of itself in it (hide).
	shade := sim.Time(p.AtomicOverlap * float64(p.Atomic+local))
	ahead := sim.Time(p.MissOverlap * float64(max(0, exec-now-local)))
	reach := c.M.reorderReach
	if p.RunAhead > 0 {
		ahead = max(0, exec-now-local)
	}
	c.shadow = min(c.shadow+shade+ahead, max(reach, shade))
	if p.RunAhead > 0 {
		c.runShade = min(c.runShade+ahead, reach, c.shadow)
	}
	c.hitShade = min(c.hitShade+shade+ahead, max(reach, shade))
	c.rmwWait = exec - now
	return exec + p.Atomic
}

// afterAtomic holds a load step of the line the latest atomic step wrote,
// done at at, until the profile's LoadAfterAtomic after that atomic
// completed. No load passes a locked instruction on x86, and one that
// reads the word the atomic wrote waits for its store to reach the cache:
// on the Intel guest a load and then an add on one counter cost the add
// and 3.1 ns, where a load of another word after an add (the ticket lock's
// spin on its head after the xadd of its tail) costs about an L1 hit. So
// the load does not hide in the atomic's shadow, and the work after it
// waits with it; with two threads, the ops an owner fits in the time it
// keeps the line are fewer (calibrate's 2-thread shared-load-add). Lock
// steps' own accesses do not come here: they touch other words of their
// line.
func (c *Core) afterAtomic(a *account, at sim.Time) sim.Time {
	after := c.M.prof.LoadAfterAtomic
	if after == 0 || c.rmwDone+after <= at {
		return at
	}
	c.unshade()
	a.add(Stall, c.rmwDone+after-at)
	return c.rmwDone + after
}

// stored finishes a store issued at now whose line is at the core at done:
// it goes into the store buffer and the core goes on after a cycle. It
// commits a cycle after its line is there, plus the profile's drain: on the
// calibrate host a store before an atomic add costs the add 0.2-0.3 ns, not
// an L1 load's latency (store-add 6.39-6.53 ns against add 6.08-6.24, with
// l1_hit 1.56).
func (c *Core) stored(a *account, l *cacheline.Line, work State, now, done sim.Time) sim.Time {
	c.landed = max(c.landed, done)
	c.pushStore(c.commitAt(l, done))
	d := c.hideHit(c.M.storeIssue)
	a.add(work, d)
	return now + d
}

// commitAt is when a store to l whose line is at the core at done leaves
// the store buffer: a cycle and the profile's drain after that, and after
// the stores before it; and, for a store to the line of the core's latest
// atomic, no sooner than StoreAfterAtomic after that atomic completed.
func (c *Core) commitAt(l *cacheline.Line, done sim.Time) sim.Time {
	at := max(c.drained, done+c.M.storeIssue+c.M.prof.StoreDrain)
	if after := c.M.prof.StoreAfterAtomic; after > 0 && l == c.atomLine {
		at = max(at, c.atomDone+after)
	}
	return at
}

// DefaultReorderReach is how far, in cycles, an out-of-order core runs
// independent work past an instruction that waits, where the profile does
// not say (Profile.ReorderReach): a reorder buffer of about 224 entries
// (Skylake, Zen 2 and 3) at two instructions a cycle.
const DefaultReorderReach = 112

// Fence waits for the store buffer to drain, as a locked instruction does,
// and executes an atomic on a line the core owns.
func (c *Core) Fence(label Label) sim.Time {
	p := &c.M.prof
	a := c.account(label)
	now := c.drain(a, c.Now(), Stall)
	a.add(Work, p.Atomic)
	return now + p.Atomic
}

// early is a line an independent load asked for before its step ran, and
// when the line arrives.
type early struct {
	line *cacheline.Line
	at   sim.Time
}

// loadsAhead lets the independent loads behind the load at pc, which waits
// from now, ask for their lines now: those within the reorder window, past
// work and stores (which wait in the store buffer, not in the pipeline),
// up to the first step of another kind or a load whose address may come
// from the one that waits. An out-of-order core overlaps such misses
// (memory-level parallelism): locktorture's writer reads lock_is_write_held
// and increments its lock_stress_stats, two lines the previous holder
// wrote, and waits for both at once. The step finds its line held when it
// runs, and waits for what is left of the transfer (arrival).
func (c *Core) loadsAhead(pc int, now sim.Time) {
	c.early = slices.DeleteFunc(c.early, func(e early) bool { return e.at <= now })
	reach := c.M.reorderReach
	for n := pc + 1; n < len(c.code); n++ {
		o := &c.code[n]
		switch {
		case o.kind == opCompute:
			if reach -= o.d; reach < 0 {
				return
			}
		case o.kind == opAccess && o.acc == cacheline.Store:
		case o.kind == opAccess && o.indep:
			if o.local || o.line.Holds(c.ID) || len(c.early) >= maxEarly {
				continue
			}
			done := c.M.lines.Access(now, c.ID, o.line, o.acc, 0).Done
			c.early = append(c.early, early{o.line, done})
		default:
			return
		}
	}
}

// maxEarly is how many lines a core asks for ahead of their loads: the
// ten or so line fill buffers of an x86 core, less the load that waits.
const maxEarly = 8

// arrival returns when l, asked for early, reaches the core, and forgets
// it; 0 if l was not asked for early.
func (c *Core) arrival(l *cacheline.Line) sim.Time {
	for i, e := range c.early {
		if e.line == l {
			c.early = slices.Delete(c.early, i, i+1)
			return e.at
		}
	}
	return 0
}
