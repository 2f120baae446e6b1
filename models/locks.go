package models

import (
	"fmt"

	"contend/cacheline"
	"contend/cpu"
	"contend/sim"
)

// LockKind is a spinlock implementation.
type LockKind uint8

// Spinlock kinds, as Linux has had them.
const (
	// Ticket: fetch-add a ticket on the lock word, spin reading it until the
	// owner field reaches the ticket (x86 before 4.2). With a backoff, a
	// waiter k tickets from its turn waits k backoffs before it reads again.
	Ticket LockKind = iota
	// MCS: a queue of waiters, each spinning on its own node; the releaser
	// waits for its successor to link in, then writes the successor's node.
	MCS
	// TestAndSet: retry an atomic exchange on the lock word.
	TestAndSet
	// TestAndTestAndSet: spin reading the lock word while it is held, and
	// try the exchange only when it reads free.
	TestAndTestAndSet
	// Qspinlock is Linux's queued spinlock (4.2 on, kernel/locking/
	// qspinlock.c): a locked byte, a pending bit and an MCS tail in one word.
	// An uncontended lock is one cmpxchg; the first waiter sets pending and
	// spins on the lock word; later ones queue, and only the queue's head
	// spins on the lock word.
	Qspinlock
)

var lockKindNames = map[string]LockKind{
	"ticket": Ticket, "mcs": MCS, "qspinlock": Qspinlock, "tas": TestAndSet, "test-and-set": TestAndSet,
	"ttas": TestAndTestAndSet, "test-and-test-and-set": TestAndTestAndSet,
}

// ParseLockKind maps a scenario's lock kind to a LockKind.
func ParseLockKind(s string) (LockKind, bool) {
	k, ok := lockKindNames[s]
	return k, ok
}

func (k LockKind) String() string {
	return [...]string{"ticket", "mcs", "test-and-set", "test-and-test-and-set", "qspinlock"}[k]
}

// LockStats count what happened to a lock in the measured interval.
type LockStats struct {
	Acquisitions uint64
	Contended    uint64 // acquisitions that had to wait
	Retries      uint64 // atomics that failed and went round again (a qspinlock head's cmpxchg claim)
}

// Spinlock is a spinlock on a cache line.
type Spinlock struct {
	w       *World
	Name    string
	Kind    LockKind
	Line    *cacheline.Line   // the lock word, alone or beside the data it protects
	nodes   []*cacheline.Line // MCS and qspinlock: each CPU's queue node
	Acquire cpu.Label
	Release cpu.Label
	// Backoff, for a ticket lock, is how long a waiter waits per ticket
	// ahead of its own before it reads the lock word again; 0 spins on it.
	Backoff sim.Time
	// CmpxchgClaim makes a qspinlock's queue head take the lock with a
	// cmpxchg loop even when others queue behind it, as the kernel did
	// before commit 2c83e8e9492d (Linux 4.2); since then set_locked() is
	// a plain store. The cmpxchg fails, and goes round again, when a CPU
	// swapped the tail between the head's read of the word and it.
	CmpxchgClaim bool

	holder        int
	pending       int        // qspinlock: the CPU that set the pending bit, or -1
	next, serving int64      // ticket lock
	queue         []int      // MCS and qspinlock: queued CPUs in order
	linked        []bool     // a queued CPU has written its predecessor's next pointer
	linkedAt      []sim.Time // when that write is visible
	granted       []bool     // MCS: handed the lock; qspinlock: made the queue's head
	grantedAt     []sim.Time // when that write is visible
	ticket        []int64    // ticket held while waiting, by core
	phase         []lockPhase
	inflight      []bool      // an atomic issued by this CPU has not executed yet
	reading       []bool      // a read of the word issued by this CPU has not been served yet
	unlocks       []sim.Event // each CPU's unlock store, taking effect where it lands
	unlocking     []bool      // that store has not landed yet
	// What qspinlock's word shows: its locked byte and pending bit. The
	// plain stores that set the locked byte (set_locked,
	// clear_pending_set_locked) change it where they land, like the
	// unlock; until then other CPUs read the word as it was.
	wordLocked, wordPending bool
	sets                    []sim.Event // each CPU's locking store, landing
	tailSwaps               uint64      // qspinlock: xchg_tail()s so far, the tail's version
	seenTail                []uint64    // the version the head's last read of the word saw
	held                    [1]int      // holders' answer, reused: deadlock checks run on every contended wait
	Stats                   LockStats
}

