package models_test

import (
	"fmt"
	"slices"
	"testing"

	"contend/cpu"
	"contend/models"
	"contend/sim"
)

// rcuMonitor is the reference for RCU's guarantee, kept from probes next to
// the read-side primitives and independent of the model's own state: a grace
// period, a synchronize_rcu and a deferred free each wait for every reader
// that began before them.
type rcuMonitor struct {
	w    *models.World
	open []sim.Time // start of the reader each CPU is in, or -1
	err  error

	callAt   sim.Time   // synchronize_rcu in progress: when it was called
	snapshot []sim.Time // readers open at that call
	syncs    int
	waited   int // synchronize_rcu calls that found a reader running

	enqueued  []sim.Time // call_rcu times, one byte each, in order
	readerRan []bool     // a reader was running at that call_rcu
	freed     int64      // callbacks seen freed
	gpStart   sim.Time   // latest start of an ended grace period
	gps       int
	deferred  int // frees of objects a reader might still have seen at call_rcu
}

func newRCUMonitor(w *models.World) *rcuMonitor {
	n := w.M.NumCPUs()
	m := &rcuMonitor{w: w, open: make([]sim.Time, n), snapshot: make([]sim.Time, n), gpStart: -1}
	for i := range m.open {
		m.open[i] = -1
	}
	w.RCU.Trace = m.gpEnded
	return m
}

func (m *rcuMonitor) fail(format string, args ...any) {
	if m.err == nil {
		m.err = fmt.Errorf(format, args...)
	}
}

func (m *rcuMonitor) enter(c *cpu.Core) { m.open[c.ID] = c.Now(); m.checkFrees(c.Now()) }
func (m *rcuMonitor) exit(c *cpu.Core)  { m.open[c.ID] = -1; m.checkFrees(c.Now()) }

// readerBefore returns a CPU inside a reader that began before t, or -1.
func (m *rcuMonitor) readerBefore(t sim.Time) int {
	for i, from := range m.open {
		if from >= 0 && from < t {
			return i
		}
	}
	return -1
}

func (m *rcuMonitor) gpEnded(gp int64, start, end sim.Time) {
	if i := m.readerBefore(start); i >= 0 {
		m.fail("grace period %d (%v to %v) ended with cpu %d in a reader begun at %v", gp, start, end, i, m.open[i])
	}
	m.gpStart = max(m.gpStart, start)
	m.gps++
	m.checkFrees(end)
}

func (m *rcuMonitor) beforeSync(c *cpu.Core) {
	m.callAt = c.Now()
	copy(m.snapshot, m.open)
	if slices.ContainsFunc(m.snapshot, func(t sim.Time) bool { return t >= 0 }) {
		m.waited++
	}
}

func (m *rcuMonitor) afterSync(c *cpu.Core) {
	m.syncs++
	for i, from := range m.snapshot {
		if from >= 0 && m.open[i] == from {
			m.fail("synchronize_rcu called at %v returned at %v with cpu %d still in the reader it began at %v", m.callAt, c.Now(), i, from)
		}
		// The model's own view must agree.
		if in, since := m.w.RCU.InReader(i); in && since <= m.callAt {
			m.fail("synchronize_rcu called at %v returned at %v; RCU.InReader(%d) says inside since %v", m.callAt, c.Now(), i, since)
		}
	}
}

func (m *rcuMonitor) callRCU(c *cpu.Core) {
	m.enqueued = append(m.enqueued, c.Now())
	m.readerRan = append(m.readerRan, m.readerBefore(c.Now()+1) >= 0)
	m.checkFrees(c.Now())
}

// checkFrees looks at what has been freed by now (RCU.Stats count from the
// start: the runs here have no warm-up): every object freed must
// have been queued before a grace period that has ended began, and no reader
// that began before its call_rcu may still run.
func (m *rcuMonitor) checkFrees(now sim.Time) {
	freed := m.w.RCU.Stats.FreedBytes
	if freed > int64(len(m.enqueued)) {
		m.fail("at %v %d bytes freed of %d queued", now, freed, len(m.enqueued))
		return
	}
	// A call_rcu in the same instant as the grace period's start may come
	// first (the kthread runs after it), so it counts as before.
	covered, _ := slices.BinarySearch(m.enqueued, m.gpStart+1)
	if freed > int64(covered) {
		m.fail("at %v %d callbacks freed, but only %d were queued before the latest ended grace period began (%v)", now, freed, covered, m.gpStart)
	}
	for k := m.freed; k < freed; k++ {
		at := m.enqueued[k]
		if i := m.readerBefore(at); i >= 0 {
			m.fail("call_rcu at %v freed by %v while cpu %d is in the reader it began at %v", at, now, i, m.open[i])
		}
		if m.readerRan[k] {
			m.deferred++
		}
	}
	m.freed = freed
}

// randCompute is compute whose length is drawn from the test's source: a
// reader or a gap between readers, mostly short, now and then long enough to
// hold a grace period up.
type randCompute struct {
	r          *sim.Rand
	label      cpu.Label
	short      sim.Time
	long       sim.Time
	longOneInN int
}

