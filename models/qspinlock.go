package models

import (
	"contend/cacheline"
	"contend/cpu"
	"contend/sim"
)

// Linux's queued spinlock, kernel/locking/qspinlock.c as of 4.2
// (queued_spin_lock and queued_spin_lock_slowpath): one word holds a locked
// byte, a pending bit and the tail of an MCS queue (mcs.go). The fast path
// is one cmpxchg(0, locked). The first waiter sets pending (fetch_or) and
// spins on the word until the holder leaves, then takes the lock with a
// store (clear_pending_set_locked). Later waiters queue: each initialises
// its node, tries the lock once more (queued_spin_trylock: a read of the
// word, and a cmpxchg if it reads 0), swaps its node into the tail (xchg_tail), links behind its predecessor and spins on
// its own node; the queue's head spins on the word until locked and pending
// clear, then takes the lock (set_locked, a store; a cmpxchg loop before
// commit 2c83e8e9492d, CmpxchgClaim) and makes its successor the head. The
// last one queued cmpxchg()es the tail away instead. spin_unlock is a
// store of zero to the locked byte (queued_spin_unlock).
//
// Since Linux 4.5 (81b5598665a2, PrefetchNext) a CPU just made the head
// reads its node's next pointer and, if a successor has linked in,
// prefetchw()es the successor's node while it waits on the word; the
// hand-over then has the pointer and does not read it again (aa68744f80bf).
//
// Phases: outside -> (cmpxchg) taken; or pendingWaiting -> (store) taken;
// or nodeReady -> (the trylock's read) nodeTried, or nodeTrying -> (its
// cmpxchg) taken or nodeTried -> (xchg_tail) queueLinking -> queueWaiting -> (granted)
// [headPrefetching -> headReadingNext ->] headWaiting -> (store) headHanding -> awaitingLink
// -> handingOver -> taken, or (cmpxchg, CmpxchgClaim) headClaiming ->
// headHanding.

const (
	pendingWaiting  lockPhase = handingOver + 1 + iota // set pending, spins on the word until the holder leaves
	headWaiting                                        // the queue's head, spins on the word until locked and pending clear
	headClaiming                                       // CmpxchgClaim: the head's cmpxchg of the word is in flight
	headHanding                                        // took the lock; next, make its successor the head
	nodeTrying                                         // queued_spin_trylock() read the word free: its cmpxchg is in flight
	nodeTried                                          // the trylock failed; next, xchg_tail
	headPrefetching                                    // PrefetchNext: made the head; next, read node->next
	headReadingNext                                    // that read is in flight: next, prefetchw the successor's node
)

// headPolicy is what a queue head does that the NUMA-aware slow path
// (cna.go) does its own way; the plain qspinlock is its own policy.
type headPolicy interface {
	// atHead: c has been made the queue's head at done; it goes on to
	// wait on the word.
	atHead(c *cpu.Core, done sim.Time) (cpu.Outcome, sim.Time)
	// claimLast: the word is free and c, the head, is the last CPU
	// queued: it cmpxchg()es the tail away and takes the lock.
	claimLast(c *cpu.Core) (cpu.Outcome, sim.Time)
	// passHead: c holds the lock; it makes another queued CPU the head.
	passHead(c *cpu.Core) (cpu.Outcome, sim.Time)
}

type qspinlock struct {
	l      *Spinlock
	q      mcsQueue
	policy headPolicy
	// What the word shows: its locked byte and pending bit. The plain
	// stores that set the locked byte (set_locked,
	// clear_pending_set_locked) change it where they land, like the
	// unlock; until then other CPUs read the word as it was.
	wordLocked, wordPending bool
	pending                 int         // the CPU that set the pending bit, or -1
	sets                    []sim.Event // each CPU's locking store, landing
	tailSwaps               uint64      // xchg_tail()s so far, the tail's version
	seenTail                []uint64    // the version the head's last read of the word saw
	nextSeen                []bool      // PrefetchNext: the head's read of node->next found its successor
}

func newQspinlock(l *Spinlock) spinAlgorithm {
	n := l.w.M.NumCPUs()
	s := &qspinlock{l: l, q: newMCSQueue(l), pending: -1, sets: make([]sim.Event, n), seenTail: make([]uint64, n), nextSeen: make([]bool, n)}
	s.policy = s
	l.freed = func() { s.wordLocked = false }
	return s
}

func (s *qspinlock) unlockStores() bool { return true }

func (s *qspinlock) unlock(c *cpu.Core) (cpu.Outcome, sim.Time) { return s.l.unlockStore(c) }

