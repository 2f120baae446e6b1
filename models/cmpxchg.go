package models

// The cmpxchg loop, as kernel code writes it on a word other CPUs update
// (lib/lockref.c, CMPXCHG_LOOP; the try_cmpxchg loops of include/linux/
// atomic/atomic-instrumented.h such as atomic_add_unless): READ_ONCE() of
// the word, the new value computed from it, then try_cmpxchg(). The
// cmpxchg fails when another CPU changed the word between the value's read
// and the cmpxchg's execution at the line, and then hands back the word as
// it found it, so the next try needs no read of its own: each retry is one
// more atomic on the line. With a retry limit (CMPXCHG_LOOP's 100), running
// out runs the fallback that follows the step (lockref's spinlock). What a
// read or a cmpxchg finds is decided when it is served at the line, not
// when the core issues it, as for the spinlocks.
//
// Phases: outside -> (READ_ONCE issued) cmpxchgReading -> (served; the
// cmpxchg issued) cmpxchgTrying -> (executed) outside: done, or the
// fallback; or cmpxchgTrying again (failed, retries left), after
// cmpxchgRelaxing's pause when the loop relaxes.

import (
	"contend/cacheline"
	"contend/cpu"
	"contend/sim"
)

// cmpxchgPhase is where a CPU is in a cmpxchg loop on one word.
type cmpxchgPhase uint8

const (
	cmpxchgOutside  cmpxchgPhase = iota // not in the loop
	cmpxchgReading                      // READ_ONCE() in flight
	cmpxchgTrying                       // a cmpxchg in flight
	cmpxchgRelaxing                     // cpu_relax() after a cmpxchg that failed
)

// Word is a machine word on a line that cmpxchg loops update: a lockref's
// lock and count, an atomic_t updated by atomic_add_unless. Every CPU sees
// one value; a change is a cmpxchg that succeeded, or a take or release of
// the spinlock the word holds.
type Word struct {
	w    *World
	Name string
	Line *cacheline.Line
	// Lock is the spinlock inside the word (a lockref's): a loop runs only
	// while the word reads unlocked (arch_spin_value_unlocked), and the
	// lock's takes and releases change the word.
	Lock *Spinlock
	// Count is the count a lockref keeps beside its lock: what its
	// operations have added so far.
	Count int64

	version uint64
	phase   []cmpxchgPhase
	seen    []uint64 // the value each CPU's next cmpxchg expects
	tries   []int    // cmpxchgs each CPU has made in its current loop
	Stats   CmpxchgStats
	// Trace, when set, is told of every value a CPU reads (by READ_ONCE or
	// a failed cmpxchg) and every cmpxchg's outcome, in the order they
	// happen at the line.
	Trace func(CmpxchgEvent)
}

// CmpxchgStats count what the loops on a word did in the measured interval.
type CmpxchgStats struct {
	Attempts  uint64 // cmpxchgs executed
	Failures  uint64 // cmpxchgs that found the word changed and went round again
	Fallbacks uint64 // loops that ran their fallback: retries ran out, or the word read locked
	// Saturations are refcount_t operations that found the count at or
	// below 0 and saturated it (refcount_warn_saturate).
	Saturations uint64
}

// CmpxchgEvent is one thing a loop did at the word, for monitors.
type CmpxchgEvent struct {
	CPU int
	At  sim.Time
	// Read is a value taken (READ_ONCE, or a failed cmpxchg handing back
	// the word); otherwise the event is a cmpxchg and OK says whether it
	// succeeded.
	Read bool
	OK   bool
}

// NewWord adds a word on line; lock, if not nil, is a spinlock inside it.
func (w *World) NewWord(name string, line *cacheline.Line, lock *Spinlock) *Word {
	n := w.M.NumCPUs()
	wd := &Word{w: w, Name: name, Line: line, Lock: lock,
		phase: make([]cmpxchgPhase, n), seen: make([]uint64, n), tries: make([]int, n)}
	w.words = append(w.words, wd)
	return wd
}

// value is the word as a cmpxchg compares it: it moves with every change.
func (wd *Word) value() uint64 {
	v := wd.version
	if wd.Lock != nil {
		v += wd.Lock.changes
	}
	return v
}

