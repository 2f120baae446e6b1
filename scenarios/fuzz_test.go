package scenarios_test

import (
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"contend/advise"
	"contend/models"
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

// Caps on what a fuzzed scenario simulates, so that an input costs
// milliseconds: a short run on few CPUs, a small batch.
const (
	fuzzMaxRun   = 20 * sim.Microsecond
	fuzzMaxCores = 8
	fuzzMaxOps   = 20
	fuzzMaxLimit = sim.Second
	fuzzWatchdog = 20 * time.Second // far beyond any input's cost: a hang
)

// FuzzParse feeds Parse arbitrary files named f.toml, with the built-ins at
// hand to include: it must return, never panic, and refuse with an error
// that says something. A file it accepts is simulated at one capped point,
// which must not panic or hang either.
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
	// Broken variants of ingress; an edit that no longer applies after a
	// refit leaves a copy of the file, which is harmless.
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
		{`same_socket = "47ns"`, `same_socket = "47ns ± 4ns"`},
		{`same_socket = "47ns"`, `same_socket = "47ns ± 4cyc ± 1ns"`},
	} {
		f.Add([]byte(strings.Replace(string(ingress), broken.old, broken.new, 1)))
	}
	f.Add([]byte(good))
	f.Add([]byte(strings.Replace(good, "name = \"t\"\n", "name = \"t\"\n"+nested(40), 1))) // refused before decoding
	// Placements swept by name, beside a numeric axis.
	f.Add([]byte(strings.Replace(good, "duration = \"10us\"\n", "duration = \"10us\"\n\n[sweep]\ncores = [1, 2]\nplacement = [\"compact\", \"spread\"]\n", 1)))
	f.Add([]byte(strings.NewReplacer(`kind = "flood"`, "kind = \"batch\"\nbatch_ops = 5", `duration = "10us"`, "duration = \"10us\"\nlimit = \"10ms\"").Replace(good)))
	f.Add([]byte(strings.Replace(good, `duration = "10us"`, `duration = "1us"`, 1)))
	// A percpu_counter, added to by a packet and by its callback.
	f.Add([]byte(strings.NewReplacer("name = \"stats\"\n", "name = \"stats\"\n\n[[line]]\nname = \"deltas\"\npercpu = true\npercpu_counter = \"stats\"\nbatch = 3\n",
		"\n[[variant]]", "\n[block]\nfree = [ { percpu_counter_dec = \"deltas\" } ]\n\n[[variant]]",
		"{ compute = \"work\" },", "{ compute = \"work\" }, { percpu_counter_inc = \"deltas\" }, { call_rcu = 0, callback = \"free\" },").Replace(good)))
	// A call_rcu whose callback has steps, and one whose callback calls itself.
	for _, free := range []string{`{ rmw = "stats" }, { compute = "work" }`, `{ rmw = "stats" }, { block = "free" }`} {
		f.Add([]byte(strings.Replace(good, "\n[[variant]]", "\n[block]\nfree = [ "+free+" ]\n\n[[variant]]", 1) +
			"\n[[variant]]\nname = \"deferred\"\nsteps = [ { compute = \"work\" }, { call_rcu = 0, callback = \"free\" } ]\n"))
	}
	// A callback written in place.
	f.Add([]byte(strings.Replace(good, "{ compute = \"work\" },", "{ compute = \"work\" }, { call_rcu = 64, steps = [ { rmw = \"stats\" }, { compute = \"work\" } ] },", 1)))
	f.Add([]byte(strings.Replace(good, "{ compute = \"work\" },", "{ scan = \"1ns\" }, { sleep = \"1us\" }, { call_rcu = 64 }, { synchronize_rcu = true },\n  { once_per_jiffy = \"percpu\", steps = [ { rmw = \"stats\" } ] },", 1)))
	// A lockref on a spinlock beside its data, and cmpxchg loops with and
	// without retries and a fallback.
	f.Add([]byte(strings.NewReplacer("name = \"qlock\"\nkind = \"ticket\"", "name = \"qlock\"\nkind = \"qspinlock\"\nline = \"stats\"",
		"\n[[variant]]", "\n[block]\nslow = [ { lock = \"qlock\" }, { unlock = \"qlock\" } ]\n\n[[variant]]",
		"{ lock = \"qlock\" },\n  { store = \"stats\" },\n  { unlock = \"qlock\" },",
		"{ lockref_get = \"qlock\" }, { lockref_get_not_dead = \"qlock\" },\n  { lockref_put_return = \"qlock\", fallback = \"slow\" }, { lockref_put_return = \"qlock\" },\n  { cmpxchg = \"stats\" }, { cmpxchg = \"stats\", retries = 1, fallback = \"slow\" }, { lockref_get = \"qlock\", relax = true }, { cmpxchg = \"stats\", relax = true },").Replace(good)))

	// A seqlock's writer and readers, and a seqcount's read section.
	f.Add([]byte(strings.NewReplacer("name = \"qlock\"\nkind = \"ticket\"", "name = \"qlock\"\nkind = \"qspinlock\"\nline = \"stats\"",
		"{ lock = \"qlock\" },\n  { store = \"stats\" },\n  { unlock = \"qlock\" },",
		"{ write_seqlock = \"qlock\" }, { compute = \"work\" }, { write_sequnlock = \"qlock\" },\n  { read_seqbegin = \"qlock\", steps = [ { load = \"stats\" } ] },\n  { read_seqcount = \"stats\", steps = [ { compute = \"work\" } ] },").Replace(good)))
	// A refcount_t and a percpu_ref, killed by the same packets that use it.
	f.Add([]byte(strings.NewReplacer("[[lock]]\nname = \"qlock\"", "[[line]]\nname = \"rc\"\n\n[[line]]\nname = \"rp\"\npercpu = true\npercpu_ref = \"rc\"\n\n[[lock]]\nname = \"qlock\"",
		"{ lock = \"qlock\" },\n  { store = \"stats\" },\n  { unlock = \"qlock\" },",
		"{ refcount_inc = \"stats\" }, { refcount_dec_and_test = \"stats\", steps = [ { compute = \"work\" } ] }, { refcount_inc_not_zero = \"stats\" },\n  { percpu_ref_get = \"rp\" }, { percpu_ref_put = \"rp\" }, { percpu_ref_tryget_live = \"rp\", steps = [ { percpu_ref_put = \"rp\" } ] }, { percpu_ref_kill = \"rp\" },").Replace(good)))
	// A rw_semaphore beside its data, read and written.
	f.Add([]byte(strings.NewReplacer("name = \"tb6\"\nkind = \"rwlock\"", "name = \"tb6\"\nkind = \"rw_semaphore\"\nline = \"stats\"",
		"{ lock = \"qlock\" },\n  { store = \"stats\" },\n  { unlock = \"qlock\" },",
		"{ down_read = \"tb6\" }, { load = \"stats\" }, { up_read = \"tb6\" },\n  { down_write = \"tb6\" }, { store = \"stats\" }, { up_write = \"tb6\" },").Replace(good)))
	// SRCU readers that sleep, a synchronize_srcu and a call_srcu, and a Tasks
	// Trace reader.
	f.Add([]byte(strings.NewReplacer("{ lock = \"qlock\" },\n  { store = \"stats\" },\n  { unlock = \"qlock\" },",
		"{ srcu_read_lock = \"stats\" }, { sleep = \"1us\" }, { srcu_read_unlock = \"stats\" },\n  { synchronize_srcu = \"stats\" }, { call_srcu = \"stats\" },\n  { rcu_read_lock_trace = true }, { rcu_read_unlock_trace = true },").Replace(good)))
	// A percpu_rw_semaphore read and written by the same packets.
	f.Add([]byte(strings.NewReplacer("name = \"tb6\"\nkind = \"rwlock\"", "name = \"tb6\"\nkind = \"percpu_rw_semaphore\"",
		"{ lock = \"qlock\" },\n  { store = \"stats\" },\n  { unlock = \"qlock\" },",
		"{ percpu_down_read = \"tb6\" }, { percpu_up_read = \"tb6\" },\n  { percpu_down_write = \"tb6\" }, { store = \"stats\" }, { percpu_up_write = \"tb6\" },").Replace(good)))
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
		p, ok := shorten(s)
		if !ok {
			return
		}
		// A model error (a deadlock the file wrote) is fine; a panic is not.
		var r *models.Result
		within(t, "Simulate", func() { r, err = s.Simulate(p) })
		if err == nil {
			if err := consistent(r); err != nil {
				t.Fatalf("%v\n%s", err, data)
			}
		}
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

