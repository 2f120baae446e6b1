package models_test

import (
	"fmt"
	"math"
	"testing"

	"contend/cpu"
	"contend/models"
	"contend/sim"
)

// Hand-derived timelines of one synchronize_rcu on an otherwise idle
// machine, from kernel/rcu/tree.c. With Wakeup w (5 µs) and jiffy J, a call
// at jJ + x (0 < x < J) on the default callback path goes:
//
//   - call_rcu(wakeme_after_rcu) asks for nothing itself: __call_rcu_core
//     starts a grace period only past qhimark callbacks;
//   - tick j+1 on the caller's CPU (idle, but rcu_needs_cpu keeps its tick):
//     rcu_pending "Has RCU gone idle with this CPU needing another grace
//     period?" -> rcu_core -> rcu_start_this_gp -> the kthread runs w later
//     and rcu_gp_init;
//   - swait_event_idle_timeout_exclusive(..., jiffies_till_first_fqs = f)
//     expires at tick j+1+f; the kthread runs w later and its first scan
//     (dyntick_save_progress_counter) finds every CPU idle: the grace
//     period ends;
//   - tick j+2+f on the caller's CPU: rcu_core sees the end, rcu_do_batch
//     runs wakeme_after_rcu; the caller runs w later.
//
// So the call takes (2+f)J - x + w, the grace period fJ.
func idleKernel(hz int) models.Kernel {
	k := models.DefaultKernel()
	k.HZ = hz
	return k
}

// idleProfile is testProfile with n CPUs.
func idleProfile(n int) cpu.Profile {
	p := testProfile(cpu.NoJitter)
	p.CoresPerSocket = n
	return p
}

// oneSync runs a single synchronize_rcu on CPU 0 after d of work, with the
// given flood on other CPUs, and returns its latency and the grace period's.
func oneSync(t *testing.T, k models.Kernel, ncpus int, d sim.Time, f *models.Flood) (call, gp sim.Time) {
	t.Helper()
	res := syncRun(t, k, ncpus, d, f)
	if len(res.RCU.Calls) != 1 || res.RCU.Calls[0].Count != 1 || res.RCU.GracePeriods < 1 {
		t.Fatalf("calls %+v, %d grace periods; want one synchronize_rcu and a grace period", res.RCU.Calls, res.RCU.GracePeriods)
	}
	c := res.RCU.Calls[0]
	return sim.FromNanoseconds(c.MeanUs * 1e3), sim.FromNanoseconds(res.RCU.MeanGPMs * 1e6)
}

// floodProgram is packet processing in the kernel: readers of 300 ns.
func floodProgram(w *models.World) *cpu.Program {
	return &cpu.Program{Name: "rx", Steps: []cpu.Step{
		compute(w, "rx", 200*sim.Nanosecond),
		&models.RCUReadLock{W: w}, compute(w, "classify", 300*sim.Nanosecond), &models.RCUReadUnlock{W: w},
	}}
}

func wantTime(t *testing.T, what string, got, want sim.Time) {
	t.Helper()
	if got != want {
		t.Errorf("%s: %v, want %v", what, got, want)
	}
}

// A call just before a tick saves almost a jiffy over one just after: the
// tick that starts the grace period comes at once.
func TestSyncJustBeforeVersusAfterTick(t *testing.T) {
	const J = 4 * sim.Millisecond // HZ=250, f = 1
	w := 5 * sim.Microsecond
	eps := 10 * sim.Microsecond
	before, gp := oneSync(t, idleKernel(250), 4, J-eps, nil)
	wantTime(t, "call 10 µs before tick 1", before, 3*J-(J-eps)+w) // 2J + ε + w
	wantTime(t, "its grace period", gp, J)
	after, _ := oneSync(t, idleKernel(250), 4, J+eps, nil)
	wantTime(t, "call 10 µs after tick 1", after, 4*J-(J+eps)+w) // 3J - ε + w
}

