package models

import (
	"errors"
	"fmt"
	"math/bits"

	"contend/cacheline"
	"contend/cpu"
	"contend/sim"
)

// Flood is a packet flood: every listed CPU runs Program once per packet.
// With Rate zero each CPU runs it in a closed loop (as fast as it can, like
// pktgen); otherwise packets arrive at Rate per second per CPU (Poisson), wait
// in a ring of Ring slots, and are dropped when it is full.
type Flood struct {
	CPUs    []int
	Program *cpu.Program
	Rate    float64
	Ring    int
}

// Batch is one task running Ops control-plane operations back to back on
// CPU, each one run of Program (tc -b with 20 000 filter adds).
type Batch struct {
	CPU     int
	Program *cpu.Program
	Ops     int64
}

// RunSpec says what to run and for how long. A flood alone runs for Warmup
// then Duration; with a batch the run ends when the batch does (or at Limit).
type RunSpec struct {
	Flood    *Flood
	Batch    *Batch
	Warmup   sim.Time
	Duration sim.Time
	Limit    sim.Time // longest simulated time a batch may take
	// MaxEvents bounds the simulated events of the run (0: no bound); a run
	// that reaches it fails with an error wrapping sim.ErrEventLimit.
	MaxEvents uint64

	// Every SampleEvery of simulated time, Observe (if set) receives a
	// Sample: the hook for live charts and progress. It must not keep the
	// slices it is given.
	SampleEvery sim.Time
	Observe     func(Sample)
}

// Sample is a snapshot of a running simulation. Counts and times are
// cumulative over the measured interval so far; a chart takes differences.
type Sample struct {
	Now      sim.Time `json:"now_ps"`
	Packets  []uint64 `json:"packets"` // per flood CPU, in the measured interval so far
	BatchOps int64    `json:"batch_ops"`
	RCUGPs   uint64   `json:"grace_periods"`
	Pending  float64  `json:"pending_bytes"`

	// CPUs are the workload's CPUs (the flood's, then the batch's); States
	// is the time each has been charged in each cpu.State, in that order.
	CPUs   []int                     `json:"cpus"`
	States [][cpu.NumStates]sim.Time `json:"states_ps"`
	// Lines are the shared (not per-cpu) lines; Transfers[i][j] counts the
	// transfers of line i to CPUs[j].
	Lines     []string   `json:"lines"`
	Transfers [][]uint64 `json:"transfers"`
	// LockWait counts spinning-lock acquisitions that waited, by the length
	// of the wait: bucket i holds [2^i, 2^(i+1)) ns.
	LockWait []uint64 `json:"lock_wait"`
	// GPActive says a grace period is in progress, and since when.
	GPActive bool     `json:"gp_active"`
	GPStart  sim.Time `json:"gp_start_ps"`
}

// LockWaitBuckets is the length of Sample.LockWait: up to 2^32 ns (4 s).
const LockWaitBuckets = 33

func (w *World) recordWait(d sim.Time) {
	ns := uint64(max(d, 0) / sim.Nanosecond)
	w.lockWait[min(max(bits.Len64(ns), 1)-1, LockWaitBuckets-1)]++
}

// driver is the cpu.Driver of every core a workload runs on.
type driver struct {
	w     *World
	flood *Flood
	batch *Batch
	// closedLoop: the flood runs each CPU's program back to back (Rate
	// 0); batchCPU is the batch's CPU, or -1.
	closedLoop bool
	batchCPU   int
	// open loop
	queued  []int
	arrive  []sim.Event
	dropped uint64
	arrived uint64
	// batch
	opsDone   int64
	batchFrom sim.Time
	batchEnd  sim.Time
	finished  bool
	opStart   sim.Time
	opLatency sim.Histogram
}

// EndAhead implements cpu.AheadDriver: a closed-loop flood CPU's program
// end needs nothing at the engine's time while no grace period is in
// progress (RCU has no quiescent state to take from it) and the CPU holds
// nothing.
func (d *driver) EndAhead(c *cpu.Core, now sim.Time) (ended, again bool) {
	st := &d.w.percpu[c.ID]
	if d.closedLoop && c.ID != d.batchCPU && !d.w.RCU.active && st.spinHeld == 0 && st.rcuDepth == 0 && st.mutexHeld == 0 {
		// What ProgramDone does for it: packetDone's, in a closed loop
		// (it always has a next packet).
		d.w.RCU.boundary(c, now)
		return true, true
	}
	return false, false
}

