package scenarios_test

import (
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"contend/scenarios"
	"contend/sim"
)

// fuzzFS holds what a fuzzed f.toml may include: the built-in files, and a
// file that includes f.toml back under another spelling of its path.
func fuzzFS(tb testing.TB) fstest.MapFS {
	fsys := fstest.MapFS{"loop.toml": {Data: []byte("include = [\"./f.toml\"]\n")}}
	err := fs.WalkDir(scenarios.Builtin(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(scenarios.Builtin(), p)
		fsys[p] = &fstest.MapFile{Data: data}
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return fsys
}

// Limits on what a fuzzed scenario may simulate, so that an input costs
// milliseconds: short runs, few CPUs, small batches.
const (
	fuzzMaxRun   = 50 * sim.Microsecond
	fuzzMaxCores = 8
	fuzzMaxOps   = 50
	fuzzMaxLimit = sim.Second
	fuzzWatchdog = 20 * time.Second // far beyond any input's cost: a hang
)

func FuzzParse(f *testing.F) {
	fsys := fuzzFS(f)
	for _, name := range scenarios.BuiltinNames() {
		data, err := fs.ReadFile(scenarios.Builtin(), name+".toml")
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		f.Add(data[:len(data)/2]) // cut mid-table
	}
	ingress, _ := fs.ReadFile(scenarios.Builtin(), "ingress.toml")
	for _, broken := range []struct{ old, new string }{
		{`"30.2ns"`, `"25 parsecs"`},
		{`"30.2ns"`, `"-3ns"`},
		{`"30.2ns"`, `"1e30cyc"`},
		{`{ lock = "qdisc_lock" },`, `{ lock = "qdisc_lock", store = "qdisc_bstats" },`},
		{`{ lock = "qdisc_lock" },`, `{ read_lock = "qdisc_lock" },`},
		{`cores = 1`, `cores = -1`},
		{`duration = "1ms"`, `duration = "2us"`}, // accepted and cheap: simulated
		{`name = "ingress"`, `include = ["loop.toml"]`},
		{`name = "ingress"`, `name = "ingress"` + "\ninclude = [\"f.toml\"]"},
		{`ghz = 3.613`, `ghz = "fast"`},
		{`threads_per_core = 2`, `threads_per_core = 16`},
		{`role = "validate"`, `role = "fit"`},
	} {
		f.Add([]byte(strings.Replace(string(ingress), broken.old, broken.new, 1)))
	}
	f.Add([]byte(good))
	f.Add([]byte(strings.NewReplacer(`kind = "flood"`, "kind = \"batch\"\nbatch_ops = 5", `duration = "10us"`, "duration = \"10us\"\nlimit = \"10ms\"").Replace(good)))
	f.Add([]byte(strings.Replace(good, `duration = "10us"`, `duration = "1us"`, 1)))
	f.Add([]byte(strings.Replace(good, "{ compute = \"work\" },", "{ scan = \"1ns\" }, { sleep = \"1us\" }, { call_rcu = 64 }, { synchronize_rcu = true },\n  { once_per_jiffy = \"percpu\", steps = [ { rmw = \"stats\" } ] },", 1)))

	f.Fuzz(func(t *testing.T, data []byte) {
		var s *scenarios.Scenario
		var err error
		within(t, "Parse", func() { s, err = scenarios.Parse(fsys, "f.toml", data) })
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error")
			}
			return
		}
		p, ok := cheapPoint(s)
		if !ok {
			return
		}
		// A model error (a deadlock the file wrote) is fine; a panic is not.
		within(t, "Simulate", func() { _, _ = s.Simulate(p) })
	})
}

// within runs fn and fails t if it does not return within the watchdog.
func within(t *testing.T, what string, fn func()) {
	done := make(chan any, 1)
	go func() {
		defer func() { done <- recover() }()
		fn()
	}()
	select {
	case r := <-done:
		if r != nil {
			t.Fatalf("%s panicked: %v", what, r)
		}
	case <-time.After(fuzzWatchdog):
		t.Fatalf("%s did not return within %v", what, fuzzWatchdog)
	}
}

// cheapPoint returns a point of s to simulate, when its run is short.
func cheapPoint(s *scenarios.Scenario) (scenarios.Point, bool) {
	p := scenarios.Point{Variant: s.Variants[0].Name, Seed: s.Run.Seed}
	prof := ""
	if names := s.ProfileNames(); len(names) > 0 {
		prof = names[0]
	}
	if len(s.Series) > 0 {
		p.Series = s.Series[0]
		prof = p.Series.Profile
	}
	pr, ok := s.Profiles[prof]
	if !ok {
		return p, false
	}
	w, r := s.Workload, s.Run
	warmup, lim := r.Warmup.Time(pr.GHz), r.Limit.Time(pr.GHz)
	run := warmup + r.Duration.Time(pr.GHz)
	if w.Cores > fuzzMaxCores || warmup < 0 || run < warmup {
		return p, false
	}
	switch w.Kind {
	case "flood":
		return p, run <= fuzzMaxRun
	case "batch": // one CPU, no warmup: cheap even over a long limit
		return p, w.BatchOps <= fuzzMaxOps && lim > 0 && lim <= fuzzMaxLimit
	}
	// "both": the flood runs until the batch ends or the limit stops it.
	return p, w.BatchOps <= fuzzMaxOps && lim > warmup && lim <= fuzzMaxRun
}
