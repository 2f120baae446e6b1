package models

// The rw_semaphore, kernel/locking/rwsem.c as Linux 5.11 on has it (the
// count scheme of 64489e78004c: a writer bit, a waiters bit, the readers
// from bit 8; reader optimistic spinning removed by 617f3ef95177).
// down_read() is one atomic add of RWSEM_READER_BIAS on sem->count
// (__down_read's atomic_long_fetch_add_acquire) and, when it finds no
// writer and no waiter, rwsem_set_reader_owned()'s store to sem->owner on
// the same line; otherwise rwsem_down_read_slowpath takes the bias back
// (another atomic), queues on the wait list and sleeps until an unlocker
// grants it the lock. down_write() is a cmpxchg of the count from 0 to
// RWSEM_WRITER_LOCKED, then rwsem_set_owner()'s store; failing that,
// rwsem_down_write_slowpath spins optimistically (rwsem_optimistic_spin)
// while a writer owns the lock and runs, retrying the cmpxchg each time the
// line changes, and queues and sleeps once readers own it or others wait.
// up_read() and up_write() are an atomic on the count (up_write after
// rwsem_clear_owner()'s store); the one that leaves the lock free with
// waiters queued wakes them (rwsem_wake, rwsem_mark_wake): the first
// waiter if it is a writer, which is handed the lock, else every queued
// reader (up to MAX_READERS_WAKEUP), each granted its read lock; a woken
// task runs after the profile's wake-up latency.
//
// A writer spins only once it holds the rwsem's OSQ (osq_lock,
// kernel/locking/osq_lock.c): an MCS queue whose tail is on the count's
// line, so one spinner at a time spins on the owner while the others spin
// each on its own node; the head lets the OSQ go (osq_unlock) once it has
// the lock, or before it sleeps. The OSQ is the MCS lock of mcs.go on the
// rwsem's line, "NAME/osq". Without it, every spinning writer re-read the
// line at each change: on commit 64489e78004c's IvyBridge-EX table 42-76%
// too slow from 8 writers on, the line's home busy all the time.
//
// Not modelled: osq_lock's unqueueing on need_resched; a writer's
// time-bounded spin on a reader-owned lock (rwsem_rspin_threshold, 10-25
// us: here it queues at once); reader lock stealing past queued waiters;
// the handoff bit (a woken writer is always handed the lock, as after
// RWSEM_WAIT_TIMEOUT); wait_lock's cost.
//
// Phases: rwsemOutside -> (fast path won) rwsemOwnerStore -> held;
// writers: rwsemSpinning (a writer owns it) -> rwsemOutside (retry) or
// asleep on the wait list -> held when woken.

import (
	"fmt"

	"contend/cacheline"
	"contend/cpu"
	"contend/sim"
)

// MaxReadersWakeup is MAX_READERS_WAKEUP: the most readers one wake grants.
const MaxReadersWakeup = 0x100

type rwsemPhase uint8

const (
	rwsemOutside    rwsemPhase = iota
	rwsemOwnerStore            // the count's atomic won: the owner store next
	rwsemSpinning              // a writer spins while a running writer owns the lock
	rwsemQueued                // the slow path's atomic on the count issued: then sleep
	rwsemOSQLock               // a writer takes the OSQ before it spins
	rwsemTry                   // the OSQ's head tries the cmpxchg (rwsem_try_write_lock_unqueued)
	rwsemOSQUnlock             // the head took the lock: osq_unlock, then down_write returns
	rwsemOSQLeave              // the head cannot spin on: osq_unlock, then it sleeps
	rwsemSleep                 // the OSQ let go: queue and sleep
)

