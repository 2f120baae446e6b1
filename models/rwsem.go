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
// Not modelled: the OSQ (an MCS queue) that lets one spinner at a time spin
// on the owner (here every spinning writer spins on the line); a writer's
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
	Stats   RWSemStats
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
		writer: -1, readers: make([]int, n), phase: make([]rwsemPhase, n)}
	w.locks = append(w.locks, s)
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
	if s.w.waiting(c.ID) {
		s.Stats.Contended++
	}
	st := &s.w.percpu[c.ID]
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
		return s.ownerStore(c, s.Write)
	case rwsemSpinning: // the line changed: look at the owner again
		done := reload(c, s.Line, s.Write)
		if s.writer >= 0 && len(s.waiters) == 0 {
			return spinOn(c, s.Line, done, s.Write)
		}
		s.phase[id] = rwsemOutside
		if s.writer >= 0 || s.nread > 0 || len(s.waiters) > 0 {
			return s.queue(c, true, s.Write)
		}
		return cpu.Again, done // free: try the cmpxchg again (rwsem_try_write_lock_unqueued)
	}
	if s.writer == id || s.readers[id] > 0 {
		c.Fail(fmt.Sprintf("deadlock: down_write(%s) while this task already holds it", s.Name))
		return cpu.Block, 0
	}
	if !s.w.mayBlock(c, "down_write("+s.Name+")") {
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
		s.phase[id] = rwsemOwnerStore
		return cpu.Again, done
	}
	if s.writer >= 0 && len(s.waiters) == 0 { // a writer owns it and runs: spin on the owner
		if !s.w.wait(c, s) {
			return cpu.Block, 0
		}
		s.phase[id] = rwsemSpinning
		return spinOn(c, s.Line, done, label)
	}
	return s.queue(c, true, label)
}

// UpWriteStep is up_write().
type UpWriteStep struct{ S *RWSem }

// StoreLine implements cpu.Storer: up_write begins with rwsem_clear_owner's
// store.
func (st *UpWriteStep) StoreLine() *cacheline.Line { return st.S.Line }

// Exec implements cpu.Step.
func (st *UpWriteStep) Exec(c *cpu.Core) (cpu.Outcome, sim.Time) {
	s, id := st.S, c.ID
	if s.writer != id {
		c.Fail(fmt.Sprintf("up_write(%s) by a task that does not hold it for writing; pair every up_write with a down_write", s.Name))
		return cpu.Block, 0
	}
	c.Access(s.Write, s.Line, cacheline.Store) // rwsem_clear_owner
	done := c.Access(s.Write, s.Line, cacheline.RMW)
	s.writer = -1
	s.w.percpu[id].mutexHeld--
	if len(s.waiters) > 0 {
		s.wake(done)
	}
	return cpu.Next, done
}
