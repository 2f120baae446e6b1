package models_test

import (
	"testing"

	"contend/cpu"
	"contend/models"
	"contend/sim"
)

// holds counts references from probes right after each get and each put
// has executed: the naive reference for a count.
type holds struct{ n, most int }

func (h *holds) got(*cpu.Core) { h.n++; h.most = max(h.most, h.n) }
func (h *holds) put(*cpu.Core) { h.n-- }

// Incs and dec_and_tests that pair up keep a refcount_t at 1 plus the
// references held, never at zero, never saturated.
func TestRefcountPairs(t *testing.T) {
	w := newWorld(t, testProfile(cpu.UniformJitter), 3, models.DefaultKernel())
	r := w.NewRefcount("refs", newLine(t, w, "refs", false))
	h := &holds{}
	zero := 0
	label := w.M.Label("refcount")
	flood(t, w, &cpu.Program{Name: "ref", Steps: []cpu.Step{
		&models.RefcountStep{W: r, Op: models.RefcountInc, Label: label}, probe(h.got), compute(w, "work", 40*sim.Nanosecond),
		&models.RefcountStep{W: r, Op: models.RefcountDecAndTest, Zero: 1, Label: label}, probe(func(*cpu.Core) { zero++ }), probe(h.put),
	}}, 6, 0, 20*sim.Microsecond)
	if r.Count != 1+int64(h.n) || zero != 0 || r.Stats.Saturations != 0 {
		t.Errorf("count %d with %d held, %d zero hits, %d saturations; want 1 + held, none, none", r.Count, h.n, zero, r.Stats.Saturations)
	}
	if h.most < 2 {
		t.Errorf("at most %d references held at once: the CPUs never overlapped", h.most)
	}
}

// Four references dropped by four CPUs: exactly one dec_and_test returns
// true, and the decs after it find 0 and saturate the count, which stays
// saturated.
func TestRefcountDecAndTestOnceThenSaturates(t *testing.T) {
	w := newWorld(t, testProfile(cpu.UniformJitter), 4, models.DefaultKernel())
	r := w.NewRefcount("refs", newLine(t, w, "refs", false))
	r.Count = 4
	zero := 0
	flood(t, w, &cpu.Program{Name: "put", Steps: []cpu.Step{
		compute(w, "work", 30*sim.Nanosecond),
		&models.RefcountStep{W: r, Op: models.RefcountDecAndTest, Zero: 1, Label: w.M.Label("refcount")}, probe(func(*cpu.Core) { zero++ }),
	}}, 4, 0, 5*sim.Microsecond)
	if zero != 1 || r.Count != models.RefcountSaturated || r.Stats.Saturations == 0 {
		t.Errorf("%d zero hits, count %d, %d saturations; want one, saturated, some", zero, r.Count, r.Stats.Saturations)
	}
}

// refcount_inc_not_zero never revives a count at zero.
func TestRefcountIncNotZero(t *testing.T) {
	w := newWorld(t, testProfile(cpu.UniformJitter), 4, models.DefaultKernel())
	r := w.NewRefcount("refs", newLine(t, w, "refs", false))
	label := w.M.Label("refcount")
	r.Count = 0
	flood(t, w, &cpu.Program{Name: "get", Steps: []cpu.Step{compute(w, "work", 30*sim.Nanosecond), models.RefcountIncNotZero(r, 0, label)}}, 3, 0, 5*sim.Microsecond)
	if r.Count != 0 || r.Stats.Fallbacks == 0 {
		t.Errorf("from 0: count %d, %+v; it stays 0 and every try gives up", r.Count, r.Stats)
	}
}

// A percpu_ref never reaches zero while a reference is held: CPUs take
// references with tryget_live and drop them, CPU 0 kills the ref once,
// and the release comes a grace period later, when the last holder has
// put its reference; the gets before the kill touch no shared line.
func TestPercpuRefNeverZeroWhileHeld(t *testing.T) {
	w := newWorld(t, testProfile(cpu.UniformJitter), 5, models.DefaultKernel())
	atomic := newLine(t, w, "ref_count", false)
	r := w.NewPercpuRef("ref", newLine(t, w, "ref_percpu", true), atomic, "percpu_ref_switch_to_atomic_rcu")
	h := &holds{}
	var killedAt, releasedAt sim.Time
	heldAtRelease := -1
	r.OnRelease = func(at sim.Time) { releasedAt, heldAtRelease = at, h.n }
	var beforeKill []int64
	killed := false
	// CPU 0 kills the ref once, 100 us in, out of step with the others,
	// which take and drop references.
	steps := []cpu.Step{
		&models.RCUSoftirq{W: w},
		onlyOn{on: func(id int) bool { return id == 0 }, n: 4},
		onlyOn{on: func(int) bool { return !killed && w.M.Now() > 100*sim.Microsecond }, n: 2},
		probe(func(c *cpu.Core) { killed, killedAt = true, c.Now(); beforeKill = []int64{r.Count(), int64(h.n)} }),
		&models.PercpuRefKill{R: r, Label: w.M.Label("percpu_ref_kill")},
		compute(w, "idle", 330*sim.Nanosecond),
		onlyOn{on: func(id int) bool { return id != 0 }, n: 6},
		&models.PercpuRefStep{R: r, Op: models.PercpuRefTrygetLive, Skip: 4, Label: w.M.Label("percpu_ref")},
		probe(h.got), compute(w, "work", 500*sim.Nanosecond), &models.PercpuRefStep{R: r, Op: models.PercpuRefPut, Label: w.M.Label("percpu_ref")}, probe(h.put),
		compute(w, "rx", 200*sim.Nanosecond),
	}
	res := flood(t, w, &cpu.Program{Name: "ref", Steps: steps}, 4, 0, 60*sim.Millisecond)
	if !killed {
		t.Fatal("the ref was never killed")
	}
	if beforeKill[1] == 0 || beforeKill[0] != 1+beforeKill[1] {
		t.Errorf("at the kill the count was %d with %d held; want 1 + held", beforeKill[0], beforeKill[1])
	}
	if !r.Released() {
		t.Fatalf("not released 60 ms after the kill: count %d, %+v", r.Count(), r.Stats)
	}
	if heldAtRelease != 0 {
		t.Errorf("released with %d references held", heldAtRelease)
	}
	if gp := releasedAt - killedAt; gp < sim.Millisecond {
		t.Errorf("released %v after the kill; the switch waits for a grace period, milliseconds at HZ %d", gp, w.K.HZ)
	}
	if r.Stats.TrygetFailed == 0 {
		t.Errorf("%+v: no tryget_live failed after the kill", r.Stats)
	}
	for _, l := range res.Lines {
		if l.Name == "ref_count" && l.Transfers > 20 {
			t.Errorf("the atomic count moved %d times: only the kill and the puts in flight at it touch it", l.Transfers)
		}
	}
}
