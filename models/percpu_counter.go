package models

import (
	"contend/cacheline"
	"contend/cpu"
	"contend/sim"
)

// PercpuCounter is lib/percpu_counter.c: each CPU adds to its own delta and
// folds it into the shared count once it reaches the batch either way:
//
//	count = *pcount + amount;
//	if (count >= batch || count <= -batch) {
//		spin_lock(&fbc->lock);
//		fbc->count += count;
//		*pcount = 0;
//		spin_unlock(&fbc->lock);
//	}
//
// fbc->lock and fbc->count share Line: taking the lock is the line's
// transfer, and the add and the unlock are stores to the line the CPU then
// owns, so the fold is one atomic on Line. Linux's batch is
// max(32, 2 * num_online_cpus()) (compute_batch_value).
type PercpuCounter struct {
	Line, PerCPU *cacheline.Line
	Batch        int64
	Label        cpu.Label // the fold, as perf shows it (__percpu_counter_add)
	// Count is fbc->count; Folds counts the folds in the measured interval.
	Count int64
	Folds uint64

	delta []int64
	fold  []bool // the CPU's next Exec of an add is its fold
}

// NewPercpuCounter returns a counter whose count and lock are on line and
// whose deltas are on the per-cpu line percpu. A batch of 0 takes Linux's.
func (w *World) NewPercpuCounter(line, percpu *cacheline.Line, batch int64, label string) *PercpuCounter {
	n := w.M.NumCPUs()
	if batch <= 0 {
		batch = int64(max(32, 2*n))
	}
	pc := &PercpuCounter{Line: line, PerCPU: percpu, Batch: batch, Label: w.M.Label(label),
		delta: make([]int64, n), fold: make([]bool, n)}
	w.counters = append(w.counters, pc)
	return pc
}

// Delta returns cpu's unfolded delta.
func (pc *PercpuCounter) Delta(cpu int) int64 { return pc.delta[cpu] }

// PercpuCounterAdd is percpu_counter_add(fbc, Delta): a store to the CPU's
// delta and, when it reaches the batch, the fold on the shared line.
type PercpuCounterAdd struct {
	C     *PercpuCounter
	Delta int64
	Label cpu.Label
}

// Exec implements cpu.Step.
func (s *PercpuCounterAdd) Exec(c *cpu.Core) (cpu.Outcome, sim.Time) {
	pc := s.C
	if pc.fold[c.ID] {
		pc.fold[c.ID] = false
		pc.Count += pc.delta[c.ID]
		pc.delta[c.ID] = 0
		pc.Folds++
		return cpu.Next, c.Access(pc.Label, pc.Line, cacheline.RMW)
	}
	at := c.Access(s.Label, pc.PerCPU, cacheline.Store)
	d := pc.delta[c.ID] + s.Delta
	pc.delta[c.ID] = d
	if d >= pc.Batch || d <= -pc.Batch {
		pc.fold[c.ID] = true
		return cpu.Again, at
	}
	return cpu.Next, at
}