// lock follows queued_spin_lock() and its slow path.
func (s *qspinlock) lock(c *cpu.Core) (cpu.Outcome, sim.Time) {
	l, q, id := s.l, &s.q, c.ID
	switch l.phase.p[id] {
	case outside:
		// Fast path: cmpxchg(0, locked).
		done, ok := l.rmw(c, l.Line, l.Acquire, false)
		if !ok {
			return cpu.Again, done
		}
		if s.free() {
			return s.takeFree(c, false, done)
		}
		if !l.w.wait(c, l) {
			return cpu.Block, 0
		}
		if !s.wordLocked && len(q.queue) == 0 {
			// Only pending: a hand-over from pending to locked is in
			// flight. Wait for the word to change, then start again.
			return spinOn(c, l.Line, done, l.Acquire)
		}
		if !s.wordPending && len(q.queue) == 0 {
			// Only locked: set pending (a second atomic, fetch_or) and
			// spin on the word for the holder to leave.
			s.pending, s.wordPending = id, true
			l.phase.set(id, pendingWaiting)
			return cpu.Again, c.SpinAccess(l.Acquire, l.Line, cacheline.RMW)
		}
		// node->count++ and the node's initialisation: the node is this
		// CPU's, and stays in its cache from the count-- that ended its
		// last slow path.
		l.phase.set(id, nodeReady)
		return cpu.Again, c.SpinAccess(l.Acquire, q.node(id), cacheline.LoadOwn)
	case pendingWaiting:
		done, ok := l.read(c, l.Acquire)
		if !ok {
			return cpu.Again, done
		}
		if s.wordLocked {
			return spinOn(c, l.Line, done, l.Acquire)
		}
		// clear_pending_set_locked(): a plain store on the word.
		s.pending = -1
		done = c.Access(l.Acquire, l.Line, cacheline.Store)
		s.setLocked(c)
		l.take(c, true)
		return cpu.Next, done
	case nodeReady:
		// queued_spin_trylock() once more, the node initialised ("in the
		// hope someone let go while we weren't watching", in every
		// kernel since 4.2): atomic_read() of the word, and a cmpxchg
		// only if it reads 0.
		done, ok := l.read(c, l.Acquire)
		if !ok {
			return cpu.Again, done
		}
		next := nodeTried
		if s.free() {
			next = nodeTrying
		}
		l.phase.set(id, next)
		return cpu.Again, done
	case nodeTrying:
		done, ok := l.rmw(c, l.Line, l.Acquire, true)
		if !ok {
			return cpu.Again, done
		}
		if s.free() {
			return s.takeFree(c, true, done)
		}
		l.phase.set(id, nodeTried)
		return cpu.Again, done
	case nodeTried:
		// xchg_tail(), then link behind the previous tail if there was one.
		done, ok := l.rmw(c, l.Line, l.Acquire, true)
		if !ok {
			return cpu.Again, done
		}
		s.tailSwaps++
		return q.enqueue(c, done, -1)
	case queueLinking:
		return s.awaitHead(c, q.link(c))
	case queueWaiting:
		return s.awaitHead(c, reload(c, q.node(id), l.Acquire))
	case headWaiting:
		done, ok := l.read(c, l.Acquire)
		if !ok {
			return cpu.Again, done
		}
		if s.wordLocked || s.wordPending {
			return spinOn(c, l.Line, done, l.Acquire)
		}
		if len(q.queue) == 1 {
			return s.policy.claimLast(c)
		}
		if l.CmpxchgClaim {
			// cmpxchg(val, val | locked): val is what this read saw.
			s.seenTail[id] = s.tailSwaps
			l.phase.set(id, headClaiming)
			if succ := q.queue[1]; q.linked[succ] && q.linkedAt[succ] <= c.Now() {
				c.PrefetchW(q.node(succ))
			}
			return s.claim(c)
		}
		return s.lockAndHand(c)
	case headClaiming:
		return s.claim(c)
	case headPrefetching:
		// next = READ_ONCE(node->next).
		l.phase.set(id, headReadingNext)
		return cpu.Again, c.Access(l.Acquire, q.node(id), cacheline.Load)
	case headReadingNext:
		// if (next) prefetchw(next): the successor's node, asked for
		// with intent to write while the head waits on the word.
		if s.successorVisible(c.Now()) {
			s.nextSeen[id] = true
			c.PrefetchW(q.node(q.queue[1]))
		}
		l.phase.set(id, headWaiting)
		return cpu.Again, c.Now()
	}
	// headHanding and awaitingLink: the lock is held; pass the head on.
	return s.policy.passHead(c)
}

// free reports whether the word reads 0: not locked, no pending bit, no
// tail. A cmpxchg(0, locked) that executes then takes the lock.
func (s *qspinlock) free() bool { return !s.wordLocked && !s.wordPending && len(s.q.queue) == 0 }

// takeFree is a cmpxchg(0, locked) that found the word free, executed at
// done: c holds the lock, the word showing it at once.
func (s *qspinlock) takeFree(c *cpu.Core, contended bool, done sim.Time) (cpu.Outcome, sim.Time) {
	s.wordLocked = true
	s.l.take(c, contended)
	return cpu.Next, done
}