// RWSem is a rw_semaphore: its count and owner on one line.
type RWSem struct {
	w       *World
	Name    string
	Line    *cacheline.Line
	Read    cpu.Label
	Write   cpu.Label
	writer  int
	readers []int // read holds by CPU
	nread   int
	waiters []rwsemWaiter
	phase   []rwsemPhase
	held    []int
	osq     *Spinlock // sem->osq, on Line: a CPU holds it while it spins on the owner
	// kind is how results name it: "rw_semaphore", or "mutex" for a
	// Mutex's writer-only rwsem, whose owner is the word its cmpxchg
	// writes (ownerInWord: no owner store after it, none before the
	// unlock's atomic).
	kind        string
	ownerInWord bool
	// lockOp and unlockOp name the writer's calls in its faults:
	// down_write and up_write, or mutex_lock and mutex_unlock.
	lockOp, unlockOp string
	Stats            RWSemStats
}

type rwsemWaiter struct {
	c     *cpu.Core
	write bool
}

// RWSemStats count what happened to a rw_semaphore in the measured
// interval.
type RWSemStats struct {
	LockStats
	Spun  uint64 // writers that took the lock by optimistic spinning
	Slept uint64 // tasks that queued and slept
}

// NewRWSemOn adds a rw_semaphore whose count and owner live on line.
func (w *World) NewRWSemOn(line *cacheline.Line, name, read, write string) *RWSem {
	n := w.M.NumCPUs()
	s := &RWSem{w: w, Name: name, Line: line, Read: w.M.Label(read), Write: w.M.Label(write),
		writer: -1, readers: make([]int, n), phase: make([]rwsemPhase, n), kind: "rw_semaphore",
		lockOp: "down_write", unlockOp: "up_write"}
	w.locks = append(w.locks, s)
	s.osq = w.NewSpinlockOn(line, name+"/osq", MCS, "osq_lock", "osq_unlock")
	return s
}

func (s *RWSem) name() string { return s.Name }

func (s *RWSem) holders() []int {
	s.held = s.held[:0]
	if s.writer >= 0 {
		return append(s.held, s.writer)
	}
	for c, n := range s.readers {
		if n > 0 {
			s.held = append(s.held, c)
		}
	}
	return s.held
}

// take makes c a holder, for reading or writing.
func (s *RWSem) take(c *cpu.Core, write bool) {
	if write {
		s.writer = c.ID
	} else {
		s.readers[c.ID]++
		s.nread++
	}
	s.Stats.Acquisitions++
	st := &s.w.percpu[c.ID]
	if s.w.waiting(c.ID) {
		s.Stats.Contended++
		s.Stats.Waited += max(c.Now()-st.waitSince, 0)
	}
	st.mutexHeld++
	st.waitFor = nil
}

// queue puts c on the wait list and sleeps it from the slow path's atomic.
func (s *RWSem) queue(c *cpu.Core, write bool, label cpu.Label) (cpu.Outcome, sim.Time) {
	if !s.w.wait(c, s) {
		return cpu.Block, 0
	}
	s.waiters = append(s.waiters, rwsemWaiter{c: c, write: write})
	s.Stats.Slept++
	s.phase[c.ID] = rwsemQueued
	done := c.Access(label, s.Line, cacheline.RMW) // the bias taken back, RWSEM_FLAG_WAITERS set
	s.w.sleep(c, done, label)
	return cpu.Block, 0
}

// wake is rwsem_wake at done: the first waiter if it is a writer, else
// every queued reader, granted the lock and woken.
func (s *RWSem) wake(done sim.Time) {
	at := done + s.w.M.Profile().Wakeup
	if s.waiters[0].write {
		next := s.waiters[0].c
		s.waiters = s.waiters[1:]
		s.phase[next.ID] = rwsemOutside
		s.take(next, true)
		next.Wake(at, cpu.Next)
		return
	}
	kept := s.waiters[:0]
	granted := 0
	for _, wt := range s.waiters {
		if wt.write || granted == MaxReadersWakeup {
			kept = append(kept, wt)
			continue
		}
		granted++
		s.phase[wt.c.ID] = rwsemOutside
		s.take(wt.c, false)
		wt.c.Wake(at, cpu.Next)
	}
	s.waiters = kept
}

