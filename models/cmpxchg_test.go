package models_test

import (
	"fmt"
	"testing"

	"contend/cacheline"
	"contend/cpu"
	"contend/models"
	"contend/sim"
)

// cmpxchgMonitor is the naive reference for a word's cmpxchg loops: it
// replays the trace in the order things happened at the line and holds that
// a cmpxchg fails exactly when another CPU's cmpxchg succeeded since this
// CPU took the value it expects (READ_ONCE, or its own failed cmpxchg).
type cmpxchgMonitor struct {
	changes  int         // successes so far
	readAt   map[int]int // each CPU's changes count when it took its value
	ok, fail int
	err      error
}

func (m *cmpxchgMonitor) event(ev models.CmpxchgEvent) {
	if ev.Read {
		m.readAt[ev.CPU] = m.changes
		return
	}
	changed := m.changes != m.readAt[ev.CPU]
	if ev.OK == changed && m.err == nil {
		m.err = fmt.Errorf("at %v cpu %d's cmpxchg succeeded=%v, but %d changes by other CPUs came since its read", ev.At, ev.CPU, ev.OK, m.changes-m.readAt[ev.CPU])
	}
	if ev.OK {
		m.changes++
		m.ok++
	} else {
		m.fail++
	}
}

// A cmpxchg fails exactly when another CPU changed the word in between,
// over seeds, CPU counts and jitter; both outcomes occur, and the word's
// count is the successes'.
func TestCmpxchgFailsExactlyWhenChanged(t *testing.T) {
	for _, tc := range []struct {
		cpus   int
		jitter cpu.Jitter
		seed   uint64
		relax  bool
	}{{2, cpu.NoJitter, 1, false}, {4, cpu.UniformJitter, 2, false}, {8, cpu.ExponentialJitter, 3, false}, {16, cpu.UniformJitter, 4, false},
		{4, cpu.UniformJitter, 5, true}, {16, cpu.ExponentialJitter, 6, true}} {
		t.Run(fmt.Sprintf("%dcpus-relax=%v", tc.cpus, tc.relax), func(t *testing.T) {
			w := newWorld(t, testProfile(tc.jitter), tc.seed, models.DefaultKernel())
			wd := w.NewWord("refs", newLine(t, w, "refs", false), nil)
			mon := &cmpxchgMonitor{readAt: map[int]int{}}
			wd.Trace = mon.event
			p := &cpu.Program{Name: "inc", Steps: []cpu.Step{
				compute(w, "work", 30*sim.Nanosecond),
				&models.CmpxchgStep{W: wd, Delta: 1, Relax: tc.relax, Label: w.M.Label("cmpxchg")},
			}}
			flood(t, w, p, tc.cpus, 0, 20*sim.Microsecond)
			if mon.err != nil {
				t.Fatal(mon.err)
			}
			if mon.ok == 0 || (tc.cpus > 2 && mon.fail == 0) {
				t.Fatalf("%d successes, %d failures: the monitor saw too little to judge", mon.ok, mon.fail)
			}
			if wd.Count != int64(mon.ok) {
				t.Errorf("count %d after %d successful increments", wd.Count, mon.ok)
			}
		})
	}
}

// A cmpxchg that fails takes the line all the same, and its retry, right
// behind it, finds the line still there in the owner's window however many
// CPUs queue for it: under contention a loop costs about one transfer of
// the line a success, not one a try. With the window one slot a line, the
// queue behind each CPU's request took it away, every retry queued again
// and failed again: n CPUs paid n transfers a success.
func TestCmpxchgRetryKeepsTheLine(t *testing.T) {
	for _, n := range []int{4, 8, 16} {
		p := testProfile(cpu.UniformJitter)
		p.CV, p.Window = cpu.DefaultCV, 20*sim.Nanosecond
		w := newWorld(t, p, 5, models.DefaultKernel())
		wd := w.NewWord("refs", newLine(t, w, "refs", false), nil)
		prog := &cpu.Program{Name: "inc", Steps: []cpu.Step{
			compute(w, "work", 100*sim.Nanosecond),
			&models.CmpxchgStep{W: wd, Delta: 1, Label: w.M.Label("cmpxchg")},
		}}
		res := flood(t, w, prog, n, 5*sim.Microsecond, 50*sim.Microsecond)
		st := res.Cmpxchg[0]
		ok := st.Attempts - st.Failures
		var transfers uint64
		for _, l := range res.Lines {
			if l.Name == "refs" {
				transfers = l.Transfers
			}
		}
		if ok == 0 {
			t.Fatalf("%d cpus: no cmpxchg succeeded", n)
		}
		per := float64(transfers) / float64(ok)
		t.Logf("%d cpus: %.2f transfers a success (%d tries, %d failed)", n, per, st.Attempts, st.Failures)
		if per > 2.5 {
			t.Errorf("%d cpus: %.2f transfers of the word's line a success (%d tries, %d failed), want at most 2.5: a failed cmpxchg's retry lost the line", n, per, st.Attempts, st.Failures)
		}
	}
}

