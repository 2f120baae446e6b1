package models

import (
	"fmt"

	"contend/cacheline"
	"contend/cpu"
	"contend/sim"
)

// The sleeping mutex, kernel/locking/mutex.c reduced to its wait list:
// mutex_lock() is an atomic on the owner word (__mutex_trylock_fast's
// cmpxchg); a task that finds it owned goes on the wait list in order and
// sleeps (__mutex_lock_slowpath without optimistic spinning on the owner);
// mutex_unlock() hands the mutex to the first waiter (as with
// MUTEX_FLAG_HANDOFF), which runs again after the profile's wake-up
// latency.

// Mutex is a sleeping mutex: a waiter blocks off-CPU and is woken by the
// unlock, paying the profile's wake-up latency.
type Mutex struct {
	w       *World
	Name    string
	Line    *cacheline.Line
	Label   cpu.Label
	holder  int
	waiters []*cpu.Core
	held    [1]int // holders' answer, reused
	Stats   LockStats
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
	m := &Mutex{w: w, Name: name, Line: line, Label: w.M.Label(label), holder: -1}
	w.locks = append(w.locks, m)
	return m
}

func (m *Mutex) name() string { return m.Name }

func (m *Mutex) holders() []int {
	if m.holder < 0 {
		return nil
	}
	m.held[0] = m.holder
	return m.held[:]
}

// MutexLockStep is mutex_lock().
type MutexLockStep struct{ M *Mutex }

// Exec implements cpu.Step.
func (s *MutexLockStep) Exec(c *cpu.Core) (cpu.Outcome, sim.Time) {
	m, w := s.M, s.M.w
	if m.holder == c.ID {
		c.Fail(fmt.Sprintf("deadlock: mutex_lock(%s) while this task already holds it", m.Name))
		return cpu.Block, 0
	}
	if !w.mayBlock(c, "mutex_lock("+m.Name+")") {
		return cpu.Block, 0
	}
	done := c.Access(m.Label, m.Line, cacheline.RMW)
	m.Stats.Acquisitions++
	if m.holder < 0 {
		m.holder = c.ID
		w.percpu[c.ID].mutexHeld++
		return cpu.Next, done
	}
	if !w.wait(c, m) {
		return cpu.Block, 0
	}
	m.Stats.Contended++
	m.waiters = append(m.waiters, c)
	w.sleep(c, done, m.Label)
	return cpu.Block, 0
}

// MutexUnlockStep is mutex_unlock().
type MutexUnlockStep struct{ M *Mutex }

// Exec implements cpu.Step.
func (s *MutexUnlockStep) Exec(c *cpu.Core) (cpu.Outcome, sim.Time) {
	m, w := s.M, s.M.w
	if m.holder != c.ID {
		c.Fail(fmt.Sprintf("mutex_unlock(%s) by a task that does not hold it; pair every unlock with a lock", m.Name))
		return cpu.Block, 0
	}
	done := c.Access(m.Label, m.Line, cacheline.RMW)
	w.percpu[c.ID].mutexHeld--
	m.holder = -1
	if len(m.waiters) > 0 {
		next := m.waiters[0]
		m.waiters = m.waiters[1:]
		m.holder = next.ID
		w.percpu[next.ID].mutexHeld++
		w.percpu[next.ID].waitFor = nil
		next.Wake(done+w.M.Profile().Wakeup, cpu.Next)
	}
	return cpu.Next, done
}
