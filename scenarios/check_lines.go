package scenarios

import (
	"fmt"
	"slices"

	"contend/models"
)

// line and lock check a declaration; a duplicate is placed at the second use
// of the name, the declaration that clashes.
func (c *checker) line(i int, l lineRaw, names map[string]string) {
	a := []string{"[[line]]"}
	if l.Name == "" {
		c.fail(fmt.Sprintf("line[%d].name", i), a, "missing; every line needs a name")
		return
	}
	if k, dup := names[l.Name]; dup {
		c.fail("line.name", append(a, quote(l.Name), quote(l.Name)), "%q is already a %s; names of lines and locks are unique, rename one", l.Name, k)
	}
	names[l.Name] = "line"
	at := append(a, quote(l.Name), keyNeedle("per_line"))
	switch {
	case l.PerLine < 0 || l.PerLine > MaxPerLine:
		c.fail("line.per_line", at, "%d; elements per cache line are from 2 to %d (64 bytes of 1-byte elements), or leave per_line out for one line per CPU", l.PerLine, MaxPerLine)
	case l.PerLine > 1 && !l.PerCPU:
		c.fail("line.per_line", at, "per_line packs a per-cpu array's elements; set percpu = true on %q, or drop per_line", l.Name)
	case l.PerLine > 1 && (l.PercpuCounter != "" || l.PercpuRef != ""):
		c.fail("line.per_line", at, "a percpu_counter's or percpu_ref's per-cpu part has a line per CPU; drop per_line, or declare the packed array as a line of its own")
	}
}

// MaxPerLine is the most elements per_line packs into a 64-byte line.
const MaxPerLine = 64

// packed says whether name is a per-cpu array packed per_line to a line.
func (c *checker) packed(name string) bool {
	return slices.ContainsFunc(c.s.Lines, func(x lineRaw) bool { return x.Name == name && x.PerLine > 1 })
}

// percpuCounter checks a line that is a percpu_counter's deltas: it is
// per-cpu, and folds into a shared line.
func (c *checker) percpuCounter(l lineRaw, lines []lineRaw) {
	a := []string{"[[line]]", quote(l.Name)}
	if l.PercpuCounter == "" {
		if l.Batch != nil {
			c.fail("line.batch", append(a, keyNeedle("batch")), "only a percpu_counter's line has a batch; add percpu_counter = \"<shared line>\" or drop batch")
		}
		return
	}
	at := append(a, keyNeedle("percpu_counter"))
	i := slices.IndexFunc(lines, func(x lineRaw) bool { return x.Name == l.PercpuCounter })
	switch {
	case !l.PerCPU:
		c.fail("line.percpu_counter", at, "a percpu_counter's deltas are per cpu; set percpu = true on %q", l.Name)
	case i < 0:
		c.fail("line.percpu_counter", at, "%q is not a defined line; declare the shared line the deltas fold into under [[line]]", l.PercpuCounter)
	case lines[i].PerCPU:
		c.fail("line.percpu_counter", at, "%q is a per-cpu line; the deltas fold into a shared count, name a shared line", l.PercpuCounter)
	}
	if l.Batch != nil && (*l.Batch < 1 || *l.Batch > MaxCount) {
		c.fail("line.batch", append(a, keyNeedle("batch")), "%d; a batch is from 1 to %d (leave it out for Linux's max(32, 2 x CPUs))", *l.Batch, int64(MaxCount))
	}
}

func (c *checker) lock(i int, l lockRaw, names map[string]string, lines []lineRaw) Lock {
	a := []string{"[[lock]]"}
	lk := Lock{Name: l.Name, Kind: l.Kind, Line: l.Line, Backoff: l.Backoff, Claim: l.Claim, PrefetchNext: l.PrefetchNext, Acquire: l.Acquire, Release: l.Release}
	if l.Name == "" {
		c.fail(fmt.Sprintf("lock[%d].name", i), a, "missing; every lock needs a name")
		return lk
	}
	if k, dup := names[l.Name]; dup {
		c.fail("lock.name", append(a, quote(l.Name), quote(l.Name)), "%q is already a %s; names of lines and locks are unique, rename one", l.Name, k)
	}
	lk.class, lk.spin = parseLockKind(l.Kind)
	kind := lk.class.String()
	if lk.class == notALock {
		c.fail("lock.kind", append(a, quote(l.Name), "kind"), "%q is not a lock kind; use ticket, qspinlock, cna, mcs, tas, ttas, rwlock, mutex, rw_semaphore or percpu_rw_semaphore", l.Kind)
	}
	if l.Line != "" {
		at := append(a, quote(l.Name), keyNeedle("line"))
		switch {
		case names[l.Line] != "line":
			c.fail("lock.line", at, "%q is not a defined line; declare it under [[line]] before the lock, or fix the name", l.Line)
		case slices.ContainsFunc(lines, func(x lineRaw) bool { return x.Name == l.Line && x.PerCPU }):
			c.fail("lock.line", at, "%q is a per-cpu line, and a lock word is shared; give the lock a shared line", l.Line)
		}
	}
	if l.Backoff != "" {
		at := append(a, quote(l.Name), keyNeedle("backoff"))
		if l.Kind != "ticket" {
			c.fail("lock.backoff", at, "only a ticket lock backs off in proportion to the tickets ahead; drop backoff or use kind = \"ticket\"")
		}
		c.dur("lock.backoff", at, l.Backoff, true, MaxStepTime)
	}
	if l.Claim != "" {
		at := append(a, quote(l.Name), keyNeedle("claim"))
		switch {
		case lk.spin != models.Qspinlock || lk.class != spinlockClass:
			c.fail("lock.claim", at, "only a qspinlock's queue head claims the lock; drop claim or use kind = \"qspinlock\"")
		case l.Claim != "store" && l.Claim != "cmpxchg":
			c.fail("lock.claim", at, "%q; use \"store\" (set_locked, Linux 4.2 on) or \"cmpxchg\" (before commit 2c83e8e9492d)", l.Claim)
		}
	}
	if l.PrefetchNext != nil && (lk.class != spinlockClass || lk.spin != models.Qspinlock && lk.spin != models.CNA) {
		c.fail("lock.prefetch_next", append(a, quote(l.Name), keyNeedle("prefetch_next")), "only a qspinlock's or cna's queue head prefetches its successor's node; drop prefetch_next or use kind = \"qspinlock\"")
	}
	names[l.Name] = kind
	return lk
}