// 4 CPUs versus 256: nr_cpu_ids / RCU_JIFFIES_FQS_DIV adds a jiffy to both
// FQS delays at 256, so the first scan comes a jiffy later.
func TestSyncFQSDefaultsByCPUCount(t *testing.T) {
	const J = 4 * sim.Millisecond
	w := 5 * sim.Microsecond
	x := 100 * sim.Nanosecond
	for _, tc := range []struct {
		ncpus, f int
	}{{4, 1}, {255, 1}, {256, 2}} {
		call, gp := oneSync(t, idleKernel(250), tc.ncpus, x, nil)
		wantTime(t, fmt.Sprintf("%d CPUs: call", tc.ncpus), call, sim.Time(2+tc.f)*J-x+w)
		wantTime(t, fmt.Sprintf("%d CPUs: grace period", tc.ncpus), gp, sim.Time(tc.f)*J)
	}
}

// All other CPUs busy in the kernel: they notice the grace period at the
// first tick after it starts (j+2, the same tick as the first scan, which
// finds them not idle), pass a quiescent state between packets
// (rcu_softirq_qs), and report it at the next tick, j+3. The last report
// wakes the kthread (rcu_report_qs_rsp), which ends the grace period w
// later; the caller's callback runs at tick j+4. Without softirq quiescent
// states they report only once asked urgently: jiffies_to_sched_qs is
// max(1 + 2·1, HZ/10) = 25 jiffies, so the scan at tick j+1+25 sets
// rcu_urgent_qs, the next packet boundary is a quiescent state (cond_resched)
// reported at tick j+27, and the callback runs at j+28.
func TestSyncIdleVersusBusy(t *testing.T) {
	const J = 4 * sim.Millisecond
	w := 5 * sim.Microsecond
	x := 100 * sim.Nanosecond
	busy := func() *models.Flood { return &models.Flood{CPUs: []int{1, 2, 3}} }
	idle, _ := oneSync(t, idleKernel(250), 4, x, nil)
	wantTime(t, "idle machine", idle, 3*J-x+w)
	call, gp := oneSync(t, idleKernel(250), 4, x, busy())
	wantTime(t, "busy machine: call", call, 4*J-x+w)
	wantTime(t, "busy machine: grace period", gp, 2*J)
	k := idleKernel(250)
	k.SoftirqQS = false
	call, _ = oneSync(t, k, 4, x, busy())
	wantTime(t, "busy machine without softirq quiescent states", call, 28*J-x+w)
}

// Back-to-back calls phase-lock to the tick: each starts w after the tick
// that woke the previous one, so each takes exactly (2+f) jiffies.
func TestBackToBackIdle(t *testing.T) {
	for _, tc := range []struct {
		hz    int
		perOp sim.Time
	}{
		{100, 30 * sim.Millisecond}, {250, 12 * sim.Millisecond}, {1000, 5 * sim.Millisecond},
	} {
		res := backToBack(t, idleKernel(tc.hz), 4, 20)
		if got := sim.FromNanoseconds(res.Batch.MeanOpUs * 1e3); !within(float64(got), float64(tc.perOp), 0.001) {
			t.Errorf("HZ=%d: %v an operation, want %v", tc.hz, got, tc.perOp)
		}
	}
}