// The monitor itself catches a cmpxchg that succeeds over a change.
func TestCmpxchgMonitorCatchesStaleSuccess(t *testing.T) {
	mon := &cmpxchgMonitor{readAt: map[int]int{}}
	for _, ev := range []models.CmpxchgEvent{{CPU: 0, Read: true}, {CPU: 1, Read: true}, {CPU: 1, OK: true}, {CPU: 0, OK: true}} {
		mon.event(ev)
	}
	if mon.err == nil {
		t.Fatal("cpu 0 succeeded over cpu 1's change and the monitor said nothing")
	}
}

// With a retry limit, a loop runs its fallback exactly when that many
// cmpxchgs in a row failed: the fallback's own step counts the runs.
func TestCmpxchgRetriesRunOut(t *testing.T) {
	w := newWorld(t, testProfile(cpu.UniformJitter), 7, models.DefaultKernel())
	wd := w.NewWord("refs", newLine(t, w, "refs", false), nil)
	const retries = 2
	runs, streak := 0, map[int]int{}
	wd.Trace = func(ev models.CmpxchgEvent) {
		switch {
		case !ev.Read && ev.OK:
			streak[ev.CPU] = 0
		case !ev.Read:
			streak[ev.CPU]++
		}
	}
	want := 0
	p := &cpu.Program{Name: "inc", Steps: []cpu.Step{
		compute(w, "work", 5*sim.Nanosecond),
		&models.CmpxchgStep{W: wd, Delta: 1, Retries: retries, Fallback: 1, Label: w.M.Label("cmpxchg")},
		probe(func(c *cpu.Core) {
			runs++
			if streak[c.ID] == retries {
				want++
			}
			streak[c.ID] = 0
		}),
	}}
	res := flood(t, w, p, 8, 0, 20*sim.Microsecond)
	if runs == 0 || runs != want {
		t.Fatalf("the fallback ran %d times, after %d runs of %d failures in a row", runs, want, retries)
	}
	if got := res.Cmpxchg[0].Fallbacks; got == 0 || got > uint64(runs) {
		t.Errorf("result counts %d fallbacks in the measured interval, the probe %d in all", got, runs)
	}
}

// On one CPU a lockref_get costs what its read and its cmpxchg cost as
// plain steps: a load and an atomic that hit.
func TestLockrefUncontendedCost(t *testing.T) {
	perOp := func(steps func(w *models.World) []cpu.Step) float64 {
		w := newWorld(t, testProfile(cpu.NoJitter), 1, models.DefaultKernel())
		p := &cpu.Program{Name: "op", Steps: append([]cpu.Step{compute(w, "work", 20*sim.Nanosecond)}, steps(w)...)}
		res := flood(t, w, p, 1, sim.Microsecond, 50*sim.Microsecond)
		return 1e9 / res.PPS
	}
	got := perOp(func(w *models.World) []cpu.Step {
		l, err := w.NewSpinlock("d_lock", models.Qspinlock, "_raw_spin_lock", "_raw_spin_unlock")
		if err != nil {
			t.Fatal(err)
		}
		return w.NewLockref(l).Steps(models.LockrefGet, w.M.Label("lockref_get"), nil, false)
	})
	want := perOp(func(w *models.World) []cpu.Step {
		line := newLine(t, w, "d_lock", false)
		return []cpu.Step{access(w, "lockref_get", line, cacheline.Load), access(w, "lockref_get", line, cacheline.RMW)}
	})
	if !within(got, want, 1e-9) {
		t.Errorf("lockref_get on one CPU costs %.3f ns, a load and an atomic %.3f ns", got, want)
	}
}

// A CPU that holds the lockref's spinlock for long sends every other CPU's
// lockref_get to the lock: each reads the word locked and falls back, and
// the count is every get's, by either path. Without that holder no get
// falls back at 2 CPUs, where 100 retries never run out.
func TestLockrefFallsBackToTheLock(t *testing.T) {
	run := func(holder bool) (*models.Result, int64, int) {
		w := newWorld(t, testProfile(cpu.UniformJitter), 3, models.DefaultKernel())
		l, err := w.NewSpinlock("d_lock", models.Qspinlock, "_raw_spin_lock", "_raw_spin_unlock")
		if err != nil {
			t.Fatal(err)
		}
		r := w.NewLockref(l)
		gets := 0
		get := r.Steps(models.LockrefGet, w.M.Label("lockref_get"), nil, false)
		steps := []cpu.Step{
			onlyOn{on: func(id int) bool { return holder && id == 0 }, n: 3},
			&models.LockStep{L: l}, compute(w, "d_alloc", 2*sim.Microsecond), &models.UnlockStep{L: l},
			onlyOn{on: func(id int) bool { return !holder || id != 0 }, n: len(get) + 1},
		}
		steps = append(steps, get...)
		steps = append(steps, probe(func(*cpu.Core) { gets++ }), compute(w, "work", 50*sim.Nanosecond))
		res := flood(t, w, &cpu.Program{Name: "op", Steps: steps}, 2+btoi(holder), 0, 50*sim.Microsecond)
		return res, r.Word.Count, gets
	}
	res, count, gets := run(true)
	if st := res.Cmpxchg[0]; st.Fallbacks == 0 {
		t.Errorf("with the lock held 2us at a time, no lockref_get fell back to it: %+v", st)
	}
	if count != int64(gets) {
		t.Errorf("count %d after %d gets", count, gets)
	}
	res, count, gets = run(false)
	if st := res.Cmpxchg[0]; st.Fallbacks != 0 {
		t.Errorf("2 CPUs with no lock holder fell back %d times", st.Fallbacks)
	}
	if count != int64(gets) {
		t.Errorf("count %d after %d gets", count, gets)
	}
}

