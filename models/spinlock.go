package models

import (
	"fmt"

	"contend/cacheline"
	"contend/cpu"
	"contend/sim"
)

// LockKind is a spinlock implementation.
type LockKind uint8

// Spinlock kinds, as Linux has had them; each is a type of its own in a
// file of its own (ticket.go, mcs.go, tas.go, ttas.go, qspinlock.go,
// cna.go), registered in spinlockKinds.
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
	// CNA is the compact NUMA-aware qspinlock (Dice and Kogan; Alex Kogan's
	// series, v11): a qspinlock whose queue head hands the lock on to a
	// waiter of its own NUMA node, moving remote waiters to a secondary
	// queue that goes first once its oldest waiter has waited 10 ms.
	CNA
)

// spinlockKind is one registered spinlock algorithm.
type spinlockKind struct {
	names []string // as scenario files write it; the first is its name in results
	new   func(*Spinlock) spinAlgorithm
}

// spinlockKinds registers every spinlock algorithm, one line each.
var spinlockKinds = [...]spinlockKind{
	Ticket:            {[]string{"ticket"}, newTicket},
	MCS:               {[]string{"mcs"}, newMCSLock},
	TestAndSet:        {[]string{"test-and-set", "tas"}, newTAS},
	TestAndTestAndSet: {[]string{"test-and-test-and-set", "ttas"}, newTTAS},
	Qspinlock:         {[]string{"qspinlock"}, newQspinlock},
	CNA:               {[]string{"cna"}, newCNA},
}

// ParseLockKind maps a scenario's lock kind to a LockKind.
func ParseLockKind(s string) (LockKind, bool) {
	for k, kind := range spinlockKinds {
		for _, name := range kind.names {
			if name == s {
				return LockKind(k), true
			}
		}
	}
	return 0, false
}

func (k LockKind) String() string { return spinlockKinds[k].names[0] }

// spinAlgorithm is one spinlock implementation: the state of its lock word
// and queue, driven by spin_lock() and spin_unlock() (LockStep and
// UnlockStep). Each call runs the caller's next piece of the operation, from
// the phase it is in (Spinlock.phase), and returns what cpu.Step.Exec
// returns: cpu.Next once the CPU holds (lock) or has let go of (unlock) the
// lock, cpu.Again with the time to go on at, or cpu.Block while it spins.
type spinAlgorithm interface {
	lock(c *cpu.Core) (cpu.Outcome, sim.Time)
	unlock(c *cpu.Core) (cpu.Outcome, sim.Time)
	// unlockStores reports whether spin_unlock() begins with a plain
	// store to the lock word (cpu.Storer), as every kind's but MCS's does.
	unlockStores() bool
}

// LockStats count what happened to a lock in the measured interval.
type LockStats struct {
	Acquisitions uint64
	Contended    uint64 // acquisitions that had to wait
	Retries      uint64 // atomics that failed and went round again (a qspinlock head's cmpxchg claim)
	// Waited is the time the contended acquisitions waited, from the
	// first try that found the lock taken to holding it: lock_stat's
	// waittime-total.
	Waited sim.Time
}

// Spinlock is a spinlock on a cache line: what every kind shares (the lock
// word's line, its labels, its holder, where each CPU is in lock() and
// unlock(), the atomics and reads in flight) around the algorithm of its
// Kind.
type Spinlock struct {
	w       *World
	Name    string
	Kind    LockKind
	Line    *cacheline.Line // the lock word, alone or beside the data it protects
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
	// PrefetchNext makes a qspinlock's (or CNA's) new queue head read its
	// node's next pointer and prefetchw() the successor's node while it
	// waits on the word, as Linux does since 4.5 (81b5598665a2), and hand
	// over without reading the pointer again (aa68744f80bf). New locks of
	// those kinds have it.
	PrefetchNext bool

	algo      spinAlgorithm
	holder    int
	phase     phaseTable  // by CPU; each algorithm names its own phases
	inflight  []bool      // an atomic issued by this CPU has not executed yet
	reading   []bool      // a read of the word issued by this CPU has not been served yet
	unlocks   []sim.Event // each CPU's unlock store, taking effect where it lands
	unlocking []bool      // that store has not landed yet
	landing   int         // how many unlocking are true
	freed     func()      // what the algorithm's word shows once an unlock store lands
	held      [1]int      // holders' answer, reused: deadlock checks run on every contended wait
	// changes counts the lock's takes and releases: a cmpxchg on a word
	// that holds the lock (a lockref's) fails when it moved since the read.
	changes uint64
	Stats   LockStats
}

// lockPhase is where a CPU is in lock() or unlock() of one spinlock. Every
// algorithm starts from outside and numbers its own phases after it.
type lockPhase uint8

const outside lockPhase = 0 // not in lock() or unlock()

// phaseTable is each CPU's phase of one lock, and how many CPUs are in
// lock() or unlock(): every cmpxchg of a lockref asks whether the word
// reads unlocked, which must not cost a look at every CPU.
type phaseTable struct {
	p    []lockPhase
	busy int // CPUs whose phase is not outside
}