// ownerStore finishes a fast path: rwsem_set_owner or
// rwsem_set_reader_owned, a store to sem->owner on the count's line.
func (s *RWSem) ownerStore(c *cpu.Core, label cpu.Label) (cpu.Outcome, sim.Time) {
	s.phase[c.ID] = rwsemOutside
	return cpu.Next, c.Access(label, s.Line, cacheline.Store)
}

// DownReadStep is down_read().
type DownReadStep struct{ S *RWSem }

// Exec implements cpu.Step.
func (st *DownReadStep) Exec(c *cpu.Core) (cpu.Outcome, sim.Time) {
	s, id := st.S, c.ID
	if s.phase[id] == rwsemOwnerStore {
		return s.ownerStore(c, s.Read)
	}
	if s.writer == id {
		c.Fail(fmt.Sprintf("deadlock: down_read(%s) while this task holds it for writing", s.Name))
		return cpu.Block, 0
	}
	if !s.w.mayBlock(c, "down_read("+s.Name+")") {
		return cpu.Block, 0
	}
	done := c.Access(s.Read, s.Line, cacheline.RMW)
	if s.writer < 0 && len(s.waiters) == 0 {
		s.take(c, false)
		s.phase[id] = rwsemOwnerStore
		return cpu.Again, done
	}
	return s.queue(c, false, s.Read)
}

// UpReadStep is up_read().
type UpReadStep struct{ S *RWSem }

// Exec implements cpu.Step.
func (st *UpReadStep) Exec(c *cpu.Core) (cpu.Outcome, sim.Time) {
	s, id := st.S, c.ID
	if s.readers[id] == 0 {
		c.Fail(fmt.Sprintf("up_read(%s) by a task that does not hold it for reading; pair every up_read with a down_read", s.Name))
		return cpu.Block, 0
	}
	done := c.Access(s.Read, s.Line, cacheline.RMW)
	s.readers[id]--
	s.nread--
	s.w.percpu[id].mutexHeld--
	if s.nread == 0 && s.writer < 0 && len(s.waiters) > 0 {
		s.wake(done)
	}
	return cpu.Next, done
}

// DownWriteStep is down_write().
type DownWriteStep struct{ S *RWSem }

// Exec implements cpu.Step.
func (st *DownWriteStep) Exec(c *cpu.Core) (cpu.Outcome, sim.Time) {
	s, id := st.S, c.ID
	switch s.phase[id] {
	case rwsemOwnerStore:
		out, at := s.ownerStore(c, s.Write)
		if s.osq.holder == id {
			s.phase[id] = rwsemOSQUnlock
			return cpu.Again, at
		}
		return out, at
	case rwsemOSQLock, rwsemOSQUnlock, rwsemOSQLeave, rwsemSleep, rwsemTry:
		return s.optimisticSpin(c)
	case rwsemSpinning: // the line changed: look at the owner again
		done := reload(c, s.Line, s.Write)
		switch {
		case s.writer >= 0 && len(s.waiters) == 0:
			return spinOn(c, s.Line, done, s.Write)
		case s.writer >= 0 || s.nread > 0 || len(s.waiters) > 0:
			s.phase[id] = rwsemOSQLeave
		default:
			s.phase[id] = rwsemTry // free: try the cmpxchg again
		}
		return cpu.Again, done
	}
	if s.writer == id || s.readers[id] > 0 {
		c.Fail(fmt.Sprintf("deadlock: %s(%s) while this task already holds it", s.lockOp, s.Name))
		return cpu.Block, 0
	}
	if !s.w.mayBlock(c, s.lockOp+"("+s.Name+")") {
		return cpu.Block, 0
	}
	spinning := s.w.waiting(id)
	label := s.Write
	done := c.Access(label, s.Line, cacheline.RMW)
	if s.writer < 0 && s.nread == 0 && len(s.waiters) == 0 {
		if spinning {
			s.Stats.Spun++
		}
		s.take(c, true)
		return s.taken(c, done)
	}
	if s.writer >= 0 && len(s.waiters) == 0 { // a writer owns it and runs: spin on the owner
		if !s.w.wait(c, s) {
			return cpu.Block, 0
		}
		s.phase[id] = rwsemOSQLock
		return cpu.Again, done
	}
	return s.queue(c, true, label)
}