// shorten picks a point of s to simulate, the first reference point of its
// first series or else its first variant as written, and caps its run, CPUs
// and batch so that it is cheap. It declines runs it cannot cap (a clock so
// slow that the cap overflows).
func shorten(s *scenarios.Scenario) (scenarios.Point, bool) {
	p := scenarios.Point{Variant: s.Variants[0].Name, Seed: s.Run.Seed}
	prof := ""
	if names := s.ProfileNames(); len(names) > 0 {
		prof = names[0]
	}
	if len(s.Series) > 0 {
		se := s.Series[0]
		prof = se.Profile
		p.Series = se
		if len(se.Refs) > 0 {
			p = s.RefPoint(se, se.Refs[0], s.Run.Seed, nil)
		}
	}
	pr, ok := s.Profiles[prof]
	if !ok {
		return p, false
	}
	switch p.Axis {
	case "cores", "rx_queues", "threads":
		p.X = min(p.X, fuzzMaxCores)
	case "filters":
		p.X = min(p.X, fuzzMaxOps)
	}
	capDur := func(d *scenarios.Dur, most sim.Time) bool {
		t := d.Time(pr.GHz)
		if t > most {
			*d = scenarios.Dur{PS: float64(most)}
		}
		return t >= 0
	}
	w, r := &s.Workload, &s.Run
	w.Cores = min(w.Cores, fuzzMaxCores)
	w.BatchOps = min(w.BatchOps, fuzzMaxOps)
	ok = capDur(&r.Warmup, fuzzMaxRun) && capDur(&r.Duration, fuzzMaxRun)
	if w.Kind == scenarios.WorkloadBoth { // the flood runs until the batch ends or the limit
		ok = ok && capDur(&r.Limit, r.Warmup.Time(pr.GHz)+fuzzMaxRun)
	} else {
		ok = ok && capDur(&r.Limit, fuzzMaxLimit)
	}
	return p, ok
}