// lockPhase is where a CPU is in lock() or unlock() of one spinlock.
type lockPhase uint8

const (
	outside        lockPhase = iota // not in lock() or unlock()
	ticketWaiting                   // has a ticket; spins or backs off until it is served
	tasRetrying                     // test-and-set: its exchange found the lock held
	ttasSpinning                    // test-and-test-and-set: reads the word until it is free
	nodeReady                       // MCS/qspinlock: own node initialised; next, swap the tail
	queueLinking                    // queued: next, write the predecessor's next pointer
	queueWaiting                    // spins on its own node until granted
	pendingWaiting                  // qspinlock: set pending, spins on the word until the holder leaves
	headWaiting                     // qspinlock: the queue's head, spins on the word until locked and pending clear
	headClaiming                    // qspinlock (CmpxchgClaim): the head's cmpxchg of the word is in flight
	headHanding                     // qspinlock: took the lock; next, make its successor the head
	awaitingLink                    // unlock() or a head hand-over: waits for the successor to link in
	handingOver                     // MCS unlock(): has read its next pointer; next, write the successor's node
)

// NewSpinlock adds a spinlock whose word is a line of its own called name.
func (w *World) NewSpinlock(name string, kind LockKind, acquire, release string) (*Spinlock, error) {
	line, err := w.M.NewLine(name, false)
	if err != nil {
		return nil, err
	}
	return w.NewSpinlockOn(line, name, kind, acquire, release), nil
}

// NewSpinlockOn adds a spinlock whose word lives on line, beside whatever
// else the line holds: the holder's accesses to the line hit, and every
// write to it is seen by the spinners.
func (w *World) NewSpinlockOn(line *cacheline.Line, name string, kind LockKind, acquire, release string) *Spinlock {
	n := w.M.NumCPUs()
	l := &Spinlock{
		w: w, Name: name, Kind: kind, Line: line,
		Acquire: w.M.Label(acquire), Release: w.M.Label(release),
		holder: -1, pending: -1, granted: make([]bool, n), linked: make([]bool, n), linkedAt: make([]sim.Time, n), grantedAt: make([]sim.Time, n),
		ticket: make([]int64, n), phase: make([]lockPhase, n), inflight: make([]bool, n), reading: make([]bool, n), unlocks: make([]sim.Event, n), unlocking: make([]bool, n), sets: make([]sim.Event, n),
		seenTail: make([]uint64, n),
	}
	if kind == MCS || kind == Qspinlock {
		l.nodes = make([]*cacheline.Line, n)
	}
	w.locks = append(w.locks, l)
	return l
}

func (l *Spinlock) name() string { return l.Name }

func (l *Spinlock) holders() []int {
	if l.holder < 0 {
		return nil
	}
	l.held[0] = l.holder
	return l.held[:]
}

// Holder returns the CPU holding the lock, or -1.
func (l *Spinlock) Holder() int { return l.holder }

func (l *Spinlock) node(c int) *cacheline.Line {
	if l.nodes[c] == nil {
		// Queue nodes are per-cpu data, but the predecessor and the releaser
		// write them, so they are ordinary lines homed on their CPU.
		line, err := l.w.M.NewLine(fmt.Sprintf("%s/mcs_node.%d", l.Name, c), false)
		if err != nil {
			panic("models: " + err.Error())
		}
		l.nodes[c] = line
	}
	return l.nodes[c]
}

func (l *Spinlock) take(c *cpu.Core, contended bool) {
	if l.holder >= 0 {
		panic(fmt.Sprintf("models: %s: cpu %d acquires while cpu %d holds it", l.Name, c.ID, l.holder))
	}
	l.holder = c.ID
	l.phase[c.ID] = outside
	l.w.acquired(c, &l.Stats, contended)
}