func (s *randCompute) Exec(c *cpu.Core) (cpu.Outcome, sim.Time) {
	r := s.r
	d := sim.Time(r.IntN(int(s.short))) + 1
	if r.IntN(s.longOneInN) == 0 {
		d = sim.Time(r.IntN(int(s.long))) + 1
	}
	return cpu.Next, c.Compute(s.label, d)
}

// RCU's guarantee under load, with readers on CPUs 1..3 and a batch on CPU 0
// that calls synchronize_rcu, call_rcu or queue_rcu_work repeatedly. The
// readers are mostly a few µs, one in 40 is up to 6 ms: longer than a jiffy at
// either HZ, so grace periods must wait for them.
func TestRCUSafety(t *testing.T) {
	kernels := map[string]func(*models.Kernel){
		"hz250":        func(*models.Kernel) {},
		"hz1000":       func(k *models.Kernel) { k.HZ = 1000 },
		"no-softirq":   func(k *models.Kernel) { k.SoftirqQS = false },
		"expedited":    func(k *models.Kernel) { k.Expedited = true },
		"fast-no-hz":   func(k *models.Kernel) { k.HZ, k.FastNoHZ = 1000, true },
		"wake-from-gp": func(k *models.Kernel) { k.WakeFromGP = models.On },
		"rcuc":         func(k *models.Kernel) { k.RCUC = true },
		"lazy":         func(k *models.Kernel) { k.Lazy, k.LazyFlush = true, 20*sim.Millisecond },
		"kfree-5.2":    func(k *models.Kernel) { k.Kfree = models.KfreePerObject },
	}
	modes := []string{"synchronize_rcu", "call_rcu", "queue_rcu_work", "kfree_rcu"}
	for _, kname := range []string{"hz250", "hz1000", "no-softirq", "expedited", "fast-no-hz", "wake-from-gp", "rcuc", "lazy", "kfree-5.2"} {
		for _, mode := range modes {
			for _, openLoop := range []bool{false, true} {
				for seed := uint64(1); seed <= 3; seed++ {
					name := fmt.Sprintf("%s/%s/open=%v/seed=%d", kname, mode, openLoop, seed)
					t.Run(name, func(t *testing.T) {
						k := models.DefaultKernel()
						kernels[kname](&k)
						checkRCUSafety(t, k, mode, openLoop, seed)
					})
				}
			}
		}
	}
}

func checkRCUSafety(t *testing.T, k models.Kernel, mode string, openLoop bool, seed uint64) {
	w := newWorld(t, testProfile(cpu.NoJitter), seed, k)
	mon := newRCUMonitor(w)
	r := sim.NewRand(seed, 1)
	readers := &cpu.Program{Name: "reader", Steps: []cpu.Step{
		&models.RCUReadLock{W: w},
		probe(mon.enter),
		&randCompute{r: r, label: w.M.Label("reader"), short: 5 * sim.Microsecond, long: 6 * sim.Millisecond, longOneInN: 40},
		probe(mon.exit),
		&models.RCUReadUnlock{W: w},
		&randCompute{r: r, label: w.M.Label("rx"), short: 5 * sim.Microsecond, long: sim.Microsecond, longOneInN: 1},
	}}
	ops := int64(12)
	steps := []cpu.Step{compute(w, "tc", 2*sim.Microsecond)}
	switch mode {
	case "synchronize_rcu":
		steps = append(steps, probe(mon.beforeSync), &models.SynchronizeRCU{W: w, Label: w.M.Label("synchronize_rcu")}, probe(mon.afterSync))
	default:
		// 40 ms of 2 µs inserts: several grace periods. Without softirq
		// quiescent states busy readers report only when asked urgently,
		// after JiffiesToSchedQS (HZ/10 jiffies, 100 ms): run for 300 ms.
		ops = 20000
		if !k.SoftirqQS {
			ops = 150000
		}
		steps = append(steps, probe(mon.callRCU), &models.CallRCU{W: w, Bytes: 1, Work: mode == "queue_rcu_work", Kfree: mode == "kfree_rcu"})
	}
	f := &models.Flood{CPUs: []int{1, 2, 3}, Program: readers}
	if openLoop {
		f.Rate, f.Ring = 100e3, 16 // about 1 packet in 10 µs of work: idle half the time
	}
	spec := models.RunSpec{
		Flood: f,
		Batch: &models.Batch{CPU: 0, Program: &cpu.Program{Name: "tc", Steps: steps}, Ops: ops},
		Limit: 30 * sim.Second,
	}
	res, err := w.Run(spec)
	if err != nil {
		t.Fatal(err)
	}
	if mon.err != nil {
		t.Fatal(mon.err)
	}
	t.Logf("%d ops in %.1f ms; %d grace periods, %d synchronize_rcu (%d with readers running), %d frees (%d queued while a reader ran), GP mean %.2f ms max %.2f ms",
		res.Batch.Ops, res.Batch.Seconds*1e3, mon.gps, mon.syncs, mon.waited, mon.freed, mon.deferred, res.RCU.MeanGPMs, res.RCU.MaxGPMs)
	// The checks above must have had something to check.
	switch mode {
	case "synchronize_rcu":
		if mon.syncs != int(ops) || mon.waited == 0 {
			t.Errorf("%d synchronize_rcu returned, %d of them with readers running; want %d, some with readers", mon.syncs, mon.waited, ops)
		}
	default:
		if mon.deferred == 0 || mon.gps == 0 {
			t.Errorf("%d frees (%d queued while a reader ran) after %d grace periods; want some of each", mon.freed, mon.deferred, mon.gps)
		}
	}
}

