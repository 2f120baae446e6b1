package models

import (
	"contend/cacheline"
	"contend/cpu"
	"contend/sim"
)

// CNA, the compact NUMA-aware lock (Dice and Kogan, EuroSys 2019) as the
// slow path of qspinlock: kernel/locking/qspinlock_cna.h of Alex Kogan's
// series "[PATCH v11 0/5] Add NUMA-awareness to qspinlock" (2020-09-15).
// Everything of qspinlock.go stays (fast path, pending bit, the MCS queue,
// set_locked); what changes is whom a queue head hands over to.
//
//   - cna_wait_head_or_lock: a CPU just made the queue's head reads its
//     node's next pointer and that waiter's node (cna_order_queue). If the
//     waiter runs on another NUMA node than the head's preferred one and a
//     waiter has linked in behind it, the head moves it to the tail of the
//     secondary queue (cna_splice_next: stores to the moved node and to the
//     secondary tail's) and looks no further: one waiter a head. The
//     waiter now next inherits the head's node id (a store to its node),
//     so the preference holds even where it runs elsewhere.
//   - The fairness threshold: if the secondary queue's oldest waiter has
//     waited past numa_spinlock_threshold (10 ms, in jiffies rounded up,
//     against the jiffy the secondary queue was made), the head skips the
//     scan and, at hand-over, splices the secondary queue in front of the
//     primary and passes the lock to its head (FLUSH_SECONDARY_QUEUE).
//   - cna_try_clear_tail: a head with nobody behind it in the primary
//     queue that finds the secondary queue non-empty makes the secondary
//     queue the queue (a store that breaks its circle, then cmpxchg the
//     tail to its tail with the lock taken) and grants its head.
//   - cna_lock_handoff: with the secondary queue kept, it travels with the
//     grant (node->locked); a head that found no waiter in its scan scans
//     once more at hand-over, when its successor has linked in.
//
// The waiters of the secondary queue never leave their nodes: they spin on
// them until a grant, like every MCS waiter. Prioritized waiters (irq, nmi,
// RT tasks, patch 5/5) do not arise here: every waiter is a task.
//
// Phases added to qspinlock's: headWaiting is reached through cnaScanning
// -> cnaReadingNext -> cnaReadingNode (or at once, when the threshold
// passed); a hand-over that must scan again goes through cnaHandReading.

const (
	cnaScanning    lockPhase = headReadingNext + 1 + iota // made the head: next, read the own node's next pointer
	cnaReadingNext                                        // that read is in flight: next, read the next waiter's node
	cnaReadingNode                                        // the waiter's node read is in flight: next, move it or not
	cnaHandReading                                        // hand-over: the successor's node read is in flight
	cnaClearing                                           // cna_try_clear_tail's cmpxchg is in flight
)

// cnaOrder is the head's decision, the patch's partial_order.
type cnaOrder uint8

const (
	localWaiterFound    cnaOrder = iota // hand over to the next waiter of the primary queue
	localWaiterNotFound                 // nobody was behind the head when it looked: look again at hand-over
	flushSecondaryQueue                 // the threshold passed: hand over to the secondary queue's head
)

type cnaLock struct {
	*qspinlock
	numaNode  []int      // each CPU's node id as its queue node says (a moved-over waiter inherits one)
	order     []cnaOrder // each head's decision
	secondary []int      // the secondary queue, oldest first
	startTime int64      // the jiffy the secondary queue was made (never 0), or 0 when it is empty
	// threshold is intra_node_handoff_threshold: MSECS_TO_JIFFIES(10).
	threshold int64
}

func newCNA(l *Spinlock) spinAlgorithm {
	n := l.w.M.NumCPUs()
	msPerJiffy := max(1, 1000/int64(l.w.K.HZ))
	s := &cnaLock{qspinlock: newQspinlock(l).(*qspinlock), numaNode: make([]int, n), order: make([]cnaOrder, n),
		threshold: (10 + msPerJiffy - 1) / msPerJiffy}
	s.policy = s
	return s
}

func (s *cnaLock) lock(c *cpu.Core) (cpu.Outcome, sim.Time) {
	id := c.ID
	switch s.l.phase.p[id] {
	case outside:
		// cna_init_node(): the node is stamped with the CPU's own node
		// each time it queues.
		s.numaNode[id] = s.l.w.M.Topology().Socket(id)
	case cnaScanning, cnaReadingNext, cnaReadingNode:
		return s.scan(c)
	case cnaHandReading:
		return s.passHead(c)
	case cnaClearing:
		return s.clearTail(c)
	}
	return s.qspinlock.lock(c)
}

// visible reports whether q.queue[i] exists and its link into the waiter
// before it has landed: READ_ONCE(prev->next) returns it.
func (s *cnaLock) visible(i int, now sim.Time) bool {
	q := &s.q
	return i < len(q.queue) && q.linked[q.queue[i]] && q.linkedAt[q.queue[i]] <= now
}

// atHead is cna_wait_head_or_lock: scan, unless the secondary queue's head
// has waited long enough.
func (s *cnaLock) atHead(c *cpu.Core, done sim.Time) (cpu.Outcome, sim.Time) {
	id := c.ID
	if s.startTime != 0 && s.l.w.Jiffies(c.Now())-(s.startTime+s.threshold) > 0 {
		s.order[id] = flushSecondaryQueue
		s.l.phase.set(id, headWaiting)
		return cpu.Again, done
	}
	s.l.phase.set(id, cnaScanning)
	return cpu.Again, done
}