// taken finishes a writer's cmpxchg that won at done: the owner store
// next (rwsem_set_owner), unless the owner is the word the cmpxchg wrote (a
// mutex); then the OSQ, if held, is let go.
func (s *RWSem) taken(c *cpu.Core, done sim.Time) (cpu.Outcome, sim.Time) {
	id := c.ID
	switch {
	case !s.ownerInWord:
		s.phase[id] = rwsemOwnerStore
	case s.osq.holder == id:
		s.phase[id] = rwsemOSQUnlock
	default:
		s.phase[id] = rwsemOutside
		return cpu.Next, done
	}
	return cpu.Again, done
}

// optimisticSpin is rwsem_optimistic_spin's OSQ: taking it, the head's
// cmpxchg, and letting it go once the head has the lock or must sleep.
func (s *RWSem) optimisticSpin(c *cpu.Core) (cpu.Outcome, sim.Time) {
	id := c.ID
	switch s.phase[id] {
	case rwsemOSQLock:
		out, at := (&LockStep{L: s.osq}).Exec(c)
		if out != cpu.Next {
			return out, at
		}
		if !s.w.wait(c, s) { // now waiting for the rwsem itself
			return cpu.Block, 0
		}
		s.phase[id] = rwsemSpinning
		return cpu.Again, at
	case rwsemTry:
		done := c.Access(s.Write, s.Line, cacheline.RMW)
		switch {
		case s.writer < 0 && s.nread == 0 && len(s.waiters) == 0:
			s.Stats.Spun++
			s.take(c, true)
			return s.taken(c, done)
		case s.writer >= 0 && len(s.waiters) == 0: // another writer got there first
			s.phase[id] = rwsemSpinning
			return spinOn(c, s.Line, done, s.Write)
		}
		s.phase[id] = rwsemOSQLeave
		return cpu.Again, done
	case rwsemSleep:
		s.phase[id] = rwsemOutside
		return s.queue(c, true, s.Write)
	}
	out, at := (&UnlockStep{L: s.osq}).Exec(c)
	if out != cpu.Next {
		return out, at
	}
	if s.phase[id] == rwsemOSQLeave {
		s.phase[id] = rwsemSleep
		return cpu.Again, at
	}
	s.phase[id] = rwsemOutside
	return cpu.Next, at
}

// UpWriteStep is up_write().
type UpWriteStep struct{ S *RWSem }

// StoreLine implements cpu.Storer: up_write begins with rwsem_clear_owner's
// store (a mutex_unlock with its atomic).
func (st *UpWriteStep) StoreLine() *cacheline.Line {
	if st.S.ownerInWord {
		return nil
	}
	return st.S.Line
}

// Exec implements cpu.Step.
func (st *UpWriteStep) Exec(c *cpu.Core) (cpu.Outcome, sim.Time) {
	s, id := st.S, c.ID
	if s.writer != id {
		held := " for writing"
		if s.kind == "mutex" {
			held = ""
		}
		c.Fail(fmt.Sprintf("%s(%s) by a task that does not hold it%s; pair every %s with a %s", s.unlockOp, s.Name, held, s.unlockOp, s.lockOp))
		return cpu.Block, 0
	}
	if !s.ownerInWord {
		c.Access(s.Write, s.Line, cacheline.Store) // rwsem_clear_owner
	}
	done := c.Access(s.Write, s.Line, cacheline.RMW)
	s.writer = -1
	s.w.percpu[id].mutexHeld--
	if len(s.waiters) > 0 {
		s.wake(done)
	}
	return cpu.Next, done
}