// FuzzSimulate builds valid scenarios from a few bytes (a program drawn from
// every kind of step, the lock kind, the workload) and simulates them: byte
// mutations of a whole file rarely keep it valid, so FuzzParse seldom gets
// this far. A model error (an unbalanced unlock, a deadlock) is an answer;
// a panic or a hang is a bug. testdata/fuzz/FuzzSimulate/7bfc997d4a6cb8ca
// is one: a qspinlock head's grant to its successor was seen before the
// head's set_locked store had left its store buffer, and the successor took
// the lock too.
func FuzzSimulate(f *testing.F) {
	// kind: the spinlock is kind%5, the workload kind/4 (see scenarioFrom).
	f.Add([]byte{0, 5, 3, 6}, uint8(2), uint8(0), uint16(20), false)          // ingress-like locked path
	f.Add([]byte{0, 9, 0, 10, 4}, uint8(4), uint8(1+4*1), uint16(40), true)   // rwlock read side, open loop, jittered
	f.Add([]byte{0, 15, 18}, uint8(1), uint8(4*2), uint16(1000), false)       // batch: synchronize_rcu
	f.Add([]byte{0, 21, 0, 23, 20}, uint8(2), uint8(3+4*2), uint16(5), false) // batch: jiffy gates, scan
	f.Add([]byte{11, 0, 12, 16, 17}, uint8(2), uint8(4*3), uint16(50), false) // batch: mutex, call_rcu, sleep
	f.Add([]byte{0, 15}, uint8(3), uint8(2+4*4), uint16(300), true)           // both: readers under RCU flood
	f.Add([]byte{0, 13, 0, 14}, uint8(3), uint8(4*5), uint16(300), false)     // both: the variant is the batch
	f.Add([]byte{0, 23, 25, 24}, uint8(3), uint8(0), uint16(200), true)       // flood: percpu_counter, call_rcu with a callback
	f.Fuzz(func(t *testing.T, prog []byte, cores, kind uint8, ns uint16, jitter bool) {
		src := scenarioFrom(prog, cores, kind, ns, jitter)
		var s *scenarios.Scenario
		var err error
		within(t, "Parse", func() { s, err = scenarios.Parse(fstest.MapFS{}, "f.toml", []byte(src)) })
		if err != nil {
			// With ns = 0 a sleep is refused: it used to hang the simulation
			// (testdata/fuzz/FuzzSimulate/e71b76f944ad11c1). Any other
			// refusal is a bug of scenarioFrom or of the checker.
			if strings.Contains(err.Error(), "a sleep of 0") {
				return
			}
			t.Fatalf("a generated scenario is refused: %v\n%s", err, src)
		}
		p, ok := shorten(s)
		if !ok {
			t.Fatalf("a generated scenario cannot be capped:\n%s", src)
		}
		var r *models.Result
		within(t, "Simulate", func() { r, err = s.Simulate(p) })
		if err == nil {
			if err := consistent(r); err != nil {
				t.Fatalf("%v\n%s", err, src)
			}
		}
	})
}

