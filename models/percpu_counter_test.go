package models_test

import (
	"testing"

	"contend/cpu"
	"contend/models"
	"contend/sim"
)

// foldsOf replays one CPU's adds with lib/percpu_counter.c's rule, written
// out again here: the reference the model's folds are held to.
func foldsOf(adds []int64, batch int64) (folds int, delta int64) {
	for _, a := range adds {
		delta += a
		if delta >= batch || delta <= -batch {
			folds++
			delta = 0
		}
	}
	return folds, delta
}

// Four CPUs add +1, +1, +1, -1 per packet: every CPU's adds, replayed by the
// rule, give the model's folds, deltas and count, nothing lost or counted
// twice (count + deltas = the sum of the adds).
func TestPercpuCounterFoldsAsLinux(t *testing.T) {
	w := newWorld(t, testProfile(cpu.UniformJitter), 5, models.DefaultKernel())
	const n, batch = 4, 5
	pc := w.NewPercpuCounter(newLine(t, w, "count", false), newLine(t, w, "deltas", true), batch, "__percpu_counter_add")
	adds := make([][]int64, n)
	add := func(d int64) []cpu.Step {
		return []cpu.Step{
			probe(func(c *cpu.Core) { adds[c.ID] = append(adds[c.ID], d) }),
			&models.PercpuCounterAdd{C: pc, Delta: d, Label: w.M.Label("dst_alloc")},
		}
	}
	var steps []cpu.Step
	steps = append(steps, compute(w, "send", 300*sim.Nanosecond))
	for _, d := range []int64{1, 1, 1, -1} {
		steps = append(steps, add(d)...)
	}
	flood(t, w, &cpu.Program{Name: "send", Steps: steps}, n, 0, 200*sim.Microsecond)
	var sum, deltas int64
	wantFolds := 0
	for id := range n {
		f, d := foldsOf(adds[id], batch)
		if got := pc.Delta(id); got != d {
			t.Errorf("cpu %d: delta %d, the rule leaves %d", id, got, d)
		}
		wantFolds += f
		deltas += d
		for _, a := range adds[id] {
			sum += a
		}
	}
	if pc.Count+deltas != sum {
		t.Errorf("count %d + deltas %d = %d, but the adds sum to %d", pc.Count, deltas, pc.Count+deltas, sum)
	}
	if int(pc.Folds) != wantFolds || wantFolds == 0 {
		t.Errorf("%d folds, the rule gives %d", pc.Folds, wantFolds)
	}
}

// Two CPUs only add: each folds once every batch adds, and each fold takes
// the shared line from the other CPU, so the line moves 1/batch times a
// packet; the per-cpu deltas never move.
func TestPercpuCounterMovesTheLineOncePerBatch(t *testing.T) {
	w := newWorld(t, testProfile(cpu.NoJitter), 1, models.DefaultKernel())
	const batch = 4
	pc := w.NewPercpuCounter(newLine(t, w, "count", false), newLine(t, w, "deltas", true), batch, "__percpu_counter_add")
	p := &cpu.Program{Name: "alloc", Steps: []cpu.Step{
		compute(w, "send", 200*sim.Nanosecond),
		&models.PercpuCounterAdd{C: pc, Delta: 1, Label: w.M.Label("dst_alloc")},
	}}
	res := flood(t, w, p, 2, 10*sim.Microsecond, 400*sim.Microsecond)
	var moved float64
	for _, l := range res.Lines {
		if l.Name == "count" {
			moved = l.TransfersPerPacket
		}
	}
	if !within(moved, 1.0/batch, 0.05) {
		t.Fatalf("the count's line moves %.3f times a packet; folds every %d adds move it %.3f", moved, batch, 1.0/batch)
	}
	if want := float64(res.Packets) / batch; !within(float64(pc.Folds), want, 0.02) {
		t.Fatalf("%d folds in %d packets; want packets/batch = %.0f", pc.Folds, res.Packets, want)
	}
}
