package models

import (
	"fmt"

	"contend/cacheline"
	"contend/cpu"
	"contend/sim"
)

// The MCS lock, include/linux/mcs_spinlock.h (mcs_spin_lock and
// mcs_spin_unlock) and the queue that qspinlock.go and cna.go build on. A
// waiter initialises its own node, swaps it into the lock's tail (xchg)
// and, if there was a predecessor, writes its node's next pointer and spins
// on its own node's locked field. unlock() hands over by writing the
// successor's node; with no successor in sight it cmpxchg()es the tail back
// to empty, and if that fails waits for the successor that is linking in.
// A release moves one line to one waiter.
//
// Phases of lock(): outside -> (store to the own node) nodeReady -> (xchg
// the tail) taken, or queueLinking -> (store to the predecessor's node)
// queueWaiting -> (the grant) taken. Of unlock(): a successor linked:
// handingOver -> (store to its node) done; none yet: (cmpxchg) done, or
// awaitingLink -> handingOver -> done.

const (
	nodeReady    lockPhase = outside + 1 + iota // own node initialised; next, swap the tail
	queueLinking                                // queued: next, write the predecessor's next pointer
	queueWaiting                                // spins on its own node until granted
	awaitingLink                                // unlock() or a head hand-over: waits for the successor to link in
	handingOver                                 // has read its next pointer; next, write the successor's node
)

// mcsQueue is the queue of MCS nodes: who is queued, in order, who has
// linked in behind whom, and who has been granted.
type mcsQueue struct {
	l         *Spinlock
	nodes     []*cacheline.Line // each CPU's queue node, made on first use
	queue     []int             // queued CPUs in order
	pred      []int             // the CPU each queued CPU links in behind
	linked    []bool            // a queued CPU has written its predecessor's next pointer
	linkedAt  []sim.Time        // when that write is visible
	granted   []bool            // MCS: handed the lock; qspinlock: made the queue's head
	grantedAt []sim.Time        // when that write is visible
}

func newMCSQueue(l *Spinlock) mcsQueue {
	n := l.w.M.NumCPUs()
	return mcsQueue{l: l, nodes: make([]*cacheline.Line, n), pred: make([]int, n),
		linked: make([]bool, n), linkedAt: make([]sim.Time, n), granted: make([]bool, n), grantedAt: make([]sim.Time, n)}
}

func (q *mcsQueue) node(c int) *cacheline.Line {
	if q.nodes[c] == nil {
		// Queue nodes are per-cpu data, but the predecessor and the releaser
		// write them, so they are ordinary lines homed on their CPU.
		line, err := q.l.w.M.NewLine(fmt.Sprintf("%s/mcs_node.%d", q.l.Name, c), false)
		if err != nil {
			panic("models: " + err.Error())
		}
		q.nodes[c] = line
	}
	return q.nodes[c]
}

// enqueue puts c at the tail behind pred (the last queued CPU, or the given
// CPU when the queue is empty); it links in on its next step.
func (q *mcsQueue) enqueue(c *cpu.Core, done sim.Time, pred int) (cpu.Outcome, sim.Time) {
	id := c.ID
	if len(q.queue) > 0 {
		pred = q.queue[len(q.queue)-1]
	}
	q.queue = append(q.queue, id)
	q.linked[id] = false
	q.pred[id] = pred
	if pred < 0 { // a qspinlock queue's first CPU has nobody to link behind
		q.linked[id], q.granted[id] = true, true
		q.l.phase.set(id, queueWaiting)
		return cpu.Again, done
	}
	q.l.phase.set(id, queueLinking)
	return cpu.Again, done
}

// link writes the predecessor's next pointer: a store to its node, which
// wakes a predecessor waiting in unlock() for exactly that. The CPU then
// waits for its grant.
func (q *mcsQueue) link(c *cpu.Core) sim.Time {
	id := c.ID
	done := c.SpinAccess(q.l.Acquire, q.node(q.pred[id]), cacheline.Store)
	q.linked[id], q.linkedAt[id] = true, c.StoresVisible()
	q.l.phase.set(id, queueWaiting)
	return done
}

// awaitGrant spins on the own node until the predecessor hands over, and
// reports true once the grant is seen. The grant is a store that leaves the
// predecessor's store buffer after its earlier stores (x86 keeps stores in
// order): a read served before it is visible still sees the node waiting,
// and the CPU reads it again then. Without that, a qspinlock head could
// read the word before the store that set its locked byte had landed, and
// take the lock from under it.
func (q *mcsQueue) awaitGrant(c *cpu.Core, done sim.Time) (cpu.Outcome, sim.Time, bool) {
	id := c.ID
	if !q.granted[id] {
		out, at := spinOn(c, q.node(id), done, q.l.Acquire)
		return out, at, false
	}
	if at := q.grantedAt[id]; at > done {
		c.Charge(q.l.Acquire, cpu.Spin, at-done)
		return cpu.Again, at, false
	}
	q.granted[id] = false
	return cpu.Again, done, true
}

