package scenarios_test

import (
	"reflect"
	"testing"
	"testing/fstest"

	"contend/models"
	"contend/scenarios"
)

// Each new step's fields, checked at load: file, line, field and fix. The
// line numbers are those of good's store step (35) and, after a per-cpu
// line's added key, 36.
func TestCmpxchgBadInput(t *testing.T) {
	checkBadCases(t, []badCase{
		{name: "retries on a store", old: `{ store = "stats" }`, new: `{ store = "stats", retries = 3 }`,
			line: 35, field: "variant.locked.steps[2].retries", fix: "only a cmpxchg step takes them"},
		{name: "retries on a lockref", old: `{ store = "stats" }`, new: `{ lockref_get = "qlock", retries = 3 }`,
			line: 35, field: "variant.locked.steps[2].retries", fix: "lockref's loops retry 100 times"},
		{name: "relax on a store", old: `{ store = "stats" }`, new: `{ store = "stats", relax = true }`,
			line: 35, field: "variant.locked.steps[2].relax", fix: "only cmpxchg and the lockref operations take relax"},
		{name: "relax in quotes", old: `{ store = "stats" }`, new: `{ lockref_get = "qlock", relax = "yes" }`,
			line: 35, field: "variant.steps.relax", fix: "true or false"},
		{name: "no retries", old: `{ store = "stats" }`, new: `{ cmpxchg = "stats", retries = 0 }`,
			line: 35, field: "variant.locked.steps[2].retries", fix: "retries is from 1 to 1000000"},
		{name: "retries in quotes", old: `{ store = "stats" }`, new: `{ cmpxchg = "stats", retries = "3" }`,
			line: 35, field: "variant.steps.retries", fix: "without quotes"},
		{name: "fallback that never runs", old: `{ store = "stats" }`, new: `{ cmpxchg = "stats", fallback = "slow" }`,
			line: 35, field: "variant.locked.steps[2].fallback", fix: "add retries = N"},
		{name: "undefined fallback", old: `{ store = "stats" }`, new: `{ cmpxchg = "stats", retries = 100, fallback = "slow" }`,
			line: 35, field: "variant.locked.steps[2].fallback", fix: "define the fallback's steps under [block]"},
		{name: "fallback on lockref_get", old: `{ store = "stats" }`, new: `{ lockref_get = "qlock", fallback = "slow" }`,
			line: 35, field: "variant.locked.steps[2].fallback", fix: "lockref_get falls back to the lockref's spinlock itself"},
		{name: "fallback on a store", old: `{ store = "stats" }`, new: `{ store = "stats", fallback = "slow" }`,
			line: 35, field: "variant.locked.steps[2].fallback", fix: "only cmpxchg and lockref_put_return take one"},
		{name: "fallback in place that never runs", old: `{ store = "stats" }`, new: `{ cmpxchg = "stats", steps = [ { compute = "work" } ] }`,
			line: 35, field: "variant.locked.steps[2].steps", fix: "add retries = N"},
		{name: "fallback named and in place", old: `{ store = "stats" }`, new: `{ cmpxchg = "stats", retries = 3, fallback = "slow", steps = [ { compute = "work" } ] }`,
			line: 35, field: "variant.locked.steps[2].steps", fix: "keep one"},
		{name: "nested steps on lockref_get", old: `{ store = "stats" }`, new: `{ lockref_get = "qlock", steps = [ { compute = "work" } ] }`,
			line: 35, field: "variant.locked.steps[2].steps", fix: "cmpxchg and lockref_put_return (their fallback's)"},
		{name: "bad step in a fallback in place", old: `{ store = "stats" }`, new: `{ cmpxchg = "stats", retries = 3, steps = [ { lock = "qlok" } ] }`,
			line: 35, field: "variant.locked.steps[2].steps[0].lock", fix: "add it under [[lock]]"},
		{name: "cmpxchg on a per-cpu line", old: `name = "stats"`, new: "name = \"stats\"\npercpu = true",
			old2: `{ store = "stats" }`, new2: `{ cmpxchg = "stats" }`,
			line: 36, field: "variant.locked.steps[2].cmpxchg", fix: "use rmw on it"},
		{name: "cmpxchg on a lock", old: `{ store = "stats" }`, new: `{ cmpxchg = "qlock" }`,
			line: 35, field: "variant.locked.steps[2].cmpxchg", fix: "cmpxchg needs a line"},
		{name: "cmpxchg on no line", old: `{ store = "stats" }`, new: `{ cmpxchg = "statz" }`,
			line: 35, field: "variant.locked.steps[2].cmpxchg", fix: "add it under [[line]]"},
		{name: "lockref_get on a line", old: `{ store = "stats" }`, new: `{ lockref_get = "stats" }`,
			line: 35, field: "variant.locked.steps[2].lockref_get", fix: "lockref_get needs a spinlock"},
		{name: "lockref_put_return on an rwlock", old: `{ store = "stats" }`, new: `{ lockref_put_return = "tb6" }`,
			line: 35, field: "variant.locked.steps[2].lockref_put_return", fix: "is a rwlock, but lockref_put_return needs a spinlock"},
	})
}

