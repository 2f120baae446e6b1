package models_test

import (
	"strings"
	"testing"

	"contend/cpu"
	"contend/models"
	"contend/sim"
)

// A CPU that computes 100 ns a packet completes as many packets in each
// half of its measured interval, give or take the one that straddles the
// halfway mark, and the interval is steady; the same packets spread over
// more CPUs than they can give ten each are not.
func TestUnsteady(t *testing.T) {
	run := func(cpus int, each, warmup, d sim.Time) *models.Result {
		w := newWorld(t, testProfile(cpu.NoJitter), 1, models.DefaultKernel())
		p := &cpu.Program{Name: "loop", Steps: []cpu.Step{compute(w, "x", each)}}
		res, err := w.Run(models.RunSpec{Flood: &models.Flood{CPUs: firstN(cpus), Program: p}, Warmup: warmup, Duration: d})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := run(1, 100*sim.Nanosecond, 150*sim.Nanosecond, 100*sim.Microsecond)
	if len(res.Halves) != 2 || res.Halves[0]+res.Halves[1] != res.Packets {
		t.Fatalf("halves %v of %d packets", res.Halves, res.Packets)
	}
	if d := int64(res.Halves[0]) - int64(res.Halves[1]); d < -1 || d > 1 {
		t.Errorf("halves %v: one compute loop's halves should differ by a packet at most", res.Halves)
	}
	if why := res.Unsteady(); why != "" {
		t.Errorf("a steady loop is unsteady: %s", why)
	}
	// 8 CPUs, 10 µs a packet, 40 µs: 32 packets, 4 a CPU.
	res = run(8, 10*sim.Microsecond, 0, 40*sim.Microsecond)
	if why := res.Unsteady(); !strings.Contains(why, "fewer than 10 a CPU") {
		t.Errorf("%d packets on 8 CPUs: %q, want too few", res.Packets, why)
	}
}

// A second half whose rate differs from the first's by more than a fifth,
// beyond chance, is unsteady; one within it, or within chance, is not.
func TestUnsteadyHalves(t *testing.T) {
	flood := []models.CoreResult{{Role: "flood"}, {Role: "flood"}}
	for _, c := range []struct {
		halves   []uint64
		unsteady bool
	}{
		{[]uint64{5000, 5000}, false},
		{[]uint64{5000, 5900}, false}, // 16%
		{[]uint64{5000, 6500}, true},  // 26%
		{[]uint64{6500, 5000}, true},
		{[]uint64{20, 30}, false}, // 40%, but 4 standard deviations of 50 are 28
		{[]uint64{200, 300}, true},
	} {
		r := models.Result{Cores: flood, Halves: c.halves, Packets: c.halves[0] + c.halves[1]}
		if got := r.Unsteady() != ""; got != c.unsteady {
			t.Errorf("halves %v: unsteady %v, want %v (%s)", c.halves, got, c.unsteady, r.Unsteady())
		}
	}
}
