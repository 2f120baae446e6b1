package scenarios_test

import (
	"testing"
	"testing/fstest"

	"contend/scenarios"
)

// The percpu_rw_semaphore's steps, checked at load (good's tb6 rwlock is
// declared on lines 26-28, the store step on 35).
func TestPercpuRWSemBadInput(t *testing.T) {
	checkBadCases(t, []badCase{
		{name: "percpu_down_read on an rwlock", old: `{ store = "stats" }`, new: `{ percpu_down_read = "tb6" }`,
			line: 35, field: "variant.locked.steps[2].percpu_down_read", fix: "percpu_down_read needs a percpu_rw_semaphore"},
		{name: "down_read on a percpu_rw_semaphore", old: "name = \"tb6\"\nkind = \"rwlock\"", new: "name = \"tb6\"\nkind = \"percpu_rw_semaphore\"",
			old2: `{ store = "stats" }`, new2: `{ down_read = "tb6" }`,
			line: 35, field: "variant.locked.steps[2].down_read", fix: "use percpu_down_read, percpu_up_read"},
	})
}

// Readers of a percpu_rw_semaphore alone touch no shared line; a writer
// beside them (a batch of one percpu_down_write) waits for a grace period
// and sends them to the slow path, where they fence.
func TestPercpuRWSemSteps(t *testing.T) {
	src := edit(t, good, "name = \"tb6\"\nkind = \"rwlock\"", "name = \"tb6\"\nkind = \"percpu_rw_semaphore\"")
	src = edit(t, src, "  { lock = \"qlock\" },\n  { store = \"stats\" },\n  { unlock = \"qlock\" },\n]\n",
		"  { percpu_down_read = \"tb6\" },\n  { compute = \"work\" },\n  { percpu_up_read = \"tb6\" },\n]\n\n"+
			"[[variant]]\nname = \"writer\"\nsteps = [ { percpu_down_write = \"tb6\" }, { compute = \"work\" }, { percpu_up_write = \"tb6\" }, { compute = \"1ms\" } ]\n")
	s, err := scenarios.Parse(fstest.MapFS{}, "t.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	alone, err := s.Simulate(scenarios.Point{Variant: "locked", Axis: "cores", X: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range alone.Lines {
		if !l.PerCPU && l.Accesses > 0 {
			t.Errorf("readers alone touched %s %d times", l.Name, l.Accesses)
		}
	}
	if !s.RunsCallbacks(s.Variant("writer")) {
		t.Error("the writer's rcu_sync_exit queues an RCU callback: its CPU must run callbacks")
	}
	both, err := scenarios.Parse(fstest.MapFS{}, "t.toml", []byte(edit(t, edit(t, src, "kind = \"flood\"", "kind = \"both\"\nbatch_ops = 1\nbatch_variant = \"writer\""),
		"duration = \"10us\"", "duration = \"20ms\"")))
	if err != nil {
		t.Fatal(err)
	}
	beside, err := both.Simulate(scenarios.Point{Variant: "locked", Axis: "cores", X: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var fenced bool
	for _, l := range beside.Lines {
		fenced = fenced || !l.PerCPU && l.Name == "tb6" && l.Accesses > 0
	}
	if !fenced || beside.Batch == nil {
		t.Errorf("a writer beside the readers: lines %+v, batch %+v; the readers' slow path reads block on the shared line", beside.Lines, beside.Batch)
	}
}