// lockrefSrc is good with a dentry's d_lock on the dentry's line, and
// variants that take and drop references by lockref and by a cmpxchg loop
// of the file's own.
func lockrefSrc(t *testing.T) string {
	src := good
	for _, e := range [][2]string{
		{"name = \"qlock\"\nkind = \"ticket\"", "name = \"qlock\"\nkind = \"qspinlock\"\nline = \"stats\""},
		{"[[variant]]", "[block]\nslow = [ { lock = \"qlock\" }, { compute = \"work\" }, { unlock = \"qlock\" } ]\n\n[[variant]]"},
		{"  { lock = \"qlock\" },\n  { store = \"stats\" },\n  { unlock = \"qlock\" },\n]\n",
			"  { lockref_get = \"qlock\" },\n  { lockref_put_return = \"qlock\", fallback = \"slow\" },\n]\n\n[[variant]]\nname = \"loop\"\nsteps = [\n  { compute = \"work\" },\n  { cmpxchg = \"stats\", retries = 2, fallback = \"slow\" },\n]\n"},
	} {
		src = edit(t, src, e[0], e[1])
	}
	return src
}

// The lockref steps run as their models do: the gets and puts of a packet
// loop balance, every one a cmpxchg that hits on one CPU; on four CPUs some
// fail and go round again; the same seed gives the same counts.
func TestLockrefSteps(t *testing.T) {
	s, err := scenarios.Parse(fstest.MapFS{}, "t.toml", []byte(lockrefSrc(t)))
	if err != nil {
		t.Fatal(err)
	}
	one, err := s.Simulate(scenarios.Point{Variant: "locked", Axis: "cores", X: 1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(one.Cmpxchg) != 1 || one.Cmpxchg[0].Name != "stats" {
		t.Fatalf("words %+v; want the one on stats", one.Cmpxchg)
	}
	if st := one.Cmpxchg[0]; st.Failures != 0 || st.Fallbacks != 0 || st.Attempts+2 < 2*one.Packets {
		t.Errorf("one CPU: %+v over %d packets; want two cmpxchgs a packet (give or take the interval's ends), none failing", st, one.Packets)
	}
	four, err := s.Simulate(scenarios.Point{Variant: "locked", Axis: "cores", X: 4, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if st := four.Cmpxchg[0]; st.Failures == 0 {
		t.Errorf("four CPUs on one lockref: %+v; some cmpxchgs must find it changed", st)
	}
	again, err := s.Simulate(scenarios.Point{Variant: "locked", Axis: "cores", X: 4, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if again.Cmpxchg[0] != four.Cmpxchg[0] || again.PPS != four.PPS {
		t.Errorf("same seed, different runs: %+v %v, then %+v %v", four.Cmpxchg[0], four.PPS, again.Cmpxchg[0], again.PPS)
	}
	loop, err := s.Simulate(scenarios.Point{Variant: "loop", Axis: "cores", X: 4, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if st := loop.Cmpxchg[0]; st.Fallbacks == 0 || st.Failures < 2*st.Fallbacks {
		t.Errorf("a 2-retry loop on 4 CPUs: %+v; each fallback follows two failures", st)
	}
}

// A fallback named as a block and one written in place are one program:
// the same steps once inlined (as contend advise sees them, the fallback in
// place), and the same run.
func TestCmpxchgFallbackInPlace(t *testing.T) {
	named := lockrefSrc(t)
	inPlace := edit(t, named, `{ cmpxchg = "stats", retries = 2, fallback = "slow" }`,
		`{ cmpxchg = "stats", retries = 2, steps = [ { lock = "qlock" }, { compute = "work" }, { unlock = "qlock" } ] }`)
	var runs []*models.Result
	var inlined [][]scenarios.Step
	for _, src := range []string{named, inPlace} {
		s, err := scenarios.Parse(fstest.MapFS{}, "t.toml", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		r, err := s.Simulate(scenarios.Point{Variant: "loop", Axis: "cores", X: 3, Seed: 2})
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, r)
		inlined = append(inlined, s.Inline(s.Variant("loop")))
	}
	if !reflect.DeepEqual(inlined[0], inlined[1]) {
		t.Errorf("inlined:\n%+v\n%+v", inlined[0], inlined[1])
	}
	if runs[0].PPS != runs[1].PPS || runs[0].Cmpxchg[0] != runs[1].Cmpxchg[0] {
		t.Errorf("named: %v %+v; in place: %v %+v", runs[0].PPS, runs[0].Cmpxchg[0], runs[1].PPS, runs[1].Cmpxchg[0])
	}
}