// acquired records that c now holds a spinning lock (spinlock or rwlock):
// it may not sleep until it lets go, and it no longer waits for anything.
func (w *World) acquired(c *cpu.Core, stats *LockStats, contended bool) {
	stats.Acquisitions++
	if contended {
		stats.Contended++
	}
	st := &w.percpu[c.ID]
	st.spinHeld++
	if st.waitFor != nil {
		w.recordWait(c.Now() - st.waitSince)
	}
	st.waitFor = nil
}

// wait checks that c may wait for l and records the wait. It returns false
// after failing the run on a deadlock.
func (w *World) wait(c *cpu.Core, l locker) bool {
	if w.deadlock(c.ID, l) {
		c.Fail(fmt.Sprintf("deadlock: waits for %s, which can only be released by a CPU waiting for this one (or by itself)", l.name()))
		return false
	}
	st := &w.percpu[c.ID]
	if st.waitFor != l { // a reader that looks again and still waits goes on waiting
		st.waitSince = c.Now()
	}
	st.waitFor = l
	return true
}

// waiting reports whether cpu has waited for a lock since it last took one:
// an acquisition that ends a wait is a contended one.
func (w *World) waiting(cpu int) bool { return w.percpu[cpu].waitFor != nil }

// spinOn blocks c spinning on line from time from until the line is written.
// A core can only wait for a line it holds: a write by the line's owner is a
// hit that wakes nobody. If the line has gone (an MCS successor's link store
// can take a queue node from under its owner), the step runs again at once
// and re-reads it, as a spinning core's next load would. If it is going but
// the snoop has not come, the core's own copy serves this read: it sees the
// lock as it was and reads again somewhere in the pause after the copy goes,
// as a spinner does whose line is taken while it holds it.
func spinOn(c *cpu.Core, line *cacheline.Line, from sim.Time, label cpu.Label) (cpu.Outcome, sim.Time) {
	if !line.Holds(c.ID) {
		at := from
		if kept := line.KeptUntil(c.ID); kept > from {
			// The line is leaving, but the snoop has not come: the
			// core's own copy serves this read, which sees the lock
			// as it was, and the core reads again after a pause.
			at = c.Notices(kept)
		}
		c.Charge(label, cpu.Spin, at-from)
		return cpu.Again, at
	}
	c.Watch(line)
	c.BlockFrom(from, label, cpu.Spin)
	return cpu.Block, 0
}

// reload re-reads a line after it was invalidated, charging the miss as spin.
func reload(c *cpu.Core, line *cacheline.Line, label cpu.Label) sim.Time {
	now := c.Now()
	done := c.Reread(line)
	c.Charge(label, cpu.Spin, done-now)
	return done
}

// rmw issues an atomic on line for the step c is in and returns false with
// its completion time; when the step runs again at that time it returns true:
// the atomic has executed. Its effect on the lock is decided then, at the
// line, not when it was issued: a CPU whose atomic waits for the line does
// not overtake the owner's atomics that execute meanwhile.
func (l *Spinlock) rmw(c *cpu.Core, line *cacheline.Line, label cpu.Label, spin bool) (sim.Time, bool) {
	id := c.ID
	if l.inflight[id] {
		l.inflight[id] = false
		return c.Now(), true
	}
	l.inflight[id] = true
	if spin {
		return c.SpinAccess(label, line, cacheline.RMW), false
	}
	return c.Access(label, line, cacheline.RMW), false
}

// read re-reads the lock word for the step c is in and returns false with
// the time the read is served; when the step runs again then, it returns
// true and the caller looks at the lock. A read returns the word as it is
// when the line comes, not as it was when the core asked: a head of the
// queue that asks while the holder's unlock waits in its store buffer behind
// an earlier store reads the unlock, since the holder gives the line up only
// once its stores are in it.
func (l *Spinlock) read(c *cpu.Core, label cpu.Label) (sim.Time, bool) {
	id := c.ID
	if l.reading[id] {
		l.reading[id] = false
		return c.Now(), true
	}
	done := reload(c, l.Line, label)
	if done <= c.Now() {
		return done, true
	}
	l.reading[id] = true
	return done, false
}

// LockStep is spin_lock().
type LockStep struct{ L *Spinlock }