// FuzzAdvise derives contend advise's candidates from the scenarios
// FuzzSimulate generates: every candidate must load back into its scenario
// (one that does not is advise's fault, which the command asks users to
// report) and simulate without a panic, a hang or a contradiction.
func FuzzAdvise(f *testing.F) {
	f.Add([]byte{0, 5, 3, 6}, uint8(2), uint8(0), uint16(20), false)        // a locked shared write
	f.Add([]byte{0, 9, 0, 10, 4}, uint8(4), uint8(1+4*1), uint16(40), true) // rwlock readers
	f.Add([]byte{0, 15, 18}, uint8(1), uint8(4*2), uint16(1000), false)     // synchronize_rcu
	f.Add([]byte{0, 23, 25, 26, 3}, uint8(3), uint8(0), uint16(200), true)  // percpu_counter, a callback that writes
	f.Fuzz(func(t *testing.T, prog []byte, cores, kind uint8, ns uint16, jitter bool) {
		src := scenarioFrom(prog, cores, kind, ns, jitter)
		s, err := scenarios.Parse(fstest.MapFS{}, "f.toml", []byte(src))
		if err != nil {
			return // FuzzSimulate's to report
		}
		p, ok := shorten(s)
		if !ok {
			return
		}
		var base *models.Result
		within(t, "Simulate", func() { base, err = s.Simulate(p) })
		if err != nil {
			return
		}
		sub, err := advise.NewSubject(s, p.Variant, []*models.Result{base})
		if err != nil {
			t.Fatal(err)
		}
		cands := advise.Derive(sub)
		if len(cands) == 0 {
			return
		}
		rendered := advise.Render(cands)
		ext, err := scenarios.Parse(fstest.MapFS{}, "f.toml", append([]byte(src), rendered...))
		if err != nil {
			t.Fatalf("the candidates do not load: %v\n%s%s", err, src, rendered)
		}
		q, ok := shorten(ext)
		if !ok {
			t.Fatalf("a scenario that shortened does not with its candidates:\n%s%s", src, rendered)
		}
		for _, c := range cands {
			q.Variant = c.Variant
			var r *models.Result
			within(t, "Simulate "+c.Variant, func() { r, err = ext.Simulate(q) })
			if err == nil {
				if err := consistent(r); err != nil {
					t.Fatalf("%s: %v\n%s%s", c.Variant, err, src, rendered)
				}
			}
		}
	})
}

// stepMenu is every kind of step; {ns} is a number of nanoseconds.
var stepMenu = []string{
	`{ compute = "{ns}ns" }`, `{ load = "shared" }`, `{ store = "shared" }`, `{ rmw = "shared" }`, `{ store = "pcpu" }`,
	`{ lock = "spin" }`, `{ unlock = "spin" }`, `{ write_lock = "rw" }`, `{ write_unlock = "rw" }`,
	`{ read_lock = "rw" }`, `{ read_unlock = "rw" }`, `{ mutex_lock = "mtx" }`, `{ mutex_unlock = "mtx" }`,
	`{ rcu_read_lock = true }`, `{ rcu_read_unlock = true }`, `{ synchronize_rcu = true }`, `{ call_rcu = 64 }`,
	`{ sleep = "{ns}ns" }`, `{ queue_rcu_work = 64 }`, `{ compute = "work" }`, `{ scan = "1ns" }`,
	`{ block = "gated" }`, `{ once_per_jiffy = "percpu", steps = [ { store = "shared" } ] }`,
	`{ once_per_jiffy = "shared", steps = [ { rmw = "shared" }, { compute = "{ns}ns" } ] }`,
	`{ percpu_counter_inc = "deltas" }`, `{ percpu_counter_dec = "deltas" }`, `{ call_rcu = 64, callback = "free" }`,
	`{ refcount_inc = "refs" }`, `{ refcount_dec_and_test = "refs" }`,
}