// set puts CPU id in phase p.
func (t *phaseTable) set(id int, p lockPhase) {
	switch was := t.p[id]; {
	case was == outside && p != outside:
		t.busy++
	case was != outside && p == outside:
		t.busy--
	}
	t.p[id] = p
}

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
		holder: -1, phase: phaseTable{p: make([]lockPhase, n)}, inflight: make([]bool, n), reading: make([]bool, n),
		unlocks: make([]sim.Event, n), unlocking: make([]bool, n),
		PrefetchNext: kind == Qspinlock || kind == CNA,
	}
	l.algo = spinlockKinds[kind].new(l)
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

// take makes c the holder.
func (l *Spinlock) take(c *cpu.Core, contended bool) {
	if l.holder >= 0 {
		panic(fmt.Sprintf("models: %s: cpu %d acquires while cpu %d holds it", l.Name, c.ID, l.holder))
	}
	l.holder = c.ID
	l.changes++
	l.phase.set(c.ID, outside)
	l.w.acquired(c, &l.Stats, contended)
}

// unlockedWord reports whether the lock word reads as arch_spin_value_unlocked
// finds it: no holder, no unlock store still on its way, no waiter queued or
// pending in it.
func (l *Spinlock) unlockedWord() bool {
	unlocked := l.holder < 0 && l.phase.busy == 0 && l.landing == 0
	if checkCounts && unlocked != l.scanUnlocked() {
		panic(fmt.Sprintf("models: %s: the counts of CPUs in lock() (%d) and of unlock stores on their way (%d) disagree with their tables", l.Name, l.phase.busy, l.landing))
	}
	return unlocked
}

// checkCounts makes unlockedWord check its counts against a look at every
// CPU (the package's tests set it).
var checkCounts = false

// scanUnlocked is unlockedWord by a look at every CPU.
func (l *Spinlock) scanUnlocked() bool {
	if l.holder >= 0 {
		return false
	}
	for id, p := range l.phase.p {
		if p != outside || l.unlocking[id] {
			return false
		}
	}
	return true
}

// release ends id's hold without a store that lands later (MCS).
func (l *Spinlock) release(id int) {
	l.holder = -1
	l.changes++
	l.w.percpu[id].spinHeld--
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

// unlockStore is spin_unlock() as a plain store to the lock word: the lock
// is free where the store lands, and the spinners that read the word before
// then look again.
func (l *Spinlock) unlockStore(c *cpu.Core) (cpu.Outcome, sim.Time) {
	id := c.ID
	done := c.Access(l.Release, l.Line, cacheline.Store)
	l.phase.set(id, outside)
	l.w.percpu[id].spinHeld--
	ev := &l.unlocks[id]
	if ev.Action == nil {
		ev.Action = sim.ActionFunc(func(at sim.Time) { l.unlocked(id, at) })
	}
	if !l.unlocking[id] {
		l.unlocking[id] = true
		l.landing++
	}
	c.M.Schedule(ev, max(c.LastStoreLands(), c.Now()))
	return cpu.Next, done
}

// unlocked frees the lock when an unlock store lands.
func (l *Spinlock) unlocked(id int, at sim.Time) {
	if l.unlocking[id] {
		l.unlocking[id] = false
		l.landing--
	}
	if l.freed != nil {
		l.freed()
	}
	l.holder = -1
	l.changes++
	l.w.M.Poke(l.Line, at)
}

// LockStep is spin_lock().
type LockStep struct{ L *Spinlock }

// Exec implements cpu.Step.
func (s *LockStep) Exec(c *cpu.Core) (cpu.Outcome, sim.Time) {
	l := s.L
	// A CPU whose own unlock has not landed yet is not relocking a lock it
	// holds: its atomic drains the store buffer first.
	if l.phase.p[c.ID] == outside && l.holder == c.ID && !l.unlocking[c.ID] {
		c.Fail(fmt.Sprintf("deadlock: spin_lock(%s) while this CPU already holds it", l.Name))
		return cpu.Block, 0
	}
	return l.algo.lock(c)
}

// UnlockStep is spin_unlock().
type UnlockStep struct{ L *Spinlock }

// StoreLine implements cpu.Storer: every unlock but MCS's is a store to the
// lock word.
func (s *UnlockStep) StoreLine() *cacheline.Line {
	if !s.L.algo.unlockStores() {
		return nil
	}
	return s.L.Line
}

// Exec implements cpu.Step.
func (s *UnlockStep) Exec(c *cpu.Core) (cpu.Outcome, sim.Time) {
	l, id := s.L, c.ID
	if l.holder != id && l.phase.p[id] == outside {
		c.Fail(fmt.Sprintf("spin_unlock(%s) by a CPU that does not hold it; pair every unlock with a lock before it", l.Name))
		return cpu.Block, 0
	}
	return l.algo.unlock(c)
}