// lockAndHand: set_locked() with a store, then make the successor the
// head.
func (s *qspinlock) lockAndHand(c *cpu.Core) (cpu.Outcome, sim.Time) {
	l := s.l
	s.q.queue = s.q.queue[1:]
	done := c.Access(l.Acquire, l.Line, cacheline.Store)
	s.setLocked(c)
	l.take(c, true)
	l.phase.set(c.ID, headHanding)
	return cpu.Again, done
}

// awaitHead waits for the grant that makes c the queue's head.
func (s *qspinlock) awaitHead(c *cpu.Core, done sim.Time) (cpu.Outcome, sim.Time) {
	out, at, ok := s.q.awaitGrant(c, done)
	if !ok {
		return out, at
	}
	return s.policy.atHead(c, at)
}

// atHead: the plain qspinlock's head waits on the word. One that queued
// behind a predecessor reads its next pointer first, where the kernel
// prefetches the successor's node; the first CPU queued does not (that
// code is in the slow path's "if (old & _Q_TAIL_MASK)").
func (s *qspinlock) atHead(c *cpu.Core, done sim.Time) (cpu.Outcome, sim.Time) {
	if !s.prefetches(c.ID) {
		s.l.phase.set(c.ID, headWaiting)
		return cpu.Again, done
	}
	s.l.phase.set(c.ID, headPrefetching)
	return cpu.Again, done
}

// prefetches reports whether CPU id, just made the queue's head, prefetches
// its successor's node: the lock does, and id queued behind another CPU.
func (s *qspinlock) prefetches(id int) bool { return s.l.PrefetchNext && s.q.pred[id] >= 0 }

// successorVisible reports whether the head has a successor whose link
// into the head's node has landed by now: READ_ONCE(node->next) returns it.
func (s *qspinlock) successorVisible(now sim.Time) bool {
	q := &s.q
	return len(q.queue) > 1 && q.linked[q.queue[1]] && q.linkedAt[q.queue[1]] <= now
}

// claimLast: the last queued CPU cmpxchg()es the tail away and takes the
// lock.
func (s *qspinlock) claimLast(c *cpu.Core) (cpu.Outcome, sim.Time) {
	s.q.queue = s.q.queue[:0]
	s.wordLocked = true
	s.l.take(c, true)
	done := c.Access(s.l.Acquire, s.l.Line, cacheline.RMW)
	return cpu.Next, max(done, s.leaveQueue(c))
}

// passHead makes the MCS successor the queue's head. A head that found its
// successor while it waited has the next pointer already.
func (s *qspinlock) passHead(c *cpu.Core) (cpu.Outcome, sim.Time) {
	if s.nextSeen[c.ID] {
		s.nextSeen[c.ID] = false
		s.l.phase.set(c.ID, handingOver)
	}
	out, at, ok := s.q.handOver(c, s.q.queue[0], s.l.Acquire)
	if !ok {
		return out, at
	}
	return cpu.Next, s.leaveQueue(c)
}

// claim is the queue head's cmpxchg of the word before Linux 4.2, with CPUs
// queued behind it. It executes at the line: if a CPU swapped the tail since
// the head last saw the word, it fails and the head tries again with what it
// returned; else the head holds the lock, the word showing it at once.
func (s *qspinlock) claim(c *cpu.Core) (cpu.Outcome, sim.Time) {
	l, id := s.l, c.ID
	done, ok := l.rmw(c, l.Line, l.Acquire, true)
	if !ok {
		return cpu.Again, done
	}
	if s.seenTail[id] != s.tailSwaps {
		s.seenTail[id] = s.tailSwaps
		l.Stats.Retries++
		return s.claim(c)
	}
	s.q.queue = s.q.queue[1:]
	s.wordLocked = true
	l.take(c, true)
	l.phase.set(id, headHanding)
	return cpu.Again, done
}

// leaveQueue ends a slow path that queued: __this_cpu_dec(mcs_nodes[0].count),
// a store to the CPU's own node, which takes the node back from the
// successor that linked into it.
func (s *qspinlock) leaveQueue(c *cpu.Core) sim.Time {
	return c.Access(s.l.Acquire, s.q.node(c.ID), cacheline.Store)
}

// setLocked shows the word locked, and its pending bit clear, where c's
// store that takes the lock lands. No other CPU can take the lock
// meanwhile: the word shows the tail of a queue or the pending bit until
// then, a fast path's cmpxchg needs all three clear, and the successor c
// makes the queue's head sees that grant only once this store has landed
// (awaitGrant).
func (s *qspinlock) setLocked(c *cpu.Core) {
	ev := &s.sets[c.ID]
	if ev.Action == nil {
		ev.Action = sim.ActionFunc(func(at sim.Time) {
			s.wordLocked, s.wordPending = true, false
			s.l.w.M.Poke(s.l.Line, at)
		})
	}
	c.M.Schedule(ev, max(c.LastStoreLands(), c.Now()))
}
