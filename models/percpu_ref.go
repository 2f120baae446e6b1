package models

// The percpu_ref, include/linux/percpu-refcount.h and lib/percpu-
// refcount.c. Until it is killed, percpu_ref_get() and percpu_ref_put()
// are this_cpu_add() on the CPU's own counter: no atomic, no shared line.
// The reference its creator holds (percpu_ref_init's start count) sits in
// the shared atomic count, biased by PERCPU_COUNT_BIAS so that it cannot
// reach zero while the per-cpu counters hold the rest. percpu_ref_kill()
// (percpu_ref_kill_and_confirm) marks the ref dead and atomic at once, so
// every get and put from then on is an atomic on the shared count; takes a
// reference of its own for the switch (__percpu_ref_switch_to_atomic);
// queues percpu_ref_switch_to_atomic_rcu with call_rcu_hurry(); and drops
// the creator's reference. After a grace period the callback adds the
// per-cpu counters into the atomic count, removes the bias and drops the
// switch's reference (percpu_ref_call_confirm_rcu): only then can the
// count reach zero, and the put that takes it there releases the ref.
// percpu_ref_tryget_live() takes a reference while the ref is not dead.
//
// Phases of a kill: outside -> (the switch's get issued) refKilling ->
// (executed; the callback queued; the creator's put issued) refPutting ->
// outside. A get or a put in atomic mode: refAtomic while its atomic is in
// flight.

import (
	"fmt"

	"contend/cacheline"
	"contend/cpu"
	"contend/sim"
)

type refPhase uint8

const (
	refOutside refPhase = iota
	refAtomic           // a get's or a put's atomic on the shared count in flight
	refKilling          // percpu_ref_kill: the switch's get in flight
	refPutting          // percpu_ref_kill: the creator's put in flight
)

// PercpuRef is a percpu_ref: per-cpu counters on a per-cpu line, and the
// atomic count on a shared line.
type PercpuRef struct {
	w      *World
	Name   string
	PerCPU *cacheline.Line
	Atomic *cacheline.Line
	// Label counts the switch's callback (percpu_ref_switch_to_atomic_rcu).
	Label cpu.Label

	percpu   []int64 // each CPU's counter
	count    int64   // the atomic count, less its bias while biased
	biased   bool    // PERCPU_COUNT_BIAS is still in the atomic count
	atomic   bool    // __PERCPU_REF_ATOMIC
	dead     bool    // __PERCPU_REF_DEAD
	released bool
	phase    []refPhase
	// OnRelease, if set, is called when the count reaches zero.
	OnRelease func(at sim.Time)
	Stats     PercpuRefStats
}

// PercpuRefStats count what happened to a percpu_ref in the measured
// interval.
type PercpuRefStats struct {
	PerCPUOps, AtomicOps uint64 // gets and puts on each side
	Kills, Releases      uint64
	TrygetFailed         uint64 // percpu_ref_tryget_live on a dead ref
}

// NewPercpuRef adds a percpu_ref in per-cpu mode holding its creator's
// reference (percpu_ref_init with no flags).
func (w *World) NewPercpuRef(name string, perCPU, atomic *cacheline.Line, label string) *PercpuRef {
	r := &PercpuRef{w: w, Name: name, PerCPU: perCPU, Atomic: atomic, Label: w.M.Label(label),
		percpu: make([]int64, w.M.NumCPUs()), count: 1, biased: true, phase: make([]refPhase, w.M.NumCPUs())}
	w.refs = append(w.refs, r)
	return r
}

// Count is the ref's count: the per-cpu counters and the atomic count
// together, without the bias.
func (r *PercpuRef) Count() int64 {
	n := r.count
	if r.biased {
		for _, d := range r.percpu {
			n += d
		}
	}
	return n
}

// Released reports whether the count has reached zero.
func (r *PercpuRef) Released() bool { return r.released }

// add adds delta to the atomic count, releasing the ref at zero.
func (r *PercpuRef) add(delta int64, at sim.Time) {
	r.count += delta
	if r.count == 0 && !r.biased {
		r.released = true
		r.Stats.Releases++
		if r.OnRelease != nil {
			r.OnRelease(at)
		}
	}
}