// Exec implements cpu.Step.
func (s *LockStep) Exec(c *cpu.Core) (cpu.Outcome, sim.Time) {
	l := s.L
	// A CPU whose own unlock has not landed yet is not relocking a lock it
	// holds: its atomic drains the store buffer first.
	if l.phase[c.ID] == outside && l.holder == c.ID && !l.unlocking[c.ID] {
		c.Fail(fmt.Sprintf("deadlock: spin_lock(%s) while this CPU already holds it", l.Name))
		return cpu.Block, 0
	}
	switch l.Kind {
	case Ticket:
		return l.lockTicket(c)
	case MCS:
		return l.lockMCS(c)
	case Qspinlock:
		return l.lockQspinlock(c)
	case TestAndTestAndSet:
		return l.lockTTAS(c)
	}
	return l.lockTAS(c)
}

// lockTicket: fetch-add a ticket; until it is served, spin on the word, or
// with a backoff wait in proportion to the tickets ahead and read again.
func (l *Spinlock) lockTicket(c *cpu.Core) (cpu.Outcome, sim.Time) {
	id := c.ID
	var done sim.Time
	if l.phase[id] == outside {
		var ok bool
		if done, ok = l.rmw(c, l.Line, l.Acquire, false); !ok {
			return cpu.Again, done
		}
		my := l.next
		l.next++
		if l.serving == my {
			l.take(c, false)
			return cpu.Next, done
		}
		if !l.w.wait(c, l) {
			return cpu.Block, 0
		}
		l.ticket[id], l.phase[id] = my, ticketWaiting
	} else {
		var ok bool
		if done, ok = l.read(c, l.Acquire); !ok {
			return cpu.Again, done
		}
		if l.serving == l.ticket[id] {
			l.take(c, true)
			return cpu.Next, done
		}
	}
	if l.Backoff > 0 {
		delay := sim.Time(l.ticket[id]-l.serving) * l.Backoff
		c.Charge(l.Acquire, cpu.Spin, delay)
		return cpu.Again, done + delay
	}
	return spinOn(c, l.Line, done, l.Acquire)
}

// lockMCS: initialise the own node, swap it into the tail, link behind the
// predecessor, spin on the own node until granted.
func (l *Spinlock) lockMCS(c *cpu.Core) (cpu.Outcome, sim.Time) {
	id := c.ID
	switch l.phase[id] {
	case outside:
		l.phase[id] = nodeReady
		return cpu.Again, c.Access(l.Acquire, l.node(id), cacheline.Store)
	case nodeReady:
		done, ok := l.rmw(c, l.Line, l.Acquire, false)
		if !ok {
			return cpu.Again, done
		}
		if l.holder < 0 && len(l.queue) == 0 {
			l.take(c, false)
			return cpu.Next, done
		}
		if !l.w.wait(c, l) {
			return cpu.Block, 0
		}
		return l.enqueue(c, done, l.holder)
	case queueLinking:
		return l.link(c)
	}
	done := reload(c, l.node(id), l.Acquire)
	return l.awaitGrant(c, done)
}

// enqueue puts c at the tail behind pred (the last queued CPU, or the given
// CPU when the queue is empty); it links in on its next step.
func (l *Spinlock) enqueue(c *cpu.Core, done sim.Time, pred int) (cpu.Outcome, sim.Time) {
	id := c.ID
	if len(l.queue) > 0 {
		pred = l.queue[len(l.queue)-1]
	}
	l.queue = append(l.queue, id)
	l.linked[id] = false
	l.ticket[id] = int64(pred)
	if pred < 0 { // a qspinlock queue's first CPU has nobody to link behind
		l.linked[id], l.granted[id] = true, true
		l.phase[id] = queueWaiting
		return cpu.Again, done
	}
	l.phase[id] = queueLinking
	return cpu.Again, done
}

// link writes the predecessor's next pointer: a store to its node, which
// wakes a predecessor waiting in unlock() for exactly that.
func (l *Spinlock) link(c *cpu.Core) (cpu.Outcome, sim.Time) {
	id := c.ID
	done := c.SpinAccess(l.Acquire, l.node(int(l.ticket[id])), cacheline.Store)
	l.linked[id], l.linkedAt[id] = true, c.StoresVisible()
	l.phase[id] = queueWaiting
	return l.awaitGrant(c, done)
}