// scenarioFrom writes a valid scenario: variant "v" runs the steps prog picks
// from stepMenu; kind picks the spinlock and the workload.
func scenarioFrom(prog []byte, cores, kind uint8, ns uint16, jitter bool) string {
	var steps []string
	for _, b := range prog[:min(len(prog), 16)] {
		steps = append(steps, strings.ReplaceAll(stepMenu[int(b)%len(stepMenu)], "{ns}", strconv.Itoa(int(ns))))
	}
	if len(steps) == 0 {
		steps = []string{`{ compute = "work" }`}
	}
	locks := []string{`kind = "ticket"`, `kind = "qspinlock"`, `kind = "mcs"`, `kind = "tas"`, "kind = \"qspinlock\"\nclaim = \"cmpxchg\"", "kind = \"qspinlock\"\nprefetch_next = false"}
	workloads := []string{
		`kind = "flood"`, `kind = "flood"` + "\nrate = 2e6\nring = 4", `kind = "batch"` + "\nbatch_ops = 5\ninitial_items = 100",
		`kind = "batch"` + "\nbatch_ops = 3", `kind = "both"` + "\nbatch_ops = 3\nbatch_variant = \"bg\"",
		`kind = "both"` + "\nbatch_ops = 3\nflood_variant = \"bg\"",
	}
	jit := "none"
	if jitter {
		jit = "exponential"
	}
	return fmt.Sprintf(`name = "fuzz"

[profile.box]
ghz = 2
sockets = 2
cores_per_socket = 4
threads_per_core = 2
l1_hit = "1ns"
smt_sibling = "15ns"
same_socket = "40ns"
other_socket = "120ns"
memory = "90ns"
atomic = "8ns"
atomic_overlap = 0.5
store_drain = "4cyc"
wakeup = "5us"
jitter = %q

[kernel]
hz = 1000

[params]
work = "%dns"

[[line]]
name = "shared"

[[line]]
name = "pcpu"
percpu = true

[[line]]
name = "refs"

[[line]]
name = "deltas"
percpu = true
percpu_counter = "shared"
batch = 3

[[lock]]
name = "spin"
%s

[[lock]]
name = "rw"
kind = "rwlock"

[[lock]]
name = "mtx"
kind = "mutex"

[block]
gated = [ { once_per_jiffy = "percpu", steps = [ { rmw = "shared" } ] } ]
free = [ { rmw = "shared" }, { percpu_counter_dec = "deltas" }, { compute = "work" } ]

[[variant]]
name = "v"
steps = [ %s ]

[[variant]]
name = "bg"
steps = [ { compute = "100ns" }, { rcu_read_lock = true }, { load = "shared" }, { rcu_read_unlock = true } ]

[workload]
cores = %d
%s

[run]
warmup = "2us"
duration = "10us"
limit = "50ms"
`, jit, ns, locks[int(kind)%len(locks)], strings.Join(steps, ", "), 1+int(cores)%8, workloads[int(kind/4)%len(workloads)])
}

// FuzzProfile feeds LoadProfile arbitrary profile files, as --profile does:
// it must refuse with an error that says something or return a profile, never
// panic or hang. An accepted profile simulates one capped point of three
// built-ins on it, which must not panic or hang either.
func FuzzProfile(f *testing.F) {
	f.Add([]byte(hostProfile))
	err := fs.WalkDir(scenarios.Builtin(), "profiles", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".toml") {
			return err
		}
		data, err := fs.ReadFile(scenarios.Builtin(), p)
		f.Add(data)
		return err
	})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		var p *scenarios.Profile
		var err error
		within(t, "LoadProfile", func() { p, err = scenarios.LoadProfile(fstest.MapFS{"p.toml": {Data: src}}, "p.toml") })
		if err != nil {
			if strings.TrimSpace(err.Error()) == "" {
				t.Fatal("LoadProfile refused with an empty error")
			}
			return
		}
		for _, name := range []string{"host-microbench", "qspinlock", "ingress"} {
			s, err := scenarios.LoadBuiltin(name)
			if err != nil {
				t.Fatal(err)
			}
			s.UseProfile(p)
			pt, ok := shorten(s)
			if !ok {
				continue
			}
			var r *models.Result
			within(t, "Simulate "+name, func() { r, err = s.Simulate(pt) })
			if err == nil {
				if err := consistent(r); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
			}
		}
	})
}
