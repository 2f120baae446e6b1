package scenarios_test

import (
	"strings"
	"testing"
	"testing/fstest"

	"contend/cpu"
	"contend/scenarios"
)

// A lock's word can live on a line of its own data, a ticket lock can back
// off and a qspinlock's head claim the lock as a given kernel did; what
// cannot be meant is refused at the line that says it.
func TestLockLineAndBackoffErrors(t *testing.T) {
	for _, tc := range []struct {
		name, new, field, fix string
	}{
		{"line not defined", "kind = \"ticket\"\nline = \"statz\"", "lock.line", "not a defined line"},
		{"rwlock's line not defined", "kind = \"rwlock\"\nline = \"statz\"", "lock.line", "not a defined line"},
		{"backoff on qspinlock", "kind = \"qspinlock\"\nbackoff = \"20ns\"", "lock.backoff", "only a ticket lock backs off"},
		{"backoff not a duration", "kind = \"ticket\"\nbackoff = \"fast\"", "lock.backoff", "duration"},
		{"claim on mcs", "kind = \"mcs\"\nclaim = \"cmpxchg\"", "lock.claim", "only a qspinlock's queue head claims"},
		{"claim misspelt", "kind = \"qspinlock\"\nclaim = \"cas\"", "lock.claim", "use \"store\""},
		{"prefetch_next on ticket", "kind = \"ticket\"\nprefetch_next = false", "lock.prefetch_next", "only a qspinlock's or cna's queue head"},
		{"prefetch_next on mutex", "kind = \"mutex\"\nprefetch_next = true", "lock.prefetch_next", "drop prefetch_next"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := edit(t, good, "name = \"qlock\"\nkind = \"ticket\"", "name = \"qlock\"\n"+tc.new)
			_, err := scenarios.Parse(fstest.MapFS{}, "t.toml", []byte(src))
			checkError(t, err, "t.toml", 24+strings.Count(tc.new, "\n"), tc.field, tc.fix)
		})
	}
}

