package scenarios_test

import (
	"strings"
	"testing"
	"testing/fstest"

	"contend/scenarios"
)

// The rw_semaphore's steps, checked at load (good's tb6 rwlock is
// declared on lines 26-28, the store step on 35).
func TestRWSemBadInput(t *testing.T) {
	checkBadCases(t, []badCase{
		{name: "down_read on an rwlock", old: `{ store = "stats" }`, new: `{ down_read = "tb6" }`,
			line: 35, field: "variant.locked.steps[2].down_read", fix: "is a rwlock, but down_read needs a rw_semaphore"},
		{name: "read_lock on a rw_semaphore", old: "name = \"tb6\"\nkind = \"rwlock\"", new: "name = \"tb6\"\nkind = \"rw_semaphore\"",
			old2: `{ store = "stats" }`, new2: `{ read_lock = "tb6" }`,
			line: 35, field: "variant.locked.steps[2].read_lock", fix: "use down_read, up_read, down_write and up_write on a rw_semaphore"},
		{name: "down_write on a line", old: `{ store = "stats" }`, new: `{ down_write = "stats" }`,
			line: 35, field: "variant.locked.steps[2].down_write", fix: "down_write needs a rw_semaphore"},
		{name: "rw_semaphore misspelt", old: "name = \"tb6\"\nkind = \"rwlock\"", new: "name = \"tb6\"\nkind = \"rwsemaphore\"",
			line: 28, field: "lock.kind", fix: "rw_semaphore or percpu_rw_semaphore"},
	})
}

// A rw_semaphore's readers share it and its writers exclude each other:
// two CPUs of readers run well above one CPU's rate (their atomics still
// move the count's line), two of writers not; a down_write under a spinlock is a fault, reported.
func TestRWSemSteps(t *testing.T) {
	src := edit(t, good, "name = \"tb6\"\nkind = \"rwlock\"", "name = \"tb6\"\nkind = \"rw_semaphore\"\nline = \"stats\"")
	src = edit(t, src, "  { lock = \"qlock\" },\n  { store = \"stats\" },\n  { unlock = \"qlock\" },\n]\n",
		"  { down_write = \"tb6\" },\n  { compute = \"work\" },\n  { up_write = \"tb6\" },\n]\n\n"+
			"[[variant]]\nname = \"reader\"\nsteps = [ { compute = \"work\" }, { down_read = \"tb6\" }, { compute = \"200ns\" }, { up_read = \"tb6\" } ]\n\n"+
			"[[variant]]\nname = \"atomic\"\nsteps = [ { lock = \"qlock\" }, { down_write = \"tb6\" }, { up_write = \"tb6\" }, { unlock = \"qlock\" } ]\n")
	s, err := scenarios.Parse(fstest.MapFS{}, "t.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	rate := func(v string, n float64) float64 {
		r, err := s.Simulate(scenarios.Point{Variant: v, Axis: "cores", X: n, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		return r.PPS
	}
	if one, two := rate("reader", 1), rate("reader", 2); two < 1.3*one {
		t.Errorf("readers: %.3g/s on one CPU, %.3g/s on two; they share the lock (the count's line still moves)", one, two)
	}
	if one, two := rate("locked", 1), rate("locked", 2); two > 1.2*one {
		t.Errorf("writers: %.3g/s on one CPU, %.3g/s on two; they exclude each other", one, two)
	}
	_, err = s.Simulate(scenarios.Point{Variant: "atomic", Axis: "cores", X: 1, Seed: 1})
	if err == nil || !strings.Contains(err.Error(), "holding a spinlock") {
		t.Errorf("down_write under a spinlock: %v; want the fault reported", err)
	}
}