// lockref_put_return never takes the count below zero: from zero it gives
// up (its -1) and runs the caller's fallback.
func TestLockrefPutReturnStopsAtZero(t *testing.T) {
	w := newWorld(t, testProfile(cpu.UniformJitter), 5, models.DefaultKernel())
	l, err := w.NewSpinlock("d_lock", models.Qspinlock, "_raw_spin_lock", "_raw_spin_unlock")
	if err != nil {
		t.Fatal(err)
	}
	r := w.NewLockref(l)
	r.Word.Count = 3
	slow := 0
	put := r.Steps(models.LockrefPutReturn, w.M.Label("lockref_put_return"), []cpu.Step{probe(func(*cpu.Core) { slow++ })}, false)
	low := int64(0)
	r.Word.Trace = func(models.CmpxchgEvent) { low = min(low, r.Word.Count) }
	flood(t, w, &cpu.Program{Name: "put", Steps: append([]cpu.Step{compute(w, "work", 20*sim.Nanosecond)}, put...)}, 4, 0, 5*sim.Microsecond)
	if r.Word.Count != 0 || low < 0 {
		t.Errorf("count ends at %d, lowest %d; three puts from 3 end at 0 and never go below", r.Word.Count, low)
	}
	if slow == 0 {
		t.Error("puts at zero never ran the caller's fallback")
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// cpu_relax() after a failed cmpxchg gives the line away: during the pause
// the other CPUs' cmpxchgs take it, and the retry, which still expects the
// value the failure handed back, fails again. Alone a CPU never fails, so
// the pause costs it nothing; with 8 CPUs on the word (a pause of 140
// cycles, Skylake's PAUSE) every success costs more tries and more
// transfers of the line than the loop that retries at once, and the loop
// makes fewer operations (f5fe24ef17b5's fstat2: +69% at 8 processes
// without the pause).
func TestCmpxchgRelaxGivesTheLineAway(t *testing.T) {
	run := func(n int, relax bool) (ops float64, triesPer, transfersPer float64) {
		p := testProfile(cpu.UniformJitter)
		p.CV, p.Window = cpu.DefaultCV, 20*sim.Nanosecond
		p.Pause = sim.Time(140 * float64(sim.Nanosecond) / p.GHz)
		w := newWorld(t, p, 7, models.DefaultKernel())
		wd := w.NewWord("refs", newLine(t, w, "refs", false), nil)
		prog := &cpu.Program{Name: "inc", Steps: []cpu.Step{
			compute(w, "work", 100*sim.Nanosecond),
			&models.CmpxchgStep{W: wd, Delta: 1, Relax: relax, Label: w.M.Label("cmpxchg")},
		}}
		res := flood(t, w, prog, n, 5*sim.Microsecond, 50*sim.Microsecond)
		st := res.Cmpxchg[0]
		ok := float64(st.Attempts - st.Failures)
		var transfers uint64
		for _, l := range res.Lines {
			if l.Name == "refs" {
				transfers = l.Transfers
			}
		}
		return res.PPS, float64(st.Attempts) / ok, float64(transfers) / ok
	}
	alone, _, _ := run(1, false)
	aloneRelax, tries1, _ := run(1, true)
	if alone != aloneRelax || tries1 != 1 {
		t.Errorf("one CPU: %.4g/s retrying at once, %.4g/s relaxing (%.2f tries a success): alone a cmpxchg never fails, so the pause must cost nothing", alone, aloneRelax, tries1)
	}
	fast, triesFast, xferFast := run(8, false)
	slow, triesSlow, xferSlow := run(8, true)
	t.Logf("8 CPUs: retrying at once %.4g/s, %.2f tries and %.2f transfers a success; relaxing %.4g/s, %.2f tries and %.2f transfers", fast, triesFast, xferFast, slow, triesSlow, xferSlow)
	if slow >= fast || triesSlow <= triesFast || xferSlow <= xferFast {
		t.Errorf("8 CPUs: relaxing made %.4g/s with %.2f tries and %.2f transfers a success, retrying at once %.4g/s with %.2f and %.2f: the pause should cost the line", slow, triesSlow, xferSlow, fast, triesFast, xferFast)
	}
}
