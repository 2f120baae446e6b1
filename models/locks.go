package models

import (
	"fmt"

	"contend/cacheline"
	"contend/cpu"
	"contend/sim"
)

// LockKind is a spinlock implementation.
type LockKind uint8

// Spinlock kinds.
const (
	Ticket     LockKind = iota // fetch-add a ticket, spin on the lock word
	MCS                        // queue of waiters, each spinning on its own line
	TestAndSet                 // retry an atomic exchange on the lock word
)

// Qspinlock is Linux's queued spinlock: its contended path is an MCS queue.
const Qspinlock = MCS

var lockKindNames = map[string]LockKind{
	"ticket": Ticket, "mcs": MCS, "qspinlock": MCS, "tas": TestAndSet, "test-and-set": TestAndSet,
}

// ParseLockKind maps a scenario's lock kind to a LockKind.
func ParseLockKind(s string) (LockKind, bool) {
	k, ok := lockKindNames[s]
	return k, ok
}

func (k LockKind) String() string {
	return [...]string{"ticket", "qspinlock", "test-and-set"}[k]
}

// LockStats count what happened to a lock in the measured interval.
type LockStats struct {
	Acquisitions uint64
	Contended    uint64 // acquisitions that had to wait
}

// Spinlock is a spinlock on a cache line.
type Spinlock struct {
	w       *World
	Name    string
	Kind    LockKind
	Line    *cacheline.Line
	nodes   []*cacheline.Line // MCS: each CPU's queue node
	Acquire cpu.Label
	Release cpu.Label

	holder        int
	next, serving int64   // ticket lock
	queue         []int   // MCS waiters in order
	granted       []bool  // MCS: handed the lock
	ticket        []int64 // ticket held while waiting, by core
	phase         []uint8
	held          [1]int // holders' answer, reused: deadlock checks run on every contended wait
	Stats         LockStats
}

// NewSpinlock adds a spinlock whose word is the line called name.
func (w *World) NewSpinlock(name string, kind LockKind, acquire, release string) (*Spinlock, error) {
	line, err := w.M.Lines.NewLine(name, false)
	if err != nil {
		return nil, err
	}
	n := len(w.M.Cores)
	l := &Spinlock{
		w: w, Name: name, Kind: kind, Line: line,
		Acquire: w.M.Label(acquire), Release: w.M.Label(release),
		holder: -1, granted: make([]bool, n), ticket: make([]int64, n), phase: make([]uint8, n),
	}
	if kind == MCS {
		l.nodes = make([]*cacheline.Line, n)
	}
	w.locks = append(w.locks, l)
	return l, nil
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
		line, err := l.w.M.Lines.NewLine(fmt.Sprintf("%s/mcs_node.%d", l.Name, c), false)
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
	w.percpu[c.ID].waitFor = l
	w.percpu[c.ID].waitSince = c.Now()
	return true
}

// spinOn blocks c spinning on line from time from until the line is written.
// A core can only wait for a line it holds: a write by the line's owner is a
// hit that wakes nobody. If the line has already gone (an MCS successor's
// link store can take a queue node from under its owner), the step runs again
// at from and re-reads it, as a spinning core's next load would.
func spinOn(c *cpu.Core, line *cacheline.Line, from sim.Time, label cpu.Label) (cpu.Outcome, sim.Time) {
	if !line.Holds(c.ID) {
		return cpu.Again, from
	}
	c.M.Lines.Watch(line, c.ID, c)
	c.BlockFrom(from, label, cpu.Spin)
	return cpu.Block, 0
}

// reload re-reads a line after it was invalidated, charging the miss as spin.
func reload(c *cpu.Core, line *cacheline.Line, label cpu.Label) sim.Time {
	now := c.Now()
	r := c.M.Lines.Access(now, c.ID, line, cacheline.Load, 0)
	c.Charge(label, cpu.Spin, r.Done-now)
	return r.Done
}

// LockStep is spin_lock().
type LockStep struct{ L *Spinlock }

// Exec implements cpu.Step.
func (s *LockStep) Exec(c *cpu.Core) (cpu.Outcome, sim.Time) {
	l := s.L
	switch l.Kind {
	case Ticket:
		return l.lockTicket(c)
	case MCS:
		return l.lockMCS(c)
	}
	return l.lockTAS(c)
}

func (l *Spinlock) lockTicket(c *cpu.Core) (cpu.Outcome, sim.Time) {
	id := c.ID
	if l.phase[id] == 0 {
		if l.holder == id {
			c.Fail(fmt.Sprintf("deadlock: spin_lock(%s) while this CPU already holds it", l.Name))
			return cpu.Block, 0
		}
		done := c.Access(l.Acquire, l.Line, cacheline.RMW)
		my := l.next
		l.next++
		if l.serving == my {
			l.take(c, false)
			return cpu.Next, done
		}
		if !l.w.wait(c, l) {
			return cpu.Block, 0
		}
		l.ticket[id], l.phase[id] = my, 1
		return spinOn(c, l.Line, done, l.Acquire)
	}
	done := reload(c, l.Line, l.Acquire)
	if l.serving == l.ticket[id] {
		l.phase[id] = 0
		l.take(c, true)
		return cpu.Next, done
	}
	return spinOn(c, l.Line, done, l.Acquire)
}

