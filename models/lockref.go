package models

// The lockref, lib/lockref.c (Linux 3.12 on, with the 100 retries of
// CMPXCHG_LOOP since 4.0): a spinlock and a count in one 64-bit word, the
// dentry's d_lockref. lockref_get(), lockref_get_not_dead() and
// lockref_put_return() are a cmpxchg loop on the whole word that runs
// while the lock in it reads unlocked; the two gets fall back to taking the
// spinlock and changing the count under it, which every other CPU's
// cmpxchg then sees as a change: once one CPU is on the lock, the CPUs
// whose cmpxchgs fail meanwhile, or that read the word locked, follow it,
// the mode a contended lockref can fall into. lockref_put_return() has no
// fallback of its own: it returns -1, and its caller (fast_dput) takes the
// lock itself. lockref_get_not_dead() is lockref_get() here: nothing marks
// a lockref dead (lockref_mark_dead) in this model.
//
// Phases: those of the cmpxchg loop (cmpxchg.go), then the fallback's
// spin_lock(), count update and spin_unlock() as steps of their own.

import (
	"contend/cacheline"
	"contend/cpu"
	"contend/sim"
)

// LockrefRetries is CMPXCHG_LOOP's retry count.
const LockrefRetries = 100

// LockrefOp is one of lockref's operations.
type LockrefOp uint8

// The operations of lib/lockref.c the model has.
const (
	LockrefGet        LockrefOp = iota // lockref_get: count++, falling back to the lock
	LockrefGetNotDead                  // lockref_get_not_dead: the same, while the count is not negative
	LockrefPutReturn                   // lockref_put_return: count-- while above 0, else -1
)

// Lockref is a spinlock and a count in one word on the lock's line.
type Lockref struct {
	Word *Word
	Lock *Spinlock
}

// NewLockref makes l a lockref: the word on its line holds it and a count.
func (w *World) NewLockref(l *Spinlock) *Lockref {
	return &Lockref{Word: w.NewWord(l.Name, l.Line, l), Lock: l}
}

// Steps returns op as steps: the cmpxchg loop, then its fallback (the
// gets' spin_lock, count++ and spin_unlock; the fallback block of
// lockref_put_return's caller). With relax the loop pauses after a cmpxchg
// that failed (CmpxchgStep.Relax).
func (r *Lockref) Steps(op LockrefOp, label cpu.Label, callerFallback []cpu.Step, relax bool) []cpu.Step {
	loop := &CmpxchgStep{W: r.Word, Retries: LockrefRetries, Relax: relax, Label: label}
	var fallback []cpu.Step
	switch op {
	case LockrefGet, LockrefGetNotDead:
		loop.Delta = 1
		fallback = []cpu.Step{&LockStep{L: r.Lock}, &lockrefCount{r: r, delta: 1, label: label}, &UnlockStep{L: r.Lock}}
	case LockrefPutReturn:
		loop.Delta = -1
		loop.Cond = func(count int64) bool { return count > 0 }
		fallback = callerFallback
	}
	loop.Fallback = len(fallback)
	return append([]cpu.Step{loop}, fallback...)
}

// lockrefCount is lockref->count++ under the lock: a read and a store of
// the word on the line the holder has.
type lockrefCount struct {
	r     *Lockref
	delta int64
	label cpu.Label
}

// Exec implements cpu.Step.
func (s *lockrefCount) Exec(c *cpu.Core) (cpu.Outcome, sim.Time) {
	wd := s.r.Word
	done := c.Access(s.label, wd.Line, cacheline.LoadOwn)
	wd.Count += s.delta
	wd.version++
	return cpu.Next, done
}