func backToBack(t *testing.T, k models.Kernel, ncpus int, ops int64) *models.Result {
	t.Helper()
	w := newWorld(t, idleProfile(ncpus), 1, k)
	p := &cpu.Program{Name: "tc", Steps: []cpu.Step{compute(w, "tc", 100*sim.Nanosecond), &models.SynchronizeRCU{W: w, Label: w.M.Label("synchronize_rcu")}}}
	res, err := w.Run(models.RunSpec{Batch: &models.Batch{CPU: 0, Program: p, Ops: ops}})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// CONFIG_RCU_FAST_NO_HZ (seed 002's 5.2 at HZ=1000): the caller's idle CPU
// stops its tick until a multiple of RCU_IDLE_GP_DELAY (4) jiffies. A call
// w after tick 4m waits for tick 4m+4 to ask for the grace period, whose
// first scan is at 4m+4+3; the CPU next wakes at 4m+8, invokes the callback
// and the caller runs: 8 jiffies an operation.
func TestSyncFastNoHZ(t *testing.T) {
	k := idleKernel(1000)
	k.FastNoHZ = true
	res := backToBack(t, k, 8, 20)
	if got := sim.FromNanoseconds(res.Batch.MeanOpUs * 1e3); !within(float64(got), float64(8*sim.Millisecond), 0.001) {
		t.Errorf("%v an operation, want 8 ms", got)
	}
}

// rcu_normal_wake_from_gp: start_poll_synchronize_rcu wakes the kthread at
// once, the first scan is at the next tick (f = 1 at HZ=250) and the kthread
// completes the caller in rcu_gp_cleanup: w after the tick plus the
// caller's own wake-up. Back to back, each call ends 2w after a tick and
// the next asks within that jiffy: one jiffy an operation.
func TestSyncWakeFromGP(t *testing.T) {
	k := idleKernel(250)
	k.WakeFromGP = models.On
	const J = 4 * sim.Millisecond
	w := 5 * sim.Microsecond
	x := 100 * sim.Nanosecond
	call, gp := oneSync(t, k, 4, x, nil)
	wantTime(t, "call", call, J+2*w-x)
	wantTime(t, "grace period", gp, J-x) // kthread at x+w, scan at J+w
	res := backToBack(t, k, 4, 20)
	if got := sim.FromNanoseconds(res.Batch.MeanOpUs * 1e3); !within(float64(got), float64(J), 0.001) {
		t.Errorf("back to back: %v an operation, want %v", got, J)
	}
	// Auto (6.17) is on up to 16 CPUs, off above.
	k.WakeFromGP = models.Auto
	small, _ := oneSync(t, k, 16, x, nil)
	large, _ := oneSync(t, k, 17, x, nil)
	wantTime(t, "auto on 16 CPUs", small, J+2*w-x)
	wantTime(t, "auto on 17 CPUs", large, 3*J-x+w)
}

// synchronize_rcu_expedited: a worker is woken, IPIs the busy CPUs, each
// reports at once outside a reader, and the caller is woken: 2w + IPI,
// whatever the tick.
func TestSyncExpedited(t *testing.T) {
	k := idleKernel(250)
	k.Expedited = true
	w := 5 * sim.Microsecond
	x := 100 * sim.Nanosecond
	call, _ := oneSyncCalls(t, k, x, nil)
	wantTime(t, "idle machine (no IPI)", call, 2*w)
	call, _ = oneSyncCalls(t, k, x, &models.Flood{CPUs: []int{1}})
	if call < 2*w+k.IPI || call > 2*w+k.IPI+300*sim.Nanosecond {
		t.Errorf("busy machine: %v, want 2w + IPI (%v) plus at most the rest of a 300 ns reader", call, 2*w+k.IPI)
	}
}

// oneSyncCalls is oneSync on 4 CPUs without its checks, with the whole
// result: the call's latency and its timeline.
func oneSyncCalls(t *testing.T, k models.Kernel, d sim.Time, f *models.Flood) (sim.Time, *models.Result) {
	t.Helper()
	res := syncRun(t, k, 4, d, f)
	return sim.FromNanoseconds(res.RCU.Calls[0].MeanUs * 1e3), res
}

// syncRun runs a single synchronize_rcu on CPU 0 after d of work, with the
// given flood on other CPUs of an idle ncpus-CPU machine.
func syncRun(t *testing.T, k models.Kernel, ncpus int, d sim.Time, f *models.Flood) *models.Result {
	t.Helper()
	w := newWorld(t, idleProfile(ncpus), 1, k)
	p := &cpu.Program{Name: "tc", Steps: []cpu.Step{compute(w, "tc", d), &models.SynchronizeRCU{W: w, Label: w.M.Label("synchronize_rcu")}}}
	if f != nil {
		f.Program = floodProgram(w)
	}
	res, err := w.Run(models.RunSpec{Flood: f, Batch: &models.Batch{CPU: 0, Program: p, Ops: 1}})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// The timeline of a call adds up to its latency, phase by phase.
func TestSyncTimelinePhases(t *testing.T) {
	const J = 4 * sim.Millisecond
	w := 5 * sim.Microsecond
	x := 100 * sim.Nanosecond
	_, res := oneSyncCalls(t, idleKernel(250), x, nil)
	want := []sim.Time{J - x + w, J, J - w, w}
	if len(res.RCU.Timeline) != len(want) {
		t.Fatalf("timeline %+v", res.RCU.Timeline)
	}
	for i, p := range res.RCU.Timeline {
		wantTime(t, p.Phase, sim.FromNanoseconds(p.MeanUs*1e3), want[i])
	}
}

// sweepRun runs calls synchronize_rcu on CPU 0 of an idle ncpus machine,
// each after a uniformly random 0..1 jiffy of work, so calls land at every
// phase of the tick; it returns their latency distribution.
func sweepRun(t *testing.T, k models.Kernel, ncpus int, calls int64) models.RCUCallResult {
	t.Helper()
	w := newWorld(t, idleProfile(ncpus), 7, k)
	J := sim.Second / sim.Time(k.HZ)
	p := &cpu.Program{Name: "tc", Steps: []cpu.Step{
		&randCompute{r: sim.NewRand(7, 1), label: w.M.Label("tc"), short: J, long: J, longOneInN: 1},
		&models.SynchronizeRCU{W: w, Label: w.M.Label("synchronize_rcu")},
	}}
	res, err := w.Run(models.RunSpec{Batch: &models.Batch{CPU: 0, Program: p, Ops: calls}, Limit: 1000 * sim.Second})
	if err != nil {
		t.Fatal(err)
	}
	return res.RCU.Calls[0]
}

// The idle-machine sweep: over HZ and CPU counts, synchronize_rcu on the
// callback path takes (2+f)J - x + w for a call x into its jiffy (see
// idleKernel), so min (1+f)J + w, mean (1.5+f)J + w, max (2+f)J + w, with
// f = RCU_JIFFIES_TILL_FORCE_QS + nr_cpu_ids/256. The log is the table
// (go test ./models -run TestIdleSyncSweep -v); rcu_normal_wake_from_gp
// (6.17's default up to 16 CPUs) is shown next to it.
func TestIdleSyncSweep(t *testing.T) {
	const calls = 400
	w := 5 * sim.Microsecond
	ms := func(us float64) float64 { return us / 1e3 }
	t.Logf("%4s %5s %2s | %-26s | %-26s", "HZ", "CPUs", "f", "callback path min/mean/max ms", "wake_from_gp min/mean/max ms")
	for _, hz := range []int{100, 250, 1000} {
		for _, n := range []int{4, 16, 64, 128, 256} {
			k := idleKernel(hz)
			J := sim.Second / sim.Time(hz)
			f := sim.Time(1 + b2i(hz > 250) + b2i(hz > 500) + n/256)
			c := sweepRun(t, k, n, calls)
			lo, mean, hi := (1+f)*J+w, (3+2*f)*J/2+w, (2+f)*J+w
			us := func(d sim.Time) float64 { return d.Nanoseconds() / 1e3 }
			if c.MinUs < us(lo)-1e-3 || c.MaxUs > us(hi)+1e-3 || c.MinUs > us(lo+J/20) || c.MaxUs < us(hi-J/20) || !within(c.MeanUs, us(mean), 0.03) {
				t.Errorf("HZ=%d, %d CPUs: min/mean/max %.3f/%.3f/%.3f ms; want within [%.3f, %.3f] ms, mean %.3f", hz, n, ms(c.MinUs), ms(c.MeanUs), ms(c.MaxUs), ms(us(lo)), ms(us(hi)), ms(us(mean)))
			}
			k.WakeFromGP = models.On
			g := sweepRun(t, k, n, calls)
			t.Logf("%4d %5d %2d | %7.3f %7.3f %7.3f     | %7.3f %7.3f %7.3f", hz, n, f, ms(c.MinUs), ms(c.MeanUs), ms(c.MaxUs), ms(g.MinUs), ms(g.MeanUs), ms(g.MaxUs))
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// On the timer wheel the kthread's first-scan timeout, armed within jiffy
// j+1, fires at the tick of j+3 instead of j+2 (wheelFires): the grace
// period and the call are a jiffy longer than idleKernel's timeline.
func TestSyncTimerWheel(t *testing.T) {
	const J = 4 * sim.Millisecond
	w := 5 * sim.Microsecond
	x := 100 * sim.Nanosecond
	k := idleKernel(250)
	k.TimerWheel = true
	call, gp := oneSync(t, k, 4, x, nil)
	wantTime(t, "call", call, 4*J-x+w)
	wantTime(t, "grace period", gp, 2*J)
}

// The rcu_node walks on 17 CPUs (a root over two leaves): the scan locks
// both leaves, rcu_gp_cleanup all three nodes, each a same-socket transfer;
// rcu_gp_init's five locks come before the timer is armed, in the same
// jiffy. The grace period is J + 5 transfers; the caller still runs at the
// tick after.
func TestSyncNodeWalk(t *testing.T) {
	const J = 4 * sim.Millisecond
	w := 5 * sim.Microsecond
	x := 100 * sim.Nanosecond
	k := idleKernel(250)
	k.NodeWalk = true
	call, gp := oneSync(t, k, 17, x, nil)
	wantTime(t, "grace period", gp, J+5*idleProfile(17).SameSocket)
	wantTime(t, "call", call, 3*J-x+w)
}

// Idle CPUs' own wake-ups: each of n CPUs is out of idle at the first scan
// with probability p = λb/(1+λb), and a grace period ends there only if
// none is; otherwise the next scan, a jiffy later (f = 1 at HZ=250), ends
// it. The mean grace period is J·(2 - (1-p)^n).
func TestSyncIdleWakeups(t *testing.T) {
	const J = 4 * sim.Millisecond
	k := idleKernel(250)
	k.IdleWakeups = 1000
	k.IdleWakeupTime = 50 * sim.Microsecond
	const n = 16
	lb := k.IdleWakeups * k.IdleWakeupTime.Seconds()
	p := lb / (1 + lb)
	w := newWorld(t, idleProfile(n), 7, k)
	prog := &cpu.Program{Name: "tc", Steps: []cpu.Step{
		&randCompute{r: sim.NewRand(7, 1), label: w.M.Label("tc"), short: J, long: J, longOneInN: 1},
		&models.SynchronizeRCU{W: w, Label: w.M.Label("synchronize_rcu")},
	}}
	res, err := w.Run(models.RunSpec{Batch: &models.Batch{CPU: 0, Program: prog, Ops: 600}, Limit: 1000 * sim.Second})
	if err != nil {
		t.Fatal(err)
	}
	want := float64(J) * (2 - math.Pow(1-p, n))
	got := res.RCU.GPLatency.MeanUs * float64(sim.Microsecond)
	if math.Abs(got-want) > 0.05*float64(J) {
		t.Errorf("mean grace period %.3f ms, want %.3f ms (p = %.3f)", got/float64(sim.Millisecond), want/float64(sim.Millisecond), p)
	}
	if res.RCU.GPLatency.MinUs != float64(J)/1e6 || res.RCU.GPLatency.MaxUs != 2*float64(J)/1e6 {
		t.Errorf("grace periods from %.3f to %.3f ms, want 4 and 8", res.RCU.GPLatency.MinUs/1e3, res.RCU.GPLatency.MaxUs/1e3)
	}
}

// kfree_rcu_work's kworker takes its CPU for the batch's free cost: over a
// run, the time charged to it is the cost of one call times the calls whose
// objects were freed (FreedBytes over the bytes a call frees), whether the
// objects go one callback each (5.2) or in batches (5.6 on).
func TestKfreeWorkerCost(t *testing.T) {
	const per = 20 * sim.Microsecond
	for _, mode := range []models.KfreeMode{models.KfreePerObject, models.KfreeBatch} {
		k := idleKernel(250)
		k.Kfree = mode
		w := newWorld(t, idleProfile(2), 1, k)
		prog := &cpu.Program{Name: "kfree", Steps: []cpu.Step{
			&models.RCUSoftirq{W: w},
			compute(w, "loop", 100*sim.Microsecond),
			&models.CallRCU{W: w, Bytes: 64, Kfree: true, FreeWork: per, FreeLabel: w.M.Label("kfree_rcu_work")},
		}}
		res, err := w.Run(models.RunSpec{Batch: &models.Batch{CPU: 0, Program: prog, Ops: 2000}, Limit: 100 * sim.Second})
		if err != nil {
			t.Fatal(err)
		}
		freed := res.RCU.FreedBytes / 64
		var ns float64
		for _, l := range res.Profile {
			if l.Label == "kfree_rcu_work" {
				ns = l.NsPerPacket * float64(res.Batch.Ops)
			}
		}
		if freed < 1000 || math.Abs(ns-float64(freed)*per.Nanoseconds()) > per.Nanoseconds()/2 {
			t.Errorf("kfree mode %d: %.0f ns in kfree_rcu_work for %d calls freed, want %v each", mode, ns, freed, per)
		}
	}
}

// Offloaded callbacks (CONFIG_RCU_NOCB_CPU): a call x into jiffy 0 wakes
// rcuog (w), which asks for the grace period; the kthread runs w later and
// its first scan, at tick 1 plus w, ends it; rcu_gp_cleanup wakes rcuog,
// rcuog the caller CPU's rcuop (2w), whose callback wakes the caller (w).
// No tick of the caller's CPU is waited for: J + 4w - x, where the tick
// path takes 3J - x + w.
func TestSyncNOCB(t *testing.T) {
	const J = 4 * sim.Millisecond
	w := 5 * sim.Microsecond
	x := 100 * sim.Nanosecond
	k := idleKernel(250)
	k.NOCB = true
	call, gp := oneSync(t, k, 4, x, nil)
	wantTime(t, "call", call, J+4*w-x)
	wantTime(t, "grace period", gp, J-x-w)
}

// Past nocb_nobypass_lim_per_jiffy (16·1000/HZ = 64 at HZ=250) call_rcu()s
// in one jiffy a CPU's callbacks go to its bypass list. 100 calls within
// jiffy 0: the first 63 wake rcuog and make the grace period that ends at
// the first scan (J + w); the other 37 wait for rcuog's deferred wake-up at
// tick 2, whose grace period ends at tick 3. So the median call is freed
// about J after it was made, the 90th percentile about 3J.
func TestNOCBBypass(t *testing.T) {
	const J = 4 * sim.Millisecond
	k := idleKernel(250)
	k.NOCB = true
	w := newWorld(t, idleProfile(2), 1, k)
	prog := &cpu.Program{Name: "burst", Steps: []cpu.Step{
		&burstStep{label: w.M.Label("loop"), n: 100, rest: &models.SleepStep{W: w, D: 20 * J, Label: w.M.Label("sleep")}},
		&models.CallRCU{W: w, Bytes: 8},
	}}
	res, err := w.Run(models.RunSpec{Batch: &models.Batch{CPU: 0, Program: prog, Ops: 101}, Limit: sim.Second})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.RCU.Calls) != 1 {
		t.Fatalf("calls %+v, %d grace periods, %d bytes freed, batch %+v", res.RCU.Calls, res.RCU.GracePeriods, res.RCU.FreedBytes, res.Batch)
	}
	c := res.RCU.Calls[0]
	ms := func(us float64) float64 { return us / 1e3 }
	if math.Abs(ms(c.P50Us)-ms(float64(J)/1e6)) > 0.1 || math.Abs(ms(c.P90Us)-3*ms(float64(J)/1e6)) > 0.1 {
		t.Errorf("call_rcu p50 %.3f ms, p90 %.3f ms; want about 4 and 12", ms(c.P50Us), ms(c.P90Us))
	}
}

// burstStep computes 1 ns its first n times and then sleeps in rest: n
// calls in a burst, then an idle CPU while their grace periods end.
type burstStep struct {
	label cpu.Label
	n     int
	rest  cpu.Step
}

func (s *burstStep) Exec(c *cpu.Core) (cpu.Outcome, sim.Time) {
	if s.n--; s.n < 0 {
		return s.rest.Exec(c)
	}
	return cpu.Next, c.Compute(s.label, sim.Nanosecond)
}

// The grace-period kthread on a CPU held by a kernel task: woken at tick 1
// (J) to start the grace period, it runs only at that task's next
// operation boundary, at 4.2 ms for operations of 0.7 ms, so the start
// phase is 0.2 ms longer than with the kthread on a CPU of its own.
func TestKthreadWaitsForItsCPU(t *testing.T) {
	start := func(onCPU bool) float64 {
		k := idleKernel(250)
		k.KthreadCPU = onCPU
		w := newWorld(t, idleProfile(4), 1, k)
		p := &cpu.Program{Name: "tc", Steps: []cpu.Step{compute(w, "tc", 100*sim.Nanosecond), &models.SynchronizeRCU{W: w, Label: w.M.Label("synchronize_rcu")}}}
		f := &models.Flood{CPUs: []int{1, 2, 3}, Program: &cpu.Program{Name: "rx", Steps: []cpu.Step{compute(w, "rx", 700*sim.Microsecond)}}}
		res, err := w.Run(models.RunSpec{Flood: f, Batch: &models.Batch{CPU: 0, Program: p, Ops: 1}})
		if err != nil {
			t.Fatal(err)
		}
		return res.RCU.Timeline[0].MeanUs
	}
	if d := start(true) - start(false); math.Abs(d-200) > 0.01 {
		t.Errorf("the kthread on a busy CPU starts the grace period %.3f µs later, want 200", d)
	}
}

// skew_tick=1 on 4 CPUs: CPU 3's tick comes 3·(J/2)/4 = 1.5 ms after each
// boundary. A call on CPU 3 at x: its tick at 1.5 ms, in the same jiffy,
// asks for the grace period, the kthread's timeout (on an idle CPU, at the
// boundary) scans at J + w, and CPU 3's tick at J + 1.5 ms runs the
// callback: the call takes J + 1.5 ms + w - x, where unskewed it is
// 3J + w - x.
func TestSyncSkewTick(t *testing.T) {
	const J = 4 * sim.Millisecond
	w := 5 * sim.Microsecond
	x := 100 * sim.Nanosecond
	for _, skew := range []bool{false, true} {
		k := idleKernel(250)
		k.SkewTick = skew
		wd := newWorld(t, idleProfile(4), 1, k)
		p := &cpu.Program{Name: "tc", Steps: []cpu.Step{compute(wd, "tc", x), &models.SynchronizeRCU{W: wd, Label: wd.M.Label("synchronize_rcu")}}}
		res, err := wd.Run(models.RunSpec{Batch: &models.Batch{CPU: 3, Program: p, Ops: 1}})
		if err != nil {
			t.Fatal(err)
		}
		want := 3*J + w - x
		if skew {
			want = J + 1500*sim.Microsecond + w - x
		}
		wantTime(t, fmt.Sprintf("skew_tick=%v: call on CPU 3", skew), sim.FromNanoseconds(res.RCU.Calls[0].MeanUs*1e3), want)
	}
}

// With the hierarchical timer pull model (6.9 on) the kthread's FQS timeout
// fires on a CPU whose tick runs, here the caller's, which keeps its tick
// for its callback, so the kthread's own CPU (the last, otherwise idle)
// runs the first scan without having reported the quiescent state it passed
// when the kthread slept: it is not idle then, and the grace period waits
// for the second scan, jiffies_till_next_fqs later. Reported by rcu_gp_init
// itself (KthreadQS), it ends at the first scan, as before the pull model.
// With rcu_normal_wake_from_gp the caller has no callback, no CPU ticks, and
// the kthread's CPU expires its own timeout, whose tick reports it.
func TestSyncKthreadCPUHoldsOutUnderTimerPull(t *testing.T) {
	const J = 4 * sim.Millisecond // HZ=250: one jiffy to the first scan and between scans
	x := 100 * sim.Nanosecond
	run := func(pull, fixed bool, wake models.Switch) (gp sim.Time, scans uint64) {
		k := idleKernel(250)
		k.KthreadCPU, k.TimerPull, k.KthreadQS, k.WakeFromGP = true, pull, fixed, wake
		res := syncRun(t, k, 4, x, nil)
		return sim.FromNanoseconds(res.RCU.MeanGPMs * 1e6), res.RCU.FQSScans
	}
	base, baseScans := run(false, false, models.Off)
	pull, pullScans := run(true, false, models.Off)
	fixed, fixedScans := run(true, true, models.Off)
	if baseScans != 1 || pullScans != 2 || fixedScans != 1 {
		t.Errorf("FQS scans: %d before the pull model, %d with it, %d with rcu_gp_init's report; want 1, 2, 1", baseScans, pullScans, fixedScans)
	}
	wantTime(t, "grace period under the pull model", pull, base+J)
	wantTime(t, "with rcu_gp_init's report", fixed, base)
	wakeBase, _ := run(false, false, models.On)
	wakePull, wakeScans := run(true, false, models.On)
	if wakeScans != 1 {
		t.Errorf("rcu_normal_wake_from_gp under the pull model: %d scans, want 1", wakeScans)
	}
	wantTime(t, "rcu_normal_wake_from_gp under the pull model", wakePull, wakeBase)
}