// MCS phases: 0 initialise own node, 1 exchange the tail, 2 link behind the
// predecessor, 3 spin on own node.
func (l *Spinlock) lockMCS(c *cpu.Core) (cpu.Outcome, sim.Time) {
	id := c.ID
	switch l.phase[id] {
	case 0:
		if l.holder == id {
			c.Fail(fmt.Sprintf("deadlock: spin_lock(%s) while this CPU already holds it", l.Name))
			return cpu.Block, 0
		}
		l.phase[id] = 1
		return cpu.Again, c.Access(l.Acquire, l.node(id), cacheline.Store)
	case 1:
		done := c.Access(l.Acquire, l.Line, cacheline.RMW)
		if l.holder < 0 && len(l.queue) == 0 {
			l.phase[id] = 0
			l.take(c, false)
			return cpu.Next, done
		}
		if !l.w.wait(c, l) {
			return cpu.Block, 0
		}
		pred := l.holder
		if len(l.queue) > 0 {
			pred = l.queue[len(l.queue)-1]
		}
		l.queue = append(l.queue, id)
		l.ticket[id] = int64(pred)
		l.phase[id] = 2
		return cpu.Again, done
	case 2:
		done := c.Access(l.Acquire, l.node(int(l.ticket[id])), cacheline.Store)
		l.phase[id] = 3
		if l.granted[id] {
			return l.grantedMCS(c, done)
		}
		return spinOn(c, l.node(id), done, l.Acquire)
	}
	done := reload(c, l.node(id), l.Acquire)
	if l.granted[id] {
		return l.grantedMCS(c, done)
	}
	return spinOn(c, l.node(id), done, l.Acquire)
}

func (l *Spinlock) grantedMCS(c *cpu.Core, done sim.Time) (cpu.Outcome, sim.Time) {
	l.granted[c.ID], l.phase[c.ID] = false, 0
	l.w.acquired(c, &l.Stats, true)
	return cpu.Next, done
}

func (l *Spinlock) lockTAS(c *cpu.Core) (cpu.Outcome, sim.Time) {
	id := c.ID
	if l.holder == id {
		c.Fail(fmt.Sprintf("deadlock: spin_lock(%s) while this CPU already holds it", l.Name))
		return cpu.Block, 0
	}
	first := l.phase[id] == 0
	var done sim.Time
	if first {
		done = c.Access(l.Acquire, l.Line, cacheline.RMW)
	} else {
		// A retry is spinning, not work.
		now, atomic := c.Now(), c.M.Prof.Atomic
		r := c.M.Lines.Access(now, id, l.Line, cacheline.RMW, atomic)
		done = r.Done + atomic
		c.Charge(l.Acquire, cpu.Spin, done-now)
	}
	if l.holder < 0 {
		l.phase[id] = 0
		l.take(c, !first)
		return cpu.Next, done
	}
	if first {
		if !l.w.wait(c, l) {
			return cpu.Block, 0
		}
		l.phase[id] = 1
	}
	return cpu.Again, done
}

// UnlockStep is spin_unlock().
type UnlockStep struct{ L *Spinlock }

// Exec implements cpu.Step.
func (s *UnlockStep) Exec(c *cpu.Core) (cpu.Outcome, sim.Time) {
	l, id := s.L, c.ID
	if l.holder != id && l.phase[id] == 0 {
		c.Fail(fmt.Sprintf("spin_unlock(%s) by a CPU that does not hold it; pair every unlock with a lock before it", l.Name))
		return cpu.Block, 0
	}
	if l.Kind == MCS && len(l.queue) > 0 {
		// Read our node's next pointer (written by the successor), then hand
		// the lock over by writing the successor's node.
		if l.phase[id] == 0 {
			l.phase[id] = 10
			return cpu.Again, c.Access(l.Release, l.node(id), cacheline.Load)
		}
		l.phase[id] = 0
		succ := l.queue[0]
		l.queue = l.queue[1:]
		l.release(id)
		l.holder = succ
		l.granted[succ] = true
		return cpu.Next, c.Access(l.Release, l.node(succ), cacheline.Store)
	}
	l.phase[id] = 0
	op := cacheline.Store
	if l.Kind == MCS {
		op = cacheline.RMW // cmpxchg the tail back to empty
	}
	done := c.Access(l.Release, l.Line, op)
	if l.Kind == Ticket {
		l.serving++
	}
	l.release(id)
	return cpu.Next, done
}

func (l *Spinlock) release(id int) {
	l.holder = -1
	l.w.percpu[id].spinHeld--
}