// The monitor must be able to fail: a "synchronize_rcu" that returns at once
// leaves a reader running.
func TestRCUMonitorCatchesEarlyReturn(t *testing.T) {
	w := newWorld(t, testProfile(cpu.NoJitter), 1, models.DefaultKernel())
	mon := newRCUMonitor(w)
	readers := &cpu.Program{Name: "reader", Steps: []cpu.Step{
		&models.RCUReadLock{W: w}, probe(mon.enter), compute(w, "reader", 50*sim.Microsecond), probe(mon.exit), &models.RCUReadUnlock{W: w},
	}}
	tc := &cpu.Program{Name: "tc", Steps: []cpu.Step{compute(w, "tc", sim.Microsecond), probe(mon.beforeSync), compute(w, "fake", sim.Microsecond), probe(mon.afterSync)}}
	if _, err := w.Run(models.RunSpec{Flood: &models.Flood{CPUs: []int{1}, Program: readers}, Batch: &models.Batch{CPU: 0, Program: tc, Ops: 5}}); err != nil {
		t.Fatal(err)
	}
	if mon.err == nil {
		t.Fatal("a synchronize_rcu that does not wait went unnoticed")
	}
}

// Seed 002: a batch of filter inserts that each wait for a grace period runs
// at milliseconds an insert with the CPU idle; deferring the free with
// call_rcu brings it back to the insert's own cost, on-CPU, at the price of
// memory waiting to be freed.
func TestSynchronizeVersusCallRCU(t *testing.T) {
	run := func(step func(w *models.World) cpu.Step, ops int64) *models.Result {
		w := newWorld(t, testProfile(cpu.NoJitter), 1, models.DefaultKernel())
		p := &cpu.Program{Name: "tc", Steps: []cpu.Step{compute(w, "tc_new_tfilter", 2*sim.Microsecond), step(w)}}
		res, err := w.Run(models.RunSpec{Batch: &models.Batch{CPU: 0, Program: p, Ops: ops}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	sync := run(func(w *models.World) cpu.Step {
		return &models.SynchronizeRCU{W: w, Label: w.M.Label("synchronize_rcu")}
	}, 20)
	call := run(func(w *models.World) cpu.Step { return &models.CallRCU{W: w, Bytes: 512} }, 10000)
	t.Logf("synchronize_rcu: %.1f µs/op, %.2f%% CPU, off-CPU %v", sync.Batch.MeanOpUs, 100*sync.Batch.CPUUtil, sync.Batch.OffCPU)
	t.Logf("call_rcu:        %.2f µs/op, %.2f%% CPU, %.0f bytes pending at most, %d freed", call.Batch.MeanOpUs, 100*call.Batch.CPUUtil, call.RCU.PendingBytesMax, call.RCU.FreedBytes)

	// synchronize_rcu: the three jiffies (12 ms) of TestBackToBackIdle, 2 µs
	// of it on-CPU.
	if !within(sync.Batch.MeanOpUs, 12000, 0.01) || sync.Batch.CPUUtil >= 0.1 {
		t.Errorf("synchronize_rcu: %.1f µs an op at %.3f CPU; want 12 ms at under 10%%", sync.Batch.MeanOpUs, sync.Batch.CPUUtil)
	}
	if len(sync.Batch.OffCPU) == 0 || sync.Batch.OffCPU[0].Label != "synchronize_rcu" {
		t.Errorf("off-CPU time %v; want it charged to synchronize_rcu", sync.Batch.OffCPU)
	}
	// call_rcu: the insert's 2 µs and nothing else on the caller.
	if !within(call.Batch.MeanOpUs, 2, 0.01) || call.Batch.CPUUtil <= 0.9 {
		t.Errorf("call_rcu: %.2f µs an op at %.3f CPU; want 2 µs at over 90%%", call.Batch.MeanOpUs, call.Batch.CPUUtil)
	}
	// 20 ms of inserts at 512 bytes each 2 µs: a grace period (a jiffy or
	// two, 4–8 ms) holds thousands of them.
	if call.RCU.PendingBytesMax < 512*1000 || call.RCU.FreedBytes <= 0 || call.RCU.FreedBytes > 512*10000 {
		t.Errorf("call_rcu: %.0f bytes pending at most, %d freed; want over 512 kB pending and some freed", call.RCU.PendingBytesMax, call.RCU.FreedBytes)
	}
}