// scan is cna_order_queue at the head, before it waits on the word: the
// next waiter is q.queue[1].
func (s *cnaLock) scan(c *cpu.Core) (cpu.Outcome, sim.Time) {
	l, q, id := s.l, &s.q, c.ID
	switch l.phase.p[id] {
	case cnaScanning:
		l.phase.set(id, cnaReadingNext)
		return cpu.Again, c.Access(l.Acquire, q.node(id), cacheline.Load)
	case cnaReadingNext:
		if !s.visible(1, c.Now()) {
			s.order[id] = localWaiterNotFound
			l.phase.set(id, headWaiting)
			return cpu.Again, c.Now()
		}
		l.phase.set(id, cnaReadingNode)
		if s.prefetches(id) {
			// The generic slow path's prefetchw(next), just before
			// cna_wait_head_or_lock reads the same node.
			c.PrefetchW(q.node(q.queue[1]))
		}
		return cpu.Again, c.Access(l.Acquire, q.node(q.queue[1]), cacheline.Load)
	}
	s.order[id] = localWaiterFound
	l.phase.set(id, headWaiting)
	return cpu.Again, s.orderQueue(c, 1)
}

// orderQueue is the decision of cna_order_queue once the next waiter,
// q.queue[i], and its node have been read: a waiter of another node with
// one behind it goes to the secondary queue, and the waiter then next
// takes the head's node id. It returns when the stores are issued.
func (s *cnaLock) orderQueue(c *cpu.Core, i int) sim.Time {
	l, q, id := s.l, &s.q, c.ID
	now := c.Now()
	next := q.queue[i]
	if s.numaNode[next] == s.numaNode[id] {
		return now
	}
	done := now
	if s.visible(i+1, now) {
		// cna_splice_next: next->next closes or joins the secondary
		// queue's circle; the old tail points to it.
		done = c.Access(l.Acquire, q.node(next), cacheline.Store)
		if len(s.secondary) == 0 {
			s.startTime = max(1, l.w.Jiffies(now))
		} else {
			done = max(done, c.Access(l.Acquire, q.node(s.secondary[len(s.secondary)-1]), cacheline.Store))
		}
		s.secondary = append(s.secondary, next)
		q.queue = append(q.queue[:i], q.queue[i+1:]...)
		next = q.queue[i]
	}
	s.numaNode[next] = s.numaNode[id]
	return max(done, c.Access(l.Acquire, q.node(next), cacheline.Store))
}

// claimLast is cna_try_clear_tail: with the secondary queue empty, what
// qspinlock does; else the head breaks the secondary queue's circle
// (tail_2nd->next = NULL) and cmpxchg()es the tail to the secondary tail,
// with the lock taken.
func (s *cnaLock) claimLast(c *cpu.Core) (cpu.Outcome, sim.Time) {
	if len(s.secondary) == 0 {
		return s.qspinlock.claimLast(c)
	}
	s.seenTail[c.ID] = s.tailSwaps
	s.l.phase.set(c.ID, cnaClearing)
	c.Access(s.l.Acquire, s.q.node(s.secondary[len(s.secondary)-1]), cacheline.Store)
	return s.clearTail(c)
}

// clearTail is that cmpxchg, decided where it executes: if a CPU swapped
// the tail since the head read the word, it fails (the circle is restored)
// and the head takes the lock as a head with a successor does; else the
// secondary queue is the queue, and its head is granted.
func (s *cnaLock) clearTail(c *cpu.Core) (cpu.Outcome, sim.Time) {
	l, q := s.l, &s.q
	done, ok := l.rmw(c, l.Line, l.Acquire, true)
	if !ok {
		return cpu.Again, done
	}
	if s.seenTail[c.ID] != s.tailSwaps {
		c.Access(l.Acquire, q.node(s.secondary[len(s.secondary)-1]), cacheline.Store)
		return s.lockAndHand(c)
	}
	q.queue = append(q.queue[:0], s.secondary...)
	s.secondary, s.startTime = s.secondary[:0], 0
	s.wordLocked = true
	l.take(c, true)
	done = max(done, q.grant(c, q.queue[0], l.Acquire))
	return cpu.Next, max(done, s.leaveQueue(c))
}

// passHead is cna_lock_handoff, once the successor has linked in and the
// own node's next pointer has been read.
func (s *cnaLock) passHead(c *cpu.Core) (cpu.Outcome, sim.Time) {
	l, q, id := s.l, &s.q, c.ID
	if l.phase.p[id] == cnaHandReading {
		done := s.orderQueue(c, 0)
		return cpu.Next, max(done, q.grant(c, q.queue[0], l.Acquire), s.leaveQueue(c))
	}
	if out, at, ok := q.awaitLink(c, q.queue[0], l.Acquire); !ok {
		return out, at
	}
	if l.phase.p[id] != handingOver {
		l.phase.set(id, handingOver)
		return cpu.Again, c.Access(l.Acquire, q.node(id), cacheline.Load)
	}
	var done sim.Time
	switch s.order[id] {
	case localWaiterNotFound:
		l.phase.set(id, cnaHandReading)
		return cpu.Again, c.Access(l.Acquire, q.node(q.queue[0]), cacheline.Load)
	case flushSecondaryQueue:
		// cna_splice_head: tail_2nd->next = next, and the secondary
		// queue's head is the primary queue's.
		done = c.Access(l.Acquire, q.node(s.secondary[len(s.secondary)-1]), cacheline.Store)
		q.queue = append(s.secondary, q.queue...)
		s.secondary, s.startTime = nil, 0
	}
	done = max(done, q.grant(c, q.queue[0], l.Acquire))
	return cpu.Next, max(done, s.leaveQueue(c))
}
