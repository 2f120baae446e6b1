package models

// refcount_t, include/linux/refcount.h: an atomic_t whose operations
// saturate instead of wrapping. refcount_inc() is __refcount_add(): one
// atomic_fetch_add, and a fetch that finds 0 (a use after free) or a
// negative count saturates the count at REFCOUNT_SATURATED and warns.
// refcount_dec_and_test() is __refcount_sub_and_test(): one
// atomic_fetch_sub, true when it took the count from 1 to 0 (the caller
// frees), and a fetch that finds the count at or below 0 saturates it.
// refcount_inc_not_zero() is a try_cmpxchg loop that gives up at 0
// (__refcount_add_not_zero). A saturated count stays saturated: the object
// leaks rather than being freed twice. The count is a Word's, so a
// cmpxchg loop on it fails when an inc or a dec came in between.
//
// Phases: outside -> (the atomic issued) refcountIssued -> (executed at
// the line) outside.

import (
	"contend/cacheline"
	"contend/cpu"
	"contend/sim"
)

// RefcountSaturated is REFCOUNT_SATURATED, INT_MIN / 2.
const RefcountSaturated = -(1 << 30)

// RefcountOp is one of refcount_t's operations the model has.
type RefcountOp uint8

// refcount_t's operations.
const (
	RefcountInc        RefcountOp = iota // refcount_inc
	RefcountDecAndTest                   // refcount_dec_and_test
)

// NewRefcount adds a refcount_t on line, set to 1 (refcount_set(r, 1):
// the reference of whoever made the object).
func (w *World) NewRefcount(name string, line *cacheline.Line) *Word {
	wd := w.NewWord(name, line, nil)
	wd.Count = 1
	return wd
}

// RefcountStep is refcount_inc or refcount_dec_and_test on a word. For a
// dec_and_test, the Zero steps after it run when it took the count to 0
// (the caller's free) and are skipped otherwise.
type RefcountStep struct {
	W     *Word
	Op    RefcountOp
	Zero  int
	Label cpu.Label
}

// Exec implements cpu.Step.
func (s *RefcountStep) Exec(c *cpu.Core) (cpu.Outcome, sim.Time) {
	wd, id := s.W, c.ID
	if wd.phase[id] != cmpxchgTrying {
		wd.phase[id] = cmpxchgTrying
		return cpu.Again, c.Access(s.Label, wd.Line, cacheline.RMW)
	}
	// The atomic has executed: its effect is decided at the line.
	wd.phase[id] = cmpxchgOutside
	wd.version++
	old := wd.Count
	zero := false
	switch {
	case old <= 0: // a use after free, or already saturated
		wd.Count = RefcountSaturated
		wd.Stats.Saturations++
	case s.Op == RefcountInc:
		wd.Count++
	default:
		wd.Count--
		zero = wd.Count == 0
	}
	if !zero {
		c.Skip(s.Zero)
	}
	return cpu.Next, c.Now()
}

// RefcountIncNotZero is refcount_inc_not_zero: a cmpxchg loop that adds 1
// while the count read is above 0, and else gives up, running the steps
// after it (Fallback, the caller's path for an object already going away).
func RefcountIncNotZero(wd *Word, fallback int, label cpu.Label) *CmpxchgStep {
	return &CmpxchgStep{W: wd, Delta: 1, Fallback: fallback, Cond: func(count int64) bool { return count > 0 }, Label: label}
}