// awaitLink reports true once succ has linked in behind c and the link is
// visible. Until then c spins on its own node, which the link writes.
func (q *mcsQueue) awaitLink(c *cpu.Core, succ int, label cpu.Label) (cpu.Outcome, sim.Time, bool) {
	id := c.ID
	if now := c.Now(); q.linked[succ] && q.linkedAt[succ] > now {
		// The link store is on its way: the next pointer reads NULL
		// until it lands.
		q.l.phase.set(id, awaitingLink)
		c.Charge(label, cpu.Spin, q.linkedAt[succ]-now)
		return cpu.Again, q.linkedAt[succ], false
	}
	if !q.linked[succ] {
		first := q.l.phase.p[id] != awaitingLink
		q.l.phase.set(id, awaitingLink)
		if first {
			out, at := spinOn(c, q.node(id), c.Now(), label)
			return out, at, false
		}
		out, at := spinOn(c, q.node(id), reload(c, q.node(id), label), label)
		return out, at, false
	}
	return cpu.Again, c.Now(), true
}

// handOver writes the successor's node once the successor has linked in
// behind c: granting it the lock (MCS) or the head of the queue (qspinlock).
// It reports true, with the time of that store, once it is written.
func (q *mcsQueue) handOver(c *cpu.Core, succ int, label cpu.Label) (cpu.Outcome, sim.Time, bool) {
	if out, at, ok := q.awaitLink(c, succ, label); !ok {
		return out, at, false
	}
	if q.l.phase.p[c.ID] != handingOver {
		// Read the own node's next pointer, written by the successor
		// (qspinlock: after set_locked, as 4.2 to 4.4 do; later kernels
		// only when it read NULL as the CPU became the head, see
		// PrefetchNext).
		q.l.phase.set(c.ID, handingOver)
		return cpu.Again, c.Access(label, q.node(c.ID), cacheline.Load), false
	}
	return cpu.Next, q.grant(c, succ, label), true
}

// grant writes succ's node: arch_mcs_spin_unlock_contended().
func (q *mcsQueue) grant(c *cpu.Core, succ int, label cpu.Label) sim.Time {
	q.l.phase.set(c.ID, outside)
	q.granted[succ] = true
	done := c.Access(label, q.node(succ), cacheline.Store)
	q.grantedAt[succ] = c.StoresVisible()
	return done
}

// mcsLock is the MCS lock itself.
type mcsLock struct {
	l *Spinlock
	q mcsQueue
}

func newMCSLock(l *Spinlock) spinAlgorithm { return &mcsLock{l: l, q: newMCSQueue(l)} }

// unlockStores: MCS's unlock begins with a cmpxchg of the tail, or the
// successor's node.
func (m *mcsLock) unlockStores() bool { return false }

// lock: initialise the own node, swap it into the tail, link behind the
// predecessor, spin on the own node until granted.
func (m *mcsLock) lock(c *cpu.Core) (cpu.Outcome, sim.Time) {
	l, q, id := m.l, &m.q, c.ID
	var done sim.Time
	switch l.phase.p[id] {
	case outside:
		l.phase.set(id, nodeReady)
		return cpu.Again, c.Access(l.Acquire, q.node(id), cacheline.Store)
	case nodeReady:
		done, ok := l.rmw(c, l.Line, l.Acquire, false)
		if !ok {
			return cpu.Again, done
		}
		if l.holder < 0 && len(q.queue) == 0 {
			l.take(c, false)
			return cpu.Next, done
		}
		if !l.w.wait(c, l) {
			return cpu.Block, 0
		}
		return q.enqueue(c, done, l.holder)
	case queueLinking:
		done = q.link(c)
	default:
		done = reload(c, q.node(id), l.Acquire)
	}
	out, at, ok := q.awaitGrant(c, done)
	if !ok {
		return out, at
	}
	l.w.acquired(c, &l.Stats, true)
	l.phase.set(id, outside)
	return cpu.Next, at
}

// unlock hands the lock to the queue's next CPU, or cmpxchg()es the tail
// back to empty; if a CPU queued before that executed, the cmpxchg fails
// and the lock goes to that CPU.
func (m *mcsLock) unlock(c *cpu.Core) (cpu.Outcome, sim.Time) {
	l, q, id := m.l, &m.q, c.ID
	if len(q.queue) > 0 && !l.inflight[id] {
		return m.handOver(c)
	}
	done, ok := l.rmw(c, l.Line, l.Release, false)
	if !ok {
		return cpu.Again, done
	}
	if len(q.queue) > 0 {
		return m.handOver(c)
	}
	l.phase.set(id, outside)
	l.release(id)
	return cpu.Next, done
}

// handOver grants the lock to the queue's first CPU, which becomes the
// holder.
func (m *mcsLock) handOver(c *cpu.Core) (cpu.Outcome, sim.Time) {
	l, q := m.l, &m.q
	succ := q.queue[0]
	out, at, ok := q.handOver(c, succ, l.Release)
	if !ok {
		return out, at
	}
	q.queue = q.queue[1:]
	l.release(c.ID)
	l.holder = succ
	return out, at
}
