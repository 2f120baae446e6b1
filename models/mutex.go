package models

import (
	"contend/cacheline"
	"contend/cpu"
	"contend/sim"
)

// The sleeping mutex, kernel/locking/mutex.c: mutex_lock() is a cmpxchg of
// the owner word (__mutex_trylock_fast); a task that finds it owned by a
// running task spins on the owner through the mutex's OSQ
// (mutex_optimistic_spin, CONFIG_MUTEX_SPIN_ON_OWNER, on by default on
// SMP), taking it with a cmpxchg once it is free; one that finds waiters
// queued goes on the wait list in order and sleeps; mutex_unlock() is an
// atomic on the owner word that hands the mutex to the first waiter (as
// with MUTEX_FLAG_HANDOFF), which runs again after the profile's wake-up
// latency. That is the writer side of rwsem.go, where the owner is a word
// of its own: a mutex here is a writer-only rw_semaphore whose owner is
// the word its cmpxchg writes. Before optimistic spinning was modelled a
// contended mutex_lock always slept, a wake-up (5 µs) where the kernel
// spins for a hand-over.

// Mutex is a sleeping mutex with optimistic spinning on a running owner.
type Mutex struct {
	Name string
	sem  *RWSem
}

// NewMutex adds a mutex whose word is the line called name.
func (w *World) NewMutex(name, label string) (*Mutex, error) {
	line, err := w.M.NewLine(name, false)
	if err != nil {
		return nil, err
	}
	return w.NewMutexOn(line, name, label), nil
}

// NewMutexOn adds a mutex whose owner word lives on line, beside the data
// it protects (struct mutex inside the structure it guards).
func (w *World) NewMutexOn(line *cacheline.Line, name, label string) *Mutex {
	s := w.NewRWSemOn(line, name, label, label)
	s.kind, s.ownerInWord = "mutex", true
	s.lockOp, s.unlockOp = "mutex_lock", "mutex_unlock"
	return &Mutex{Name: name, sem: s}
}

// Stats counts what happened to the mutex in the measured interval.
func (m *Mutex) Stats() RWSemStats { return m.sem.Stats }

// MutexLockStep is mutex_lock(): down_write of the mutex's rwsem.
type MutexLockStep struct{ M *Mutex }

// Exec implements cpu.Step.
func (s *MutexLockStep) Exec(c *cpu.Core) (cpu.Outcome, sim.Time) {
	return (&DownWriteStep{S: s.M.sem}).Exec(c)
}

// MutexUnlockStep is mutex_unlock(): up_write of the mutex's rwsem.
type MutexUnlockStep struct{ M *Mutex }

// Exec implements cpu.Step.
func (s *MutexUnlockStep) Exec(c *cpu.Core) (cpu.Outcome, sim.Time) {
	return (&UpWriteStep{S: s.M.sem}).Exec(c)
}