// awaitGrant spins on the own node until the predecessor hands over. The
// grant is a store that leaves the predecessor's store buffer after its
// earlier stores (x86 keeps stores in order): a read served before it is
// visible still sees the node waiting, and the CPU reads it again then.
// Without that, a qspinlock head could read the word before the store
// that set its locked byte had landed, and take the lock from under it.
func (l *Spinlock) awaitGrant(c *cpu.Core, done sim.Time) (cpu.Outcome, sim.Time) {
	id := c.ID
	if !l.granted[id] {
		return spinOn(c, l.node(id), done, l.Acquire)
	}
	if at := l.grantedAt[id]; at > done {
		c.Charge(l.Acquire, cpu.Spin, at-done)
		return cpu.Again, at
	}
	l.granted[id] = false
	if l.Kind == Qspinlock {
		l.phase[id] = headWaiting
		return cpu.Again, done
	}
	l.w.acquired(c, &l.Stats, true)
	l.phase[id] = outside
	return cpu.Next, done
}

// lockQspinlock follows queued_spin_lock() and its slow path.
func (l *Spinlock) lockQspinlock(c *cpu.Core) (cpu.Outcome, sim.Time) {
	id := c.ID
	switch l.phase[id] {
	case outside:
		// Fast path: cmpxchg(0, locked).
		done, ok := l.rmw(c, l.Line, l.Acquire, false)
		if !ok {
			return cpu.Again, done
		}
		if !l.wordLocked && !l.wordPending && len(l.queue) == 0 {
			l.wordLocked = true
			l.take(c, false)
			return cpu.Next, done
		}
		if !l.w.wait(c, l) {
			return cpu.Block, 0
		}
		if !l.wordLocked && len(l.queue) == 0 {
			// Only pending: a hand-over from pending to locked is in
			// flight. Wait for the word to change, then start again.
			return spinOn(c, l.Line, done, l.Acquire)
		}
		if !l.wordPending && len(l.queue) == 0 {
			// Only locked: set pending (a second atomic, fetch_or) and
			// spin on the word for the holder to leave.
			l.pending, l.wordPending = id, true
			l.phase[id] = pendingWaiting
			return cpu.Again, c.SpinAccess(l.Acquire, l.Line, cacheline.RMW)
		}
		// node->count++ and the node's initialisation: the node is this
		// CPU's, and stays in its cache from the count-- that ended its
		// last slow path.
		l.phase[id] = nodeReady
		return cpu.Again, c.SpinAccess(l.Acquire, l.node(id), cacheline.LoadOwn)
	case pendingWaiting:
		done, ok := l.read(c, l.Acquire)
		if !ok {
			return cpu.Again, done
		}
		if l.wordLocked {
			return spinOn(c, l.Line, done, l.Acquire)
		}
		// clear_pending_set_locked(): a plain store on the word.
		l.pending = -1
		done = c.Access(l.Acquire, l.Line, cacheline.Store)
		l.setLocked(c)
		l.take(c, true)
		return cpu.Next, done
	case nodeReady:
		// xchg_tail(), then link behind the previous tail if there was one.
		done, ok := l.rmw(c, l.Line, l.Acquire, true)
		if !ok {
			return cpu.Again, done
		}
		l.tailSwaps++
		return l.enqueue(c, done, -1)
	case queueLinking:
		return l.link(c)
	case queueWaiting:
		done := reload(c, l.node(id), l.Acquire)
		return l.awaitGrant(c, done)
	case headWaiting:
		done, ok := l.read(c, l.Acquire)
		if !ok {
			return cpu.Again, done
		}
		if l.wordLocked || l.wordPending {
			return spinOn(c, l.Line, done, l.Acquire)
		}
		if len(l.queue) == 1 {
			// The last queued CPU: cmpxchg the tail away and take the lock.
			l.queue = l.queue[:0]
			l.wordLocked = true
			l.take(c, true)
			done = c.Access(l.Acquire, l.Line, cacheline.RMW)
			return cpu.Next, max(done, l.leaveQueue(c))
		}
		if l.CmpxchgClaim {
			// cmpxchg(val, val | locked): val is what this read saw.
			l.seenTail[id] = l.tailSwaps
			l.phase[id] = headClaiming
			if succ := l.queue[1]; l.linked[succ] && l.linkedAt[succ] <= c.Now() {
				c.PrefetchW(l.node(succ))
			}
			return l.claim(c)
		}
		l.queue = l.queue[1:]
		// set_locked() with a store, then make the successor the head.
		done = c.Access(l.Acquire, l.Line, cacheline.Store)
		l.setLocked(c)
		l.take(c, true)
		l.phase[id] = headHanding
		return cpu.Again, done
	case headClaiming:
		return l.claim(c)
	}
	// headHanding and awaitingLink: the lock is held; pass the head on.
	return l.handOver(c, l.queue[0])
}