// PercpuRefOp is a get or a put.
type PercpuRefOp uint8

// The operations of a percpu_ref step.
const (
	PercpuRefGet PercpuRefOp = iota
	PercpuRefPut
	PercpuRefTrygetLive // the Skip steps after it run only if it took a reference
)

// PercpuRefStep is percpu_ref_get, percpu_ref_put or
// percpu_ref_tryget_live.
type PercpuRefStep struct {
	R     *PercpuRef
	Op    PercpuRefOp
	Skip  int // tryget_live: the steps it guards
	Label cpu.Label
}

// Exec implements cpu.Step.
func (s *PercpuRefStep) Exec(c *cpu.Core) (cpu.Outcome, sim.Time) {
	r, id := s.R, c.ID
	delta := int64(1)
	if s.Op == PercpuRefPut {
		delta = -1
	}
	if r.phase[id] == refAtomic { // the atomic has executed
		r.phase[id] = refOutside
		r.add(delta, c.Now())
		return cpu.Next, c.Now()
	}
	if s.Op == PercpuRefTrygetLive && r.dead {
		r.Stats.TrygetFailed++
		c.Skip(s.Skip)
		return cpu.Next, c.Now()
	}
	if r.released {
		c.Fail(fmt.Sprintf("percpu_ref %s used after its count reached zero and it was released; take references with percpu_ref_tryget_live once it may be killed", r.Name))
		return cpu.Block, 0
	}
	if !r.atomic {
		r.percpu[id] += delta
		r.Stats.PerCPUOps++
		return cpu.Next, c.Access(s.Label, r.PerCPU, cacheline.Store)
	}
	r.Stats.AtomicOps++
	r.phase[id] = refAtomic
	return cpu.Again, c.Access(s.Label, r.Atomic, cacheline.RMW)
}

// PercpuRefKill is percpu_ref_kill.
type PercpuRefKill struct {
	R     *PercpuRef
	Label cpu.Label
}

// Exec implements cpu.Step.
func (s *PercpuRefKill) Exec(c *cpu.Core) (cpu.Outcome, sim.Time) {
	r, id := s.R, c.ID
	now := c.Now()
	switch r.phase[id] {
	case refKilling: // the switch's get has executed: queue the switch, drop the creator's reference
		r.add(1, now)
		r.w.RCU.enqueue(callback{kind: cbFree, call: KindCallRCU, core: c, steps: []cpu.Step{&percpuRefSwitch{r: r}}}, now, false)
		r.phase[id] = refPutting
		return cpu.Again, c.Access(s.Label, r.Atomic, cacheline.RMW)
	case refPutting:
		r.phase[id] = refOutside
		r.add(-1, now)
		return cpu.Next, now
	}
	if r.dead {
		c.Fail(fmt.Sprintf("percpu_ref_kill(%s) of a ref already killed; kill it once", r.Name))
		return cpu.Block, 0
	}
	r.dead, r.atomic = true, true
	r.Stats.Kills++
	r.phase[id] = refKilling
	return cpu.Again, c.Access(s.Label, r.Atomic, cacheline.RMW)
}

// percpuRefSwitch is percpu_ref_switch_to_atomic_rcu, run in softirq after
// the grace period: the per-cpu counters folded into the atomic count
// (one atomic_long_add; the loads of every CPU's counter are not charged),
// and the switch's reference dropped.
type percpuRefSwitch struct {
	r      *PercpuRef
	issued bool
}

// Exec implements cpu.Step.
func (s *percpuRefSwitch) Exec(c *cpu.Core) (cpu.Outcome, sim.Time) {
	r := s.r
	if !s.issued {
		s.issued = true
		return cpu.Again, c.Access(r.Label, r.Atomic, cacheline.RMW)
	}
	s.issued = false
	var sum int64
	for i, d := range r.percpu {
		sum += d
		r.percpu[i] = 0
	}
	r.biased = false
	r.count += sum
	r.add(-1, c.Now()) // percpu_ref_call_confirm_rcu's put
	return cpu.Next, c.Now()
}
