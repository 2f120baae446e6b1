package scenarios_test

import (
	"math"
	"testing"
	"testing/fstest"

	"contend/scenarios"
)

// The SRCU steps, checked at load (good's stats line is named on line 20,
// its store step on 35).
func TestSRCUBadInput(t *testing.T) {
	checkBadCases(t, []badCase{
		{name: "srcu on a per-cpu line", old: `name = "stats"`, new: "name = \"stats\"\npercpu = true",
			old2: `{ store = "stats" }`, new2: `{ srcu_read_lock = "stats" }`,
			line: 36, field: "variant.locked.steps[2].srcu_read_lock", fix: "name the srcu_struct's shared line"},
		{name: "synchronize_srcu on a lock", old: `{ store = "stats" }`, new: `{ synchronize_srcu = "qlock" }`,
			line: 35, field: "variant.locked.steps[2].synchronize_srcu", fix: "synchronize_srcu needs a line"},
		{name: "call_srcu on no line", old: `{ store = "stats" }`, new: `{ call_srcu = "srcu" }`,
			line: 35, field: "variant.locked.steps[2].call_srcu", fix: "add it under [[line]]"},
		{name: "tasks trace lock with a name", old: `{ store = "stats" }`, new: `{ rcu_read_lock_trace = "stats" }`,
			line: 35, field: "variant.steps.rcu_read_lock_trace", fix: "true or false"},
	})
}

// srcuSrc is good with an srcu_struct on the stats line: readers, a
// synchronize_srcu batch beside them, and a Tasks Trace reader.
func srcuSrc(t *testing.T) string {
	src := edit(t, good, "  { lock = \"qlock\" },\n  { store = \"stats\" },\n  { unlock = \"qlock\" },\n]\n",
		"  { srcu_read_lock = \"stats\" },\n  { compute = \"work\" },\n  { srcu_read_unlock = \"stats\" },\n]\n\n"+
			"[[variant]]\nname = \"same\"\nsteps = [ { compute = \"work\" }, { load = \"stats\" }, { smp_mb = true }, { compute = \"work\" }, { smp_mb = true } ]\n\n"+
			"[[variant]]\nname = \"sync\"\nsteps = [ { synchronize_srcu = \"stats\" }, { call_srcu = \"stats\" } ]\n\n"+
			"[[variant]]\nname = \"trace\"\nsteps = [ { rcu_read_lock_trace = true }, { sleep = \"1us\" }, { rcu_read_unlock_trace = true } ]\n")
	return src
}

// SRCU readers move no shared line and cost what their load and two full
// barriers cost; a synchronize_srcu beside them takes two wake-ups and
// whatever wait for the readers the checks find; a Tasks Trace reader may
// sleep.
func TestSRCUSteps(t *testing.T) {
	s, err := scenarios.Parse(fstest.MapFS{}, "t.toml", []byte(srcuSrc(t)))
	if err != nil {
		t.Fatal(err)
	}
	sim := func(v string, n float64) float64 {
		r, err := s.Simulate(scenarios.Point{Variant: v, Axis: "cores", X: n, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range r.Lines {
			if v == "locked" && !l.PerCPU && l.Transfers > uint64(n) {
				t.Errorf("SRCU readers moved %s %d times", l.Name, l.Transfers)
			}
		}
		return r.PPS
	}
	readers, same := sim("locked", 1), sim("same", 1)
	if math.Abs(readers-same) > 0.02*same {
		t.Errorf("an SRCU read section runs at %.4g/s; a load, two barriers and its work at %.4g/s", readers, same)
	}
	sim("locked", 4)
	if rate := sim("sync", 1); rate <= 0 || rate > 1e5 {
		t.Errorf("synchronize_srcu in a loop: %.3g/s; each is two 5us wake-ups at least", rate)
	}
	sim("trace", 2)
}