// claim is the queue head's cmpxchg of the word before Linux 4.2, with CPUs
// queued behind it. It executes at the line: if a CPU swapped the tail since
// the head last saw the word, it fails and the head tries again with what it
// returned; else the head holds the lock, the word showing it at once.
func (l *Spinlock) claim(c *cpu.Core) (cpu.Outcome, sim.Time) {
	id := c.ID
	done, ok := l.rmw(c, l.Line, l.Acquire, true)
	if !ok {
		return cpu.Again, done
	}
	if l.seenTail[id] != l.tailSwaps {
		l.seenTail[id] = l.tailSwaps
		l.Stats.Retries++
		return l.claim(c)
	}
	l.queue = l.queue[1:]
	l.wordLocked = true
	l.take(c, true)
	l.phase[id] = headHanding
	return cpu.Again, done
}

// handOver writes the successor's node once the successor has linked in
// behind c: granting it the lock (MCS) or the head of the queue (qspinlock).
// Until then c spins on its own node, which the successor's link writes.
func (l *Spinlock) handOver(c *cpu.Core, succ int) (cpu.Outcome, sim.Time) {
	id := c.ID
	// MCS hands over in unlock(), qspinlock's head in its slow path.
	label := l.Release
	if l.Kind == Qspinlock {
		label = l.Acquire
	}
	if now := c.Now(); l.linked[succ] && l.linkedAt[succ] > now {
		// The link store is on its way: the next pointer reads NULL
		// until it lands.
		l.phase[id] = awaitingLink
		c.Charge(label, cpu.Spin, l.linkedAt[succ]-now)
		return cpu.Again, l.linkedAt[succ]
	}
	if !l.linked[succ] {
		first := l.phase[id] != awaitingLink
		l.phase[id] = awaitingLink
		if first {
			return spinOn(c, l.node(id), c.Now(), label)
		}
		return spinOn(c, l.node(id), reload(c, l.node(id), label), label)
	}
	if l.phase[id] != handingOver {
		// Read the own node's next pointer, written by the successor
		// (qspinlock: after set_locked, as 4.2 to 4.4 do; later kernels
		// read and prefetchw it while still waiting on the word).
		l.phase[id] = handingOver
		return cpu.Again, c.Access(label, l.node(id), cacheline.Load)
	}
	l.phase[id] = outside
	l.granted[succ] = true
	done := c.Access(label, l.node(succ), cacheline.Store)
	l.grantedAt[succ] = c.StoresVisible()
	if l.Kind == MCS {
		l.queue = l.queue[1:]
		l.release(id)
		l.holder = succ
		return cpu.Next, done
	}
	return cpu.Next, l.leaveQueue(c)
}

// leaveQueue ends a qspinlock slow path that queued:
// __this_cpu_dec(mcs_nodes[0].count), a store to the CPU's own node, which
// takes the node back from the successor that linked into it.
func (l *Spinlock) leaveQueue(c *cpu.Core) sim.Time {
	return c.Access(l.Acquire, l.node(c.ID), cacheline.Store)
}

// lockTAS retries an atomic exchange until it finds the lock free.
func (l *Spinlock) lockTAS(c *cpu.Core) (cpu.Outcome, sim.Time) {
	id := c.ID
	// A retry is spinning, not work.
	done, ok := l.rmw(c, l.Line, l.Acquire, l.phase[id] != outside)
	if !ok {
		return cpu.Again, done
	}
	if l.holder < 0 {
		l.take(c, l.phase[id] != outside)
		return cpu.Next, done
	}
	if l.phase[id] == outside {
		if !l.w.wait(c, l) {
			return cpu.Block, 0
		}
		l.phase[id] = tasRetrying
	}
	return cpu.Again, done
}

