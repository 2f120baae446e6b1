package scenarios_test

import (
	"testing"
	"testing/fstest"

	"contend/scenarios"
)

// Each seqcount step's operand and read section, checked at load: file,
// line, field and fix (good's store step is line 35).
func TestSeqlockBadInput(t *testing.T) {
	checkBadCases(t, []badCase{
		{name: "read section without steps", old: `{ store = "stats" }`, new: `{ read_seqcount = "stats" }`,
			line: 35, field: "variant.locked.steps[2].steps", fix: "needs the steps it reads"},
		{name: "read_seqbegin without steps", old: `{ store = "stats" }`, new: `{ read_seqbegin = "qlock" }`,
			line: 35, field: "variant.locked.steps[2].steps", fix: "needs the steps it reads"},
		{name: "bad step in a read section", old: `{ store = "stats" }`, new: `{ read_seqcount = "stats", steps = [ { load = "statz" } ] }`,
			line: 35, field: "variant.locked.steps[2].steps[0].load", fix: "add it under [[line]]"},
		{name: "seqcount on a per-cpu line", old: `name = "stats"`, new: "name = \"stats\"\npercpu = true",
			old2: `{ store = "stats" }`, new2: `{ write_seqcount_begin = "stats" }`,
			line: 36, field: "variant.locked.steps[2].write_seqcount_begin", fix: "put it on a shared line"},
		{name: "seqcount on a lock", old: `{ store = "stats" }`, new: `{ write_seqcount_end = "qlock" }`,
			line: 35, field: "variant.locked.steps[2].write_seqcount_end", fix: "write_seqcount_end needs a line"},
		{name: "seqlock on a line", old: `{ store = "stats" }`, new: `{ write_seqlock = "stats" }`,
			line: 35, field: "variant.locked.steps[2].write_seqlock", fix: "write_seqlock needs a spinlock"},
		{name: "seqlock on an rwlock", old: `{ store = "stats" }`, new: `{ read_seqbegin = "tb6", steps = [ { load = "stats" } ] }`,
			line: 35, field: "variant.locked.steps[2].read_seqbegin", fix: "is a rwlock, but read_seqbegin needs a spinlock"},
		{name: "nested steps on a writer", old: `{ store = "stats" }`, new: `{ write_seqlock = "qlock", steps = [ { load = "stats" } ] }`,
			line: 35, field: "variant.locked.steps[2].steps", fix: "read_seqcount and read_seqbegin (their read section's)"},
	})
}

// seqlockSrc is good with a seqlock_t (qlock, its sequence beside it on
// stats) written by one variant and read by another, both flooding.
func seqlockSrc(t *testing.T) string {
	src := edit(t, good, "name = \"qlock\"\nkind = \"ticket\"", "name = \"qlock\"\nkind = \"qspinlock\"\nline = \"stats\"\n\n[[line]]\nname = \"data\"")
	src = edit(t, src, "  { lock = \"qlock\" },\n  { store = \"stats\" },\n  { unlock = \"qlock\" },\n]\n",
		"  { write_seqlock = \"qlock\" },\n  { store = \"data\" },\n  { write_sequnlock = \"qlock\" },\n]\n\n"+
			"[[variant]]\nname = \"reader\"\nsteps = [\n  { compute = \"work\" },\n  { read_seqbegin = \"qlock\", steps = [ { load = \"data\" }, { compute = \"work\" } ] },\n]\n\n"+
			"[[variant]]\nname = \"both\"\nsteps = [\n  { compute = \"work\" },\n  { read_seqcount = \"stats\", steps = [ { load = \"data\" } ] },\n  { write_seqlock = \"qlock\" },\n  { store = \"data\" },\n  { write_sequnlock = \"qlock\" },\n]\n")
	return src
}

// Readers alone never move the sequence's line; readers and writers on
// every CPU do, and the readers then retry. The labels a perf report shows
// are the kernel's.
func TestSeqlockSteps(t *testing.T) {
	s, err := scenarios.Parse(fstest.MapFS{}, "t.toml", []byte(seqlockSrc(t)))
	if err != nil {
		t.Fatal(err)
	}
	readers, err := s.Simulate(scenarios.Point{Variant: "reader", Axis: "cores", X: 4, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range readers.Lines {
		if l.Transfers > 4 { // each CPU's first read
			t.Errorf("readers alone moved line %s %d times", l.Name, l.Transfers)
		}
	}
	both, err := s.Simulate(scenarios.Point{Variant: "both", Axis: "cores", X: 4, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(both.Seqcounts) != 1 || both.Seqcounts[0].Retries == 0 || both.Seqcounts[0].Writes == 0 {
		t.Errorf("readers and writers on every CPU: %+v; some reads must retry", both.Seqcounts)
	}
	if readers.Seqcounts[0].Retries != 0 {
		t.Errorf("readers alone retried: %+v", readers.Seqcounts)
	}
	if both.PPS >= readers.PPS {
		t.Errorf("writers beside readers: %.3g/s; readers alone %.3g/s", both.PPS, readers.PPS)
	}
	labels := map[string]bool{}
	for _, l := range both.Profile {
		labels[l.Label] = true
	}
	for _, want := range []string{"read_seqcount_begin", "write_seqlock", "write_sequnlock", "_raw_spin_lock"} {
		if !labels[want] {
			t.Errorf("no %s in the profile %v", want, labels)
		}
	}
}
