package models

// The reader-writer spinlock (rwlock_t) in the outline of kernel/locking/
// qrwlock.c: read_lock() adds a reader to the count on the lock word with
// an atomic (queued_read_lock's atomic_add_return), so even readers that
// never wait for each other bounce the line; a reader that finds a writer
// holding or waiting spins on the word until both are gone, then tries
// again; write_lock() is an atomic that takes the word when no reader or
// writer holds it, and else marks a writer waiting and spins until the
// readers have left. Unlike qrwlock there is no wait_lock queueing the
// slow paths, and readers wait for a waiting writer as process-context
// readers do (qrwlock lets in_interrupt() readers pass it).
//
// Phases: readerWaiting -> (re-read free) rwOutside -> (atomic) held;
// writerWaiting -> (re-read free) writerRetrying -> (atomic) held.

import (
	"fmt"

	"contend/cacheline"
	"contend/cpu"
	"contend/sim"
)

// RWLock is a reader-writer spinlock (rwlock_t): readers add to a count on
// the lock's line with an atomic, so even readers that never wait for each
// other bounce the line; a writer waits for the count to reach zero, and
// readers wait while a writer holds or waits for the lock.
type RWLock struct {
	w       *World
	Name    string
	Line    *cacheline.Line
	Read    cpu.Label
	Write   cpu.Label
	readers []int // read holds by core
	nread   int
	writer  int
	waiting int // writers waiting
	phase   []rwPhase
	held    []int // holders' answer, reused
	Stats   LockStats
}

// rwPhase is where a CPU is in read_lock() or write_lock().
type rwPhase uint8

const (
	rwOutside      rwPhase = iota // not waiting
	readerWaiting                 // a reader found a writer holding or waiting: spins on the word
	writerWaiting                 // a writer waits for the holders to leave: spins on the word
	writerRetrying                // the word read free: the writer tries its atomic again
)

// NewRWLock adds an rwlock whose word is the line called name.
func (w *World) NewRWLock(name, read, write string) (*RWLock, error) {
	line, err := w.M.NewLine(name, false)
	if err != nil {
		return nil, err
	}
	return w.NewRWLockOn(line, name, read, write), nil
}

// NewRWLockOn adds an rwlock whose word lives on line, beside the data it
// protects: every write to the data is seen by the spinners.
func (w *World) NewRWLockOn(line *cacheline.Line, name, read, write string) *RWLock {
	n := w.M.NumCPUs()
	l := &RWLock{w: w, Name: name, Line: line, Read: w.M.Label(read), Write: w.M.Label(write),
		readers: make([]int, n), writer: -1, phase: make([]rwPhase, n)}
	w.locks = append(w.locks, l)
	return l
}

func (l *RWLock) name() string { return l.Name }

func (l *RWLock) holders() []int {
	if l.writer >= 0 {
		l.held = append(l.held[:0], l.writer)
		return l.held
	}
	l.held = l.held[:0]
	for c, n := range l.readers {
		if n > 0 {
			l.held = append(l.held, c)
		}
	}
	return l.held
}

// ReadLockStep is read_lock() (read_lock_bh in the seeds).
type ReadLockStep struct{ L *RWLock }

// Exec implements cpu.Step.
func (s *ReadLockStep) Exec(c *cpu.Core) (cpu.Outcome, sim.Time) {
	l, id := s.L, c.ID
	if l.phase[id] == readerWaiting { // woken: look again before retrying the atomic
		done := reload(c, l.Line, l.Read)
		if l.writer >= 0 || l.waiting > 0 {
			return spinOn(c, l.Line, done, l.Read)
		}
		l.phase[id] = rwOutside
		return cpu.Again, done
	}
	if l.writer == id {
		c.Fail(fmt.Sprintf("deadlock: read_lock(%s) while this CPU holds it for writing", l.Name))
		return cpu.Block, 0
	}
	done := c.Access(l.Read, l.Line, cacheline.RMW)
	if l.writer < 0 && (l.waiting == 0 || l.readers[id] > 0) {
		l.readers[id]++
		l.nread++
		l.w.acquired(c, &l.Stats, l.w.waiting(id))
		return cpu.Next, done
	}
	if !l.w.wait(c, l) {
		return cpu.Block, 0
	}
	l.phase[id] = readerWaiting
	return spinOn(c, l.Line, done, l.Read)
}

// ReadUnlockStep is read_unlock().
type ReadUnlockStep struct{ L *RWLock }

// Exec implements cpu.Step.
func (s *ReadUnlockStep) Exec(c *cpu.Core) (cpu.Outcome, sim.Time) {
	l, id := s.L, c.ID
	if l.readers[id] == 0 {
		c.Fail(fmt.Sprintf("read_unlock(%s) by a CPU that does not hold it for reading; pair every unlock with a lock", l.Name))
		return cpu.Block, 0
	}
	done := c.Access(l.Read, l.Line, cacheline.RMW)
	l.readers[id]--
	l.nread--
	l.w.percpu[id].spinHeld--
	return cpu.Next, done
}

// WriteLockStep is write_lock().
type WriteLockStep struct{ L *RWLock }

// Exec implements cpu.Step.
func (s *WriteLockStep) Exec(c *cpu.Core) (cpu.Outcome, sim.Time) {
	l, id := s.L, c.ID
	if l.phase[id] == writerWaiting { // woken
		done := reload(c, l.Line, l.Write)
		if l.writer >= 0 || l.nread > 0 {
			return spinOn(c, l.Line, done, l.Write)
		}
		l.phase[id] = writerRetrying
		return cpu.Again, done
	}
	if l.writer == id || l.readers[id] > 0 {
		c.Fail(fmt.Sprintf("deadlock: write_lock(%s) while this CPU already holds it", l.Name))
		return cpu.Block, 0
	}
	done := c.Access(l.Write, l.Line, cacheline.RMW)
	if l.writer < 0 && l.nread == 0 {
		if l.phase[id] == writerRetrying {
			l.waiting--
		}
		l.phase[id] = rwOutside
		l.writer = id
		l.w.acquired(c, &l.Stats, l.w.waiting(id))
		return cpu.Next, done
	}
	if l.phase[id] == rwOutside {
		if !l.w.wait(c, l) {
			return cpu.Block, 0
		}
		l.waiting++
	}
	l.phase[id] = writerWaiting
	return spinOn(c, l.Line, done, l.Write)
}

// WriteUnlockStep is write_unlock().
type WriteUnlockStep struct{ L *RWLock }

// Exec implements cpu.Step.
func (s *WriteUnlockStep) Exec(c *cpu.Core) (cpu.Outcome, sim.Time) {
	l, id := s.L, c.ID
	if l.writer != id {
		c.Fail(fmt.Sprintf("write_unlock(%s) by a CPU that does not hold it for writing; pair every unlock with a lock", l.Name))
		return cpu.Block, 0
	}
	done := c.Access(l.Write, l.Line, cacheline.Store)
	l.writer = -1
	l.w.percpu[id].spinHeld--
	return cpu.Next, done
}