// lockTTAS reads the lock word while it is held and tries the exchange
// only when it reads free.
func (l *Spinlock) lockTTAS(c *cpu.Core) (cpu.Outcome, sim.Time) {
	id := c.ID
	spinning := l.phase[id] == ttasSpinning
	if spinning && !l.inflight[id] {
		done, ok := l.read(c, l.Acquire)
		if !ok {
			return cpu.Again, done
		}
		if l.holder >= 0 {
			return spinOn(c, l.Line, done, l.Acquire)
		}
	}
	done, ok := l.rmw(c, l.Line, l.Acquire, false)
	if !ok {
		return cpu.Again, done
	}
	if l.holder < 0 {
		l.take(c, spinning)
		return cpu.Next, done
	}
	if !spinning {
		if !l.w.wait(c, l) {
			return cpu.Block, 0
		}
		l.phase[id] = ttasSpinning
	}
	return spinOn(c, l.Line, done, l.Acquire)
}

// UnlockStep is spin_unlock().
type UnlockStep struct{ L *Spinlock }

// StoreLine implements cpu.Storer: every unlock but MCS's is a store to the
// lock word.
func (s *UnlockStep) StoreLine() *cacheline.Line {
	if s.L.Kind == MCS {
		return nil
	}
	return s.L.Line
}

// Exec implements cpu.Step.
func (s *UnlockStep) Exec(c *cpu.Core) (cpu.Outcome, sim.Time) {
	l, id := s.L, c.ID
	if l.holder != id && l.phase[id] == outside {
		c.Fail(fmt.Sprintf("spin_unlock(%s) by a CPU that does not hold it; pair every unlock with a lock before it", l.Name))
		return cpu.Block, 0
	}
	if l.Kind == MCS && len(l.queue) > 0 && !l.inflight[id] {
		return l.handOver(c, l.queue[0])
	}
	var done sim.Time
	if l.Kind == MCS {
		// cmpxchg the tail back to empty; if a CPU queued before it
		// executed, the cmpxchg fails and the lock goes to that CPU.
		var ok bool
		if done, ok = l.rmw(c, l.Line, l.Release, false); !ok {
			return cpu.Again, done
		}
		if len(l.queue) > 0 {
			return l.handOver(c, l.queue[0])
		}
		l.phase[id] = outside
		l.release(id)
		return cpu.Next, done
	}
	// The unlock is a store: the lock is free where the store lands, and
	// the spinners that read the word before then look again.
	done = c.Access(l.Release, l.Line, cacheline.Store)
	l.phase[id] = outside
	l.w.percpu[id].spinHeld--
	ev := &l.unlocks[id]
	if ev.Action == nil {
		ev.Action = sim.ActionFunc(func(at sim.Time) { l.unlocked(id, at) })
	}
	l.unlocking[id] = true
	c.M.Schedule(ev, max(c.LastStoreLands(), c.Now()))
	return cpu.Next, done
}

// unlocked frees the lock when an unlock store lands.
func (l *Spinlock) unlocked(id int, at sim.Time) {
	l.unlocking[id] = false
	if l.Kind == Ticket {
		l.serving++
	}
	l.holder, l.wordLocked = -1, false
	l.w.M.Poke(l.Line, at)
}

// setLocked shows qspinlock's word locked, and its pending bit clear, where
// c's store that takes the lock lands. No other CPU can take the lock
// meanwhile: the word shows the tail of a queue or the pending bit until
// then, a fast path's cmpxchg needs all three clear, and the successor c
// makes the queue's head sees that grant only once this store has landed
// (awaitGrant).
func (l *Spinlock) setLocked(c *cpu.Core) {
	ev := &l.sets[c.ID]
	if ev.Action == nil {
		ev.Action = sim.ActionFunc(func(at sim.Time) {
			l.wordLocked, l.wordPending = true, false
			l.w.M.Poke(l.Line, at)
		})
	}
	c.M.Schedule(ev, max(c.LastStoreLands(), c.Now()))
}

func (l *Spinlock) release(id int) {
	l.holder = -1
	l.w.percpu[id].spinHeld--
}