// With the lock word on the stats line, the holder's store to the stats is
// a hit on a line it just took for the lock: two CPUs move one line per
// packet fewer than with the lock on a line of its own, and go faster.
func TestLockOnDataLine(t *testing.T) {
	run := func(src string) (pps, transfers float64) {
		s, err := scenarios.Parse(fstest.MapFS{}, "t.toml", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.Simulate(scenarios.Point{Variant: "locked", Axis: "cores", X: 2, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range res.Lines {
			transfers += l.TransfersPerPacket
		}
		return res.PPS, transfers
	}
	apart, trApart := run(good)
	together, trTogether := run(edit(t, good, "name = \"qlock\"\nkind = \"ticket\"", "name = \"qlock\"\nkind = \"ticket\"\nline = \"stats\""))
	if trTogether > trApart-0.9 || together <= apart {
		t.Errorf("lock beside its data: %.3g pps and %.2f transfers a packet; on its own line %.3g and %.2f: want about one transfer fewer and more packets",
			together, trTogether, apart, trApart)
	}
}

// fastHost is a profile contend calibrate measured on its host while the
// two vCPUs shared a core complex: transfers far shorter than a PAUSE. In
// that run the ticket loop cost 82.1 ns an operation a thread, and the same
// loop with a CAS for the critical section's increment 85.1.
const fastHost = `[profile.host]
ghz = 2.4160
sockets = 1
cores_per_socket = 2
threads_per_core = 1
l1_hit = "1.894ns"
llc_hit = "183.324ns"
smt_sibling = "24.929ns"
same_socket = "10ns"
other_socket = "24.929ns"
memory = "235.143ns"
atomic = "3.035ns"
atomic_overlap = 1.0
store_drain = "0ns"
wakeup = "7300ns"
pause = "31.224ns"
coherence = "moesi"
`

// The unlock's line, asked for while the CAS before it waits, leaves the
// CPU spinning on it, which still reads its own copy until the snoop comes:
// that read sees the lock held, and the CPU reads again only after a pause,
// as a spinner whose line is taken at any other time does. When it read
// again at once instead, the loop with the CAS ran 71% faster than the one
// with the plain increment on this profile, with spinners that pause as the
// kernel's cpu_relax() does (the calibrate loops themselves spin tight).
func TestEarlyStoreLeavesTheSpinnerItsPause(t *testing.T) {
	s, err := scenarios.LoadBuiltin("host-microbench")
	if err != nil {
		t.Fatal(err)
	}
	p, err := scenarios.LoadProfile(fstest.MapFS{"host.toml": {Data: []byte(fastHost)}}, "host.toml")
	if err != nil {
		t.Fatal(err)
	}
	s.UseProfile(p)
	s.Workload.TightSpin = false
	rate := func(variant string) float64 {
		r, err := s.Simulate(scenarios.Point{Variant: variant, Axis: "threads", X: 2, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		return r.PPS
	}
	plain, cas := rate("ticket"), rate("ticket-cas")
	t.Logf("2 threads: ticket %.4g M ops/s, ticket-cas %.4g", plain/1e6, cas/1e6)
	if cas > 1.2*plain || cas < 0.8*plain {
		t.Errorf("the ticket loop with a CAS gives %.4g ops/s, with the plain increment %.4g; the host measured them 4%% apart, want within 20%%", cas, plain)
	}
}

// spin = "tight" is a loop that reads the lock word back to back, as a
// user-space loop without PAUSE does: a waiter notices the unlock within a
// load, not within a pause. With a pause of 200 ns and transfers of 40, the
// ticket lock's hand-over is then far quicker; "pause", the kernel's
// cpu_relax(), is what a scenario gets when it says nothing.
func TestTightSpinNoticesWithinALoad(t *testing.T) {
	rate := func(spin string) float64 {
		src := edit(t, good, `wakeup = "5us"`, "wakeup = \"5us\"\npause = \"200ns\"")
		if spin != "" {
			src = edit(t, src, "cores = 2", "cores = 2\nspin = \""+spin+"\"")
		}
		s, err := scenarios.Parse(fstest.MapFS{}, "t.toml", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		r, err := s.Simulate(scenarios.Point{Variant: "locked", Axis: "cores", X: 2, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		return r.PPS
	}
	none, pause, tight := rate(""), rate("pause"), rate("tight")
	t.Logf("2 CPUs on a ticket lock: %.4g/s pausing, %.4g/s tight", pause, tight)
	if none != pause {
		t.Errorf("no spin key gives %.6g/s, spin = \"pause\" %.6g/s; want the same run", none, pause)
	}
	if tight < 1.3*pause {
		t.Errorf("tight spinning gives %.4g/s, pausing %.4g/s; a waiter that notices within a load, not a 200 ns pause, should hand over much sooner", tight, pause)
	}
}

// A tight spinner woken by its SMT sibling's write pays the clear
// (spin_clear) before it reads again; one woken from another core does not,
// and neither does one that pauses. On perfbook's 8176 a read-and-CAS pass
// between hyper-threads then costs the clear more than without it, and the
// same pass between cores, or with PAUSE in the loop, is the same run.
func TestSpinClearBetweenSiblingsOnly(t *testing.T) {
	s, err := scenarios.LoadBuiltin("perfbook-cas-8176")
	if err != nil {
		t.Fatal(err)
	}
	series := func(name string) *scenarios.Series {
		for i := range s.Series {
			if s.Series[i].Name == name {
				return s.Series[i]
			}
		}
		t.Fatalf("no series %q", name)
		return nil
	}
	clears := map[string]float64{} // per pass, by series, with the default clear
	pass := func(se string, overrides map[string]float64) float64 {
		r, err := s.Simulate(scenarios.Point{Series: series(se), Variant: "cas", Axis: "threads", X: 2, Seed: 1, Overrides: overrides})
		if err != nil {
			t.Fatal(err)
		}
		if overrides == nil {
			for _, l := range r.Lines {
				clears[se] += float64(l.SiblingClears) / float64(r.Packets)
			}
		}
		return 1e9 / r.PPS // ns a pass: the two threads pass the counter in turn
	}
	none := map[string]float64{"profile.spin_clear": 0}
	clear := float64(cpu.DefaultSpinClearCycles) / 3.8 // ns at the profile's 3.8 GHz
	onDefault, onNone := pass("8176-on-core", nil), pass("8176-on-core", none)
	t.Logf("8176 on-core CAS pass: %.3g ns with the default clear (%.3g ns), %.3g ns without", onDefault, clear, onNone)
	if d := onDefault - onNone; d < 0.8*clear || d > 1.3*clear {
		t.Errorf("the clear adds %.3g ns to a pass between hyper-threads, want about the clear's %.3g", d, clear)
	}
	if off, offNone := pass("8176-off-core", nil), pass("8176-off-core", none); off != offNone {
		t.Errorf("between cores a pass is %.6g ns with the default clear and %.6g without; the snoop hides it, want the same run", off, offNone)
	}
	if c := clears["8176-on-core"]; c < 0.95 || c > 1.05 {
		t.Errorf("between hyper-threads %.3g clears a pass, want one: each pass wakes the other thread once", c)
	}
	if c := clears["8176-off-core"]; c != 0 {
		t.Errorf("between cores %.3g clears a pass, want none", c)
	}
	tight := s.Workload.TightSpin
	s.Workload.TightSpin = false
	defer func() { s.Workload.TightSpin = tight }()
	if p, pNone := pass("8176-on-core", nil), pass("8176-on-core", none); p != pNone {
		t.Errorf("spinning with PAUSE a pass is %.6g ns with the default clear and %.6g without; a PAUSE avoids the clear, want the same run", p, pNone)
	}
}