// locked reports whether the word reads locked: the loop leaves for the
// fallback.
func (wd *Word) locked() bool { return wd.Lock != nil && !wd.Lock.unlockedWord() }

func (wd *Word) trace(c *cpu.Core, read, ok bool) {
	if wd.Trace != nil {
		wd.Trace(CmpxchgEvent{CPU: c.ID, At: c.Now(), Read: read, OK: ok})
	}
}

// CmpxchgStep is one cmpxchg loop on a word: read it, try the cmpxchg,
// and retry while it fails, at most Retries times (0: until it succeeds).
// The Fallback steps after it run when the retries run out, when the word
// reads locked, or when Cond refuses the value read; a success skips them.
type CmpxchgStep struct {
	W        *Word
	Retries  int
	Fallback int
	// Delta is what a success adds to the word's Count (a lockref's
	// count++ or count--).
	Delta int64
	// Cond, if set, is the loop's test of the count read: false leaves the
	// loop for the fallback without a cmpxchg (lockref_put_return's
	// old.count <= 0).
	Cond func(count int64) bool
	// Relax is cpu_relax() after a cmpxchg that failed: one iteration of a
	// spin loop (the profile's pause, a PAUSE on x86) before the next try,
	// which still expects the value the failed one handed back. lib/lockref.c's
	// CMPXCHG_LOOP did so until f5fe24ef17b5 ("lockref: stop doing
	// cpu_relax in the cmpxchg loop", v6.2): "even a failing cmpxchg grants
	// exclusive access to the cacheline", which the pause gives away.
	Relax bool
	Label cpu.Label
}

// Exec implements cpu.Step.
func (s *CmpxchgStep) Exec(c *cpu.Core) (cpu.Outcome, sim.Time) {
	wd, id := s.W, c.ID
	switch wd.phase[id] {
	case cmpxchgOutside:
		wd.phase[id] = cmpxchgReading
		wd.tries[id] = 0
		return cpu.Again, c.Access(s.Label, wd.Line, cacheline.Load)
	case cmpxchgReading:
		wd.seen[id] = wd.value()
		wd.trace(c, true, false)
		return s.try(c)
	case cmpxchgRelaxing:
		return s.try(c)
	}
	// The cmpxchg has executed: it compares what it expects with the
	// word as it is now.
	wd.Stats.Attempts++
	wd.tries[id]++
	if wd.seen[id] == wd.value() {
		wd.version++
		wd.Count += s.Delta
		wd.trace(c, false, true)
		wd.phase[id] = cmpxchgOutside
		c.Skip(s.Fallback)
		return cpu.Next, c.Now()
	}
	wd.Stats.Failures++
	wd.trace(c, false, false)
	wd.seen[id] = wd.value() // try_cmpxchg updates old
	wd.trace(c, true, false)
	if s.Retries > 0 && wd.tries[id] >= s.Retries {
		return s.fallback(c)
	}
	if s.Relax {
		wd.phase[id] = cmpxchgRelaxing
		d := c.M.Duration(c.M.Profile().Pause)
		c.Charge(s.Label, cpu.Spin, d)
		return cpu.Again, c.Now() + d
	}
	return s.try(c)
}

// try issues the next cmpxchg, unless the value read sends the loop to its
// fallback.
func (s *CmpxchgStep) try(c *cpu.Core) (cpu.Outcome, sim.Time) {
	wd := s.W
	if wd.locked() || (s.Cond != nil && !s.Cond(wd.Count)) {
		return s.fallback(c)
	}
	wd.phase[c.ID] = cmpxchgTrying
	return cpu.Again, c.Access(s.Label, wd.Line, cacheline.RMW)
}

// fallback leaves the loop for the steps after it: without any, the loop
// gives up (lockref_put_return's -1).
func (s *CmpxchgStep) fallback(c *cpu.Core) (cpu.Outcome, sim.Time) {
	s.W.phase[c.ID] = cmpxchgOutside
	s.W.Stats.Fallbacks++
	return cpu.Next, c.Now()
}