func (d *driver) ProgramDone(c *cpu.Core, now sim.Time) bool {
	w := d.w
	st := &w.percpu[c.ID]
	switch {
	case st.spinHeld > 0:
		failAtEnd(c, now, "the program ends holding a spinlock or rwlock; add the matching unlock step")
		return false
	case st.rcuDepth > 0:
		failAtEnd(c, now, "the program ends inside an RCU read-side section; add rcu_read_unlock")
		return false
	case st.mutexHeld > 0:
		failAtEnd(c, now, "the program ends holding a mutex; add mutex_unlock")
		return false
	}
	if d.batch != nil && c.ID == d.batch.CPU {
		d.opsDone++
		w.Items++
		d.opLatency.Record(int64(now - d.opStart))
		d.opStart = now
		if d.opsDone >= d.batch.Ops {
			d.finished = true
			d.batchEnd = now
			w.RCU.contextSwitch(c, now)
			w.M.Finish()
			return false
		}
		w.RCU.boundary(c, now)
		return true
	}
	return d.packetDone(c, now)
}

// packetDone ends a packet of the flood on c at now and says whether
// another one is there to run.
func (d *driver) packetDone(c *cpu.Core, now sim.Time) bool {
	w := d.w
	w.RCU.boundary(c, now)
	if d.flood.Rate == 0 {
		return true
	}
	if d.queued[c.ID] > 0 {
		d.queued[c.ID]--
		return true
	}
	w.RCU.contextSwitch(c, now)
	return false
}

// failAtEnd stops the run with a fault found when c's program ends. It names
// the last step: the core has already wrapped round to the first, which did
// nothing wrong.
func failAtEnd(c *cpu.Core, now sim.Time, what string) {
	p := c.Program()
	c.M.Fail(&cpu.ModelError{At: now, Core: c.ID, Program: p.Name, Step: len(p.Steps) - 1, What: what})
}

func (d *driver) onArrival(c *cpu.Core, now sim.Time) {
	d.arrived++
	switch {
	case !c.Running():
		c.Start(now)
	case d.queued[c.ID] < d.flood.Ring:
		d.queued[c.ID]++
	default:
		d.dropped++
	}
	mean := sim.FromSeconds(1 / d.flood.Rate)
	d.w.M.Schedule(&d.arrive[c.ID], now+d.w.M.Exp(mean))
}

// Run runs spec on the world and reports what happened in the measured
// interval.
func (w *World) Run(spec RunSpec) (*Result, error) {
	if spec.Flood == nil && spec.Batch == nil {
		return nil, errors.New("models: nothing to run: give a flood, a batch or both")
	}
	d := &driver{w: w, flood: spec.Flood, batch: spec.Batch, batchCPU: -1}
	d.closedLoop = d.flood != nil && d.flood.Rate == 0
	if d.batch != nil {
		d.batchCPU = d.batch.CPU
	}
	if err := w.startFlood(d, spec); err != nil {
		return nil, err
	}
	ctl := sim.Control{Warmup: spec.Warmup, Until: spec.Warmup + spec.Duration, MaxEvents: spec.MaxEvents}
	if err := w.startBatch(d, spec, &ctl); err != nil {
		return nil, err
	}
	ctl.OnWarmupEnd = func(now sim.Time) { w.endWarmup(d, now) }
	if spec.Flood != nil && spec.Batch == nil {
		w.M.SetHalfway(spec.Warmup + spec.Duration/2)
	}
	if spec.Observe != nil && spec.SampleEvery > 0 {
		w.observe(d, spec)
	}
	err := w.M.Run(ctl)
	if errors.Is(err, sim.ErrEventLimit) {
		err = fmt.Errorf("models: the run reached its bound of %d simulated events (a step run ahead of the clock counts as one) at %v of simulated time, before its end at %v: %w", spec.MaxEvents, w.M.Now(), ctl.Until, err)
	}
	if err != nil {
		return nil, err
	}
	if spec.Batch != nil && !d.finished {
		return nil, fmt.Errorf("models: the batch did not finish within %v of simulated time (%d of %d operations); raise the limit or shorten the batch", ctl.Until, d.opsDone, spec.Batch.Ops)
	}
	return w.result(d, spec), nil
}

// startFlood loads the flood's program on its CPUs: a closed loop starts at
// once, an open loop at its first arrival.
func (w *World) startFlood(d *driver, spec RunSpec) error {
	f := spec.Flood
	if f == nil {
		return nil
	}
	if f.Rate < 0 || f.Ring < 0 {
		return fmt.Errorf("models: flood rate and ring must not be negative")
	}
	// Arrivals a picosecond apart at most, or ones overflowing the
	// clock, would all land at one instant: the run would never end.
	if f.Rate != 0 && !(f.Rate >= 1e-6 && f.Rate <= 1e12) {
		return fmt.Errorf("models: flood rate %v per second: the mean time between packets must be from 1 ps to 10⁶ s", f.Rate)
	}
	m := w.M
	n := m.NumCPUs()
	d.queued = make([]int, n)
	d.arrive = make([]sim.Event, n)
	for _, id := range f.CPUs {
		if id < 0 || id >= n {
			return fmt.Errorf("models: flood on cpu %d, but the machine has cpus 0-%d", id, n-1)
		}
		if spec.Batch != nil && spec.Batch.CPU == id {
			return fmt.Errorf("models: cpu %d runs both the flood and the batch; give the batch a cpu of its own", id)
		}
		c := m.Cores()[id]
		c.Load(f.Program, d)
		if f.Rate == 0 {
			c.Start(0)
			continue
		}
		d.arrive[id].Action = sim.ActionFunc(func(now sim.Time) { d.onArrival(c, now) })
		m.Schedule(&d.arrive[id], m.Exp(sim.FromSeconds(1/f.Rate)))
	}
	return nil
}

