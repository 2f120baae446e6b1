package scenarios_test

import (
	"testing"
	"testing/fstest"

	"contend/scenarios"
)

// Each refcount and percpu_ref step's operand and line, checked at load:
// file, line, field and fix (good's stats line is named on line 20, its
// store step on 35; a key added after the name moves the step to 36).
func TestRefcountBadInput(t *testing.T) {
	checkBadCases(t, []badCase{
		{name: "refcount on a lock", old: `{ store = "stats" }`, new: `{ refcount_inc = "qlock" }`,
			line: 35, field: "variant.locked.steps[2].refcount_inc", fix: "refcount_inc needs a line"},
		{name: "refcount on a per-cpu line", old: `name = "stats"`, new: "name = \"stats\"\npercpu = true",
			old2: `{ store = "stats" }`, new2: `{ refcount_dec_and_test = "stats" }`,
			line: 36, field: "variant.locked.steps[2].refcount_dec_and_test", fix: "make it a percpu_ref"},
		{name: "bad step the zero runs", old: `{ store = "stats" }`, new: `{ refcount_dec_and_test = "stats", steps = [ { load = "statz" } ] }`,
			line: 35, field: "variant.locked.steps[2].steps[0].load", fix: "add it under [[line]]"},
		{name: "nested steps on refcount_inc", old: `{ store = "stats" }`, new: `{ refcount_inc = "stats", steps = [ { load = "stats" } ] }`,
			line: 35, field: "variant.locked.steps[2].steps", fix: "percpu_ref_tryget_live (the steps they guard)"},
		{name: "percpu_ref_get on a plain line", old: `{ store = "stats" }`, new: `{ percpu_ref_get = "stats" }`,
			line: 35, field: "variant.locked.steps[2].percpu_ref_get", fix: "is not a percpu_ref's line"},
		{name: "percpu_ref on a shared line", old: `name = "stats"`, new: "name = \"stats\"\npercpu_ref = \"stats\"",
			line: 21, field: "line.percpu_ref", fix: "set percpu = true"},
		{name: "percpu_ref's count undefined", old: `name = "stats"`, new: "name = \"stats\"\npercpu = true\npercpu_ref = \"count\"",
			line: 22, field: "line.percpu_ref", fix: "declare the shared line of the ref's atomic count"},
		{name: "percpu_ref's count per-cpu", old: `name = "stats"`, new: "name = \"stats\"\npercpu = true\npercpu_ref = \"stats\"",
			line: 22, field: "line.percpu_ref", fix: "name a shared line"},
	})
}

// refSrc is good with a percpu_ref (counters on ref_pcpu, its count on
// ref_count) taken and dropped by a flood, killed by a batch, and a
// refcount_t taken and dropped by every packet.
func refSrc(t *testing.T) string {
	src := edit(t, good, "[[lock]]\nname = \"qlock\"", "[[line]]\nname = \"ref_count\"\n\n[[line]]\nname = \"ref_pcpu\"\npercpu = true\npercpu_ref = \"ref_count\"\n\n[[lock]]\nname = \"qlock\"")
	src = edit(t, src, "  { lock = \"qlock\" },\n  { store = \"stats\" },\n  { unlock = \"qlock\" },\n]\n",
		"  { percpu_ref_tryget_live = \"ref_pcpu\", steps = [ { compute = \"work\" }, { percpu_ref_put = \"ref_pcpu\" } ] },\n]\n\n"+
			"[[variant]]\nname = \"atomic\"\nsteps = [\n  { refcount_inc = \"stats\" },\n  { compute = \"work\" },\n  { refcount_dec_and_test = \"stats\", steps = [ { compute = \"work\" } ] },\n]\n\n"+
			"[[variant]]\nname = \"kill\"\nsteps = [ { percpu_ref_kill = \"ref_pcpu\" }, { compute = \"1ms\" } ]\n")
	return src
}

// A percpu_ref's gets and puts touch only per-cpu lines; a refcount_t's
// move its line, at a cost that grows with the CPUs; a flood beside the
// kill then finds the ref dead and takes no more references.
func TestRefcountSteps(t *testing.T) {
	s, err := scenarios.Parse(fstest.MapFS{}, "t.toml", []byte(refSrc(t)))
	if err != nil {
		t.Fatal(err)
	}
	pcpu, err := s.Simulate(scenarios.Point{Variant: "locked", Axis: "cores", X: 4, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range pcpu.Lines {
		if !l.PerCPU && l.Transfers > 0 {
			t.Errorf("percpu_ref gets and puts moved shared line %s %d times", l.Name, l.Transfers)
		}
	}
	one, err := s.Simulate(scenarios.Point{Variant: "atomic", Axis: "cores", X: 1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	four, err := s.Simulate(scenarios.Point{Variant: "atomic", Axis: "cores", X: 4, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if four.PPSPerCore >= one.PPSPerCore || four.Cmpxchg[0].Saturations != 0 {
		t.Errorf("refcount_t per CPU: %.3g/s on 1 CPU, %.3g/s on 4 (%+v); sharing the count must cost, and pairs never saturate", one.PPSPerCore, four.PPSPerCore, four.Cmpxchg)
	}
}

// A batch that kills the ref beside a flood that takes references: the
// kill runs once, and the flood's tryget_live then fails, so its packets
// skip the work they guard and run faster.
func TestPercpuRefKillBesideFlood(t *testing.T) {
	src := edit(t, refSrc(t), "kind = \"flood\"", "kind = \"both\"\nbatch_ops = 1\nbatch_variant = \"kill\"")
	src = edit(t, src, "duration = \"10us\"", "duration = \"40us\"")
	s, err := scenarios.Parse(fstest.MapFS{}, "t.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if !s.RunsCallbacks(s.Variant("kill")) || s.RunsCallbacks(s.Variant("locked")) {
		t.Error("only the variant that kills runs the switch's callback")
	}
	alive, err := scenarios.Parse(fstest.MapFS{}, "t.toml", []byte(edit(t, src, "{ percpu_ref_kill = \"ref_pcpu\" }, ", "")))
	if err != nil {
		t.Fatal(err)
	}
	killed, err := s.Simulate(scenarios.Point{Variant: "locked", Axis: "cores", X: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	live, err := alive.Simulate(scenarios.Point{Variant: "locked", Axis: "cores", X: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if killed.PPS <= live.PPS {
		t.Errorf("flood beside a kill: %.3g/s; beside none: %.3g/s; the dead ref's packets skip their work", killed.PPS, live.PPS)
	}
}