// startBatch loads the batch's program on its CPU, to start when warm-up
// ends; the run then lasts until the batch finishes or the limit.
func (w *World) startBatch(d *driver, spec RunSpec, ctl *sim.Control) error {
	b := spec.Batch
	if b == nil {
		return nil
	}
	n := w.M.NumCPUs()
	if b.CPU < 0 || b.CPU >= n {
		return fmt.Errorf("models: batch on cpu %d, but the machine has cpus 0-%d", b.CPU, n-1)
	}
	if b.Ops <= 0 {
		return fmt.Errorf("models: batch of %d operations; give at least 1", b.Ops)
	}
	c := w.M.Cores()[b.CPU]
	w.percpu[b.CPU].kind = userCore
	c.Load(b.Program, d)
	start := spec.Warmup
	d.batchFrom, d.opStart = start, start
	c.Start(start)
	ctl.Until = spec.Limit
	if ctl.Until <= start {
		ctl.Until = start + 1000*sim.Second
	}
	return nil
}

// endWarmup forgets what the models counted during warm-up; the machine
// restarts its own counts.
func (w *World) endWarmup(d *driver, now sim.Time) {
	d.dropped, d.arrived = 0, 0
	for _, l := range w.locks {
		resetLockStats(l)
	}
	for _, wd := range w.words {
		wd.Stats = CmpxchgStats{}
	}
	for _, s := range w.seqcounts {
		s.Stats = SeqStats{}
	}
	for _, r := range w.refs {
		r.Stats = PercpuRefStats{}
	}
	for _, s := range w.srcus {
		s.Stats = SRCUStats{}
	}
	w.RCU.Stats.reset(now)
	w.lockWait = [LockWaitBuckets]uint64{}
	for _, pc := range w.counters {
		pc.Folds = 0
	}
}

func resetLockStats(l locker) {
	switch l := l.(type) {
	case *Spinlock:
		l.Stats = LockStats{}
	case *RWLock:
		l.Stats = LockStats{}
	case *RWSem:
		l.Stats = RWSemStats{}
	case *PercpuRWSem:
		l.Stats = PercpuRWSemStats{}
	}
}

// observe installs spec.Observe on the engine. The sample's slices are
// allocated once and refilled, so observing allocates nothing per sample.
func (w *World) observe(d *driver, spec RunSpec) {
	m := w.M
	var sample Sample
	if f := spec.Flood; f != nil {
		sample.Packets = make([]uint64, len(f.CPUs))
		sample.CPUs = append(sample.CPUs, f.CPUs...)
	}
	if b := spec.Batch; b != nil {
		sample.CPUs = append(sample.CPUs, b.CPU)
	}
	sample.States = make([][cpu.NumStates]sim.Time, len(sample.CPUs))
	var shared []*cacheline.Line
	for _, l := range m.Lines() {
		if !l.PerCPU {
			shared = append(shared, l)
			sample.Lines = append(sample.Lines, l.Name)
			sample.Transfers = append(sample.Transfers, make([]uint64, len(sample.CPUs)))
		}
	}
	sample.LockWait = w.lockWait[:]
	m.Observe(spec.SampleEvery, func(now sim.Time) {
		sample.Now = now
		for i := range sample.Packets {
			sample.Packets[i] = m.Cores()[spec.Flood.CPUs[i]].Completed
		}
		for i, id := range sample.CPUs {
			c := m.Cores()[id]
			for s := range cpu.State(cpu.NumStates) {
				sample.States[i][s] = 0
				for l := range m.Labels() {
					sample.States[i][s] += c.Time(cpu.Label(l), s)
				}
			}
			for j, l := range shared {
				sample.Transfers[j][i] = l.Stats.TransfersBy[id]
			}
		}
		sample.BatchOps = d.opsDone
		sample.RCUGPs = w.RCU.Stats.GracePeriods
		sample.Pending = w.RCU.Stats.Pending.Value()
		sample.GPActive, sample.GPStart = w.RCU.active, w.RCU.gpStart
		spec.Observe(sample)
	})
}
