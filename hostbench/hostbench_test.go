package hostbench

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"contend/cacheline"
	"contend/scenarios"
	"contend/sim"
)

// sysfs lays out /sys/devices/system/cpu for sockets×cores×threads CPUs
// numbered the way Linux numbers them (siblings last), one L3 per socket.
func sysfs(sockets, cores, threads int) fstest.MapFS {
	fs := fstest.MapFS{}
	n := sockets * cores * threads
	fs["online"] = &fstest.MapFile{Data: []byte("0-" + itoa(n-1) + "\n")}
	for id := range n {
		phys := id % (sockets * cores)
		sock := phys / cores
		dir := "cpu" + itoa(id) + "/"
		fs[dir+"topology/physical_package_id"] = &fstest.MapFile{Data: []byte(itoa(sock))}
		fs[dir+"topology/core_id"] = &fstest.MapFile{Data: []byte(itoa(phys % cores))}
		fs[dir+"cache/index0/level"] = &fstest.MapFile{Data: []byte("1")}
		fs[dir+"cache/index0/type"] = &fstest.MapFile{Data: []byte("Data")}
		fs[dir+"cache/index0/shared_cpu_list"] = &fstest.MapFile{Data: []byte(itoa(id))}
		fs[dir+"cache/index1/level"] = &fstest.MapFile{Data: []byte("3")}
		fs[dir+"cache/index1/type"] = &fstest.MapFile{Data: []byte("Unified")}
		fs[dir+"cache/index1/shared_cpu_list"] = &fstest.MapFile{Data: []byte(itoa(sock*cores) + "-" + itoa(sock*cores+cores-1) + "," + itoa(sockets*cores+sock*cores) + "-" + itoa(sockets*cores+sock*cores+cores-1))}
	}
	return fs
}

func itoa(i int) string { return strconv.Itoa(i) }

func TestTopology(t *testing.T) {
	topo, err := ReadTopology(sysfs(2, 2, 2))
	if err != nil {
		t.Fatal(err)
	}
	if s, c, th := topo.Shape(); s != 2 || c != 2 || th != 2 {
		t.Errorf("shape = %d sockets × %d cores × %d threads, want 2×2×2", s, c, th)
	}
	pairs := topo.Pairs()
	want := map[PairClass][2]int{SMTSibling: {0, 4}, SameLLC: {0, 1}, OtherSocket: {0, 2}}
	for c, p := range want {
		if pairs[c] != p {
			t.Errorf("%s pair = %v, want %v", c, pairs[c], p)
		}
	}
	if _, ok := pairs[OtherLLC]; ok {
		t.Errorf("an other-LLC pair on a machine with one L3 per socket: %v", pairs[OtherLLC])
	}
}

func TestParseCPUList(t *testing.T) {
	got, err := ParseCPUList("0-2,5,7-8")
	if err != nil || !slices.Equal(got, []int{0, 1, 2, 5, 7, 8}) {
		t.Errorf("ParseCPUList = %v, %v", got, err)
	}
	for _, bad := range []string{"x", "3-1", "1-", "-1"} {
		if _, err := ParseCPUList(bad); err == nil {
			t.Errorf("ParseCPUList(%q) accepted", bad)
		}
	}
}

// TestSummarize checks the quartiles against order statistics.
func TestSummarize(t *testing.T) {
	s := Summarize([]float64{9, 1, 5, 3, 7})
	if s.Median != 5 || s.Q1 != 3 || s.Q3 != 7 || s.N != 5 {
		t.Errorf("Summarize = %+v, want median 5, quartiles 3 and 7", s)
	}
}

// TestMeasureRejectsDisturbedSamples: a fifth of the samples are three
// times too slow and the first run is cold, yet the median is the loop's
// cost within the noise.
func TestMeasureRejectsDisturbedSamples(t *testing.T) {
	m := newFake(Topology{CPUs: []CPU{{ID: 0}}})
	job := Job{Kernel: Add, CPUs: []int{0}}
	st, samples, err := Measure(m, job, Effort{Samples: 31, Sample: Quick.Sample})
	if err != nil {
		t.Fatal(err)
	}
	if len(samples) != 31 || st.N != 31 {
		t.Fatalf("%d samples, want 31", len(samples))
	}
	if math.Abs(st.Median-m.atomic)/m.atomic > m.noise {
		t.Errorf("median %.3f ns, want %.3f within %.0f%%", st.Median, m.atomic, 100*m.noise)
	}
}

func fakeFigures(t *testing.T, m *fakeMachine) []Figure {
	t.Helper()
	figs, err := MeasureAll(m, Plan(m.topo, m), Quick, nil)
	if err != nil {
		t.Fatal(err)
	}
	return figs
}

func within(t *testing.T, name string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol*math.Abs(want) {
		t.Errorf("%s = %.4g, want %.4g within %.1f%%", name, got, want, 100*tol)
	}
}

// TestBurstSpreadsOverUncontendedLoops: a burst of noise as long as one
// figure's samples, starting with the samples of the atomic add, leaves the
// loops the profile's clock and atomic are fitted to within 3% of their cost:
// they are sampled in rounds, so the burst slows a few samples of each.
// Measured one after another, the add would have every sample slowed.
func TestBurstSpreadsOverUncontendedLoops(t *testing.T) {
	topo, _ := ReadTopology(sysfs(1, 2, 1))
	m := newFake(topo)
	m.outliers = 0
	add := Job{Kernel: Add, CPUs: []int{0}}
	m.burstAt, m.burstRuns, m.burstFactor = add.String(), Quick.Samples, 1.5
	figs := fakeFigures(t, m)
	if m.burstAt != "" {
		t.Fatal("the burst never started")
	}
	n := 0
	for _, f := range figs {
		if len(f.Job.CPUs) != 1 || f.Job.Kernel == Pause || f.Job.Kernel == Wakeup {
			continue
		}
		n++
		within(t, f.Name, f.Stat.Median, m.cost(f.Job), 0.03)
	}
	if n < 8 {
		t.Errorf("%d loops of one CPU checked, want the plan's 8 or more", n)
	}
}

// On a guest that moves between two placements every few runs, a
// contended loop keeps only the samples taken between two ping-pongs of
// the first ping-pong's placement: its median is the loop's cost there,
// and the samples left out are counted.
func TestContendedLoopsKeepTheFirstPlacement(t *testing.T) {
	topo, _ := ReadTopology(sysfs(1, 2, 1))
	m := newFake(topo)
	m.outliers = 0
	m.flipRuns, m.flipFactor = 7, 6
	pp := Figure{Name: "pingpong same_llc before shared-add x2", Job: Job{Kernel: PingPong, CPUs: []int{0, 1}}}
	loop := Figure{Name: "shared-add x2", Job: Job{Kernel: SharedAdd, CPUs: []int{0, 1}}}
	ref := m.cost(pp.Job)
	if err := measurePlaced(m, &pp, &loop, ref, Quick); err != nil {
		t.Fatal(err)
	}
	if loop.Stat.N != Quick.Samples || loop.Moved == 0 {
		t.Errorf("kept %d samples and left out %d; want %d kept and some left out", loop.Stat.N, loop.Moved, Quick.Samples)
	}
	within(t, loop.Name, loop.Stat.Median, m.cost(loop.Job), 0.03)
	for _, x := range pp.Samples {
		within(t, pp.Name, x, ref, 0.03)
	}
	if len(pp.Samples) < loop.Stat.N+1 || len(pp.Samples) > 2*loop.Stat.N {
		t.Errorf("%d ping-pongs beside %d kept samples, want one on each side of each, shared by neighbours", len(pp.Samples), loop.Stat.N)
	}

	// A machine that stays in the other placement: too few samples are
	// placed, so all are kept, and the ping-pong says the machine moved.
	m.flipRuns, m.flipCount = 1<<30, 1<<30
	loop.Samples, loop.Moved = nil, 0
	if err := measurePlaced(m, &pp, &loop, ref, Quick); err != nil {
		t.Fatal(err)
	}
	if loop.Moved != 0 || loop.Stat.N != 4*Quick.Samples {
		t.Errorf("kept %d, left out %d; want all %d kept", loop.Stat.N, loop.Moved, 4*Quick.Samples)
	}
	within(t, pp.Name, pp.Stat.Median, 6*ref, 0.6)
}

// The ping-pong the profile is fitted to is measured until two in a row
// agree: a first one measured in a placement the guest leaves at once
// (the Intel guest's 143 and 165 ns, where every later one took 117-129)
// does not set the profile.
func TestFirstPingPongSettles(t *testing.T) {
	topo, _ := ReadTopology(sysfs(1, 2, 1))
	m := newFake(topo)
	m.outliers = 0
	job := Job{Kernel: PingPong, CPUs: []int{0, 1}}
	if _, _, err := Measure(m, job, Quick); err != nil {
		t.Fatal(err)
	}
	one := m.ppRuns // the runs one measurement takes
	m = newFake(topo)
	m.outliers = 0
	plan := []Figure{{Name: pingpongOf(SameLLC), Job: job}}
	m.slowRuns, m.slowFactor = one, 1.3
	figs, err := MeasureAll(m, plan, Quick, nil)
	if err != nil {
		t.Fatal(err)
	}
	within(t, "the fitted ping-pong", figs[0].Stat.Median, m.cost(job), 0.03)
}

// TestEstimateRecoversTheMachine: the direct estimates invert the fake
// machine's cost formulas.
func TestEstimateRecoversTheMachine(t *testing.T) {
	topo, _ := ReadTopology(sysfs(1, 2, 1))
	m := newFake(topo)
	v := Estimate(fakeFigures(t, m), topo)
	within(t, "ghz", v["ghz"].V, cyclesPerUnit/m.unit, 0.02)
	within(t, "atomic", v["atomic"].V, m.atomic, 0.02)
	within(t, "atomic_overlap", v["atomic_overlap"].V, m.overlap, 0.05)
	within(t, "l1_hit", v["l1_hit"].V, m.l1, 0.02)
	within(t, "llc_hit", v["llc_hit"].V, m.llc, 0.02)
	within(t, "memory", v["memory"].V, m.mem, 0.02)
	within(t, "same_socket", v["same_socket"].V, m.xfer, 0.02)
	within(t, "store_drain", v["store_drain"].V, m.drain, 0.3)
	within(t, "load_after_atomic", v["load_after_atomic"].V, m.after, 0.1)
	within(t, "store_after_atomic", v["store_after_atomic"].V, m.storeAfter, 0.1)
	if v["cores_per_socket"].V != 2 || v["sockets"].V != 1 {
		t.Errorf("shape %v sockets × %v cores, want 1×2", v["sockets"].V, v["cores_per_socket"].V)
	}
	if !strings.Contains(v["smt_sibling"].How, "not measured") {
		t.Errorf("smt_sibling on a machine without SMT does not say it was not measured: %q", v["smt_sibling"].How)
	}
}

// TestCalibrateFitsAndLoads: the profile loads back as a profile file, the
// fit reproduces every calibrate figure, calibrate figures are exactly the
// ones a free value is fitted to, and contended figures other than the
// ping-pong and the 2-thread add are predictions.
func TestCalibrateFitsAndLoads(t *testing.T) {
	topo, _ := ReadTopology(sysfs(1, 2, 1))
	m := newFake(topo)
	cal, err := Calibrate(fakeFigures(t, m), topo, Provenance{CPU: "fake"}, func(s *scenarios.Scenario) scenarios.Runner { return s.Serial })
	if err != nil {
		t.Fatal(err)
	}
	if _, err := scenarios.LoadProfile(fstest.MapFS{"h.toml": {Data: []byte(cal.Profile)}}, "h.toml"); err != nil {
		t.Fatalf("profile does not load: %v\n%s", err, cal.Profile)
	}
	keys := slices.DeleteFunc(scenarios.ProfileKeys(), func(k string) bool { return k == "pause" })
	if older := ProfileTOML("host", cal.Values, cal.Figures, Provenance{}, keys); !strings.Contains(older, "\n# pause = ") {
		t.Errorf("pause, for a loader without it, is not a comment:\n%s", older)
	}
	ncal := 0
	for _, r := range cal.Rows {
		if r.Role == "calibrate" {
			ncal++
			// The 2-thread add does a whole number of adds each time the
			// line comes, smoothed only by the jitter: its fit is a step
			// function of the window, which lands within a step.
			tol := 2.0
			if r.Variant == "add" && r.X == 2 {
				tol = 5
			}
			// On the fake machine every add moves the line and the work
			// after it waits: the model's work, even when it waits (a
			// miss_overlap of 0, the bound), overlaps the other thread's
			// transfer, so the figure is out of reach and its error shows.
			if r.Variant == "add-work10" && r.X == 2 && cal.Values["miss_overlap"].V < 0.01 {
				tol = math.Inf(1)
			}
			if math.Abs(r.ErrorPct) > tol {
				t.Errorf("calibrate %s x%v: measured %.3g, simulated %.3g (%+.1f%%)", r.Variant, r.X, r.Measured, r.Predicted, r.ErrorPct)
			}
		}
		// The ping-pong and the 2-thread adds are primitives: they set
		// the transfer, how long an owner keeps a line being taken and
		// whether the work after a waiting atomic runs ahead.
		if r.X > 1 && r.Variant != "pingpong" && r.Variant != "add" && r.Variant != "add-work10" && r.Role != "validate" {
			t.Errorf("contended %s x%v is %s, want validate", r.Variant, r.X, r.Role)
		}
	}
	if ncal != len(cal.Series.Free) {
		t.Errorf("%d calibrate points for %d free values", ncal, len(cal.Series.Free))
	}
}

// Provenance comes from /proc and /sys as a guest shows them.
func TestProvenance(t *testing.T) {
	// Fields 40 (rt_priority) and 41 (policy) are 1: SCHED_FIFO priority 1;
	// the command name holds spaces and parentheses.
	stat := "42 (a (b) c) R " + strings.Repeat("0 ", 36) + "1 1 0 0"
	fs := fstest.MapFS{
		"proc/cpuinfo": {Data: []byte("processor\t: 0\nmodel name\t: AMD EPYC\ncpu MHz\t\t: 2096.006\nflags\t\t: fpu hypervisor lm sse4a avx2 clzero\n")},
		"sys/devices/system/cpu/cpu0/cache/index0/level": {Data: []byte("1\n")},
		"sys/devices/system/cpu/cpu0/cache/index0/type":  {Data: []byte("Data\n")},
		"sys/devices/system/cpu/cpu0/cache/index0/size":  {Data: []byte("32K\n")},
		"sys/devices/system/cpu/cpu0/cache/index1/level": {Data: []byte("2\n")},
		"sys/devices/system/cpu/cpu0/cache/index1/type":  {Data: []byte("Unified\n")},
		"sys/devices/system/cpu/cpu0/cache/index1/size":  {Data: []byte("512K\n")},
		"proc/sys/kernel/osrelease":                      {Data: []byte("6.18.44\n")},
		"proc/loadavg":                                   {Data: []byte("0.10 0.20 0.30 1/100 42\n")},
		"proc/self/stat":                                 {Data: []byte(stat + "\n")},
	}
	p := ReadProvenance(fs, time.Date(2026, 11, 30, 7, 0, 0, 0, time.UTC))
	want := Provenance{CPU: "AMD EPYC", MHz: "2096.006", Kernel: "6.18.44", Hypervisor: "yes (cpuid hypervisor flag)",
		Load: "0.10 0.20 0.30 1/100 42", Sched: "SCHED_FIFO priority 1", Caches: "L1d 32K L2 512K", Features: "avx2 sse4a clzero"}
	if p.Caches != want.Caches || p.Features != want.Features || p.CPU != want.CPU || p.MHz != want.MHz || p.Kernel != want.Kernel || p.Hypervisor != want.Hypervisor || p.Load != want.Load || p.Sched != want.Sched {
		t.Errorf("provenance %+v, want %+v", p, want)
	}
}

// A core that runs a share of the work after a waiting atomic while it
// waits, as far as a reorder window shorter than 100 units of work and
// longer than 20: the timed rmw-work figures give the share and the window
// back, the profile fitted to the machine carries them, and its check,
// where the 2-thread adds with work after them are now predictions, shows
// no error.
func TestCalibrateMeasuresTheReorderWindow(t *testing.T) {
	truth := builtinTruth(t)
	truth.RunAhead, truth.ReorderReach = 0.6, 100 // 33 ns at 3 GHz: more than 0.6 of 20 units (16 ns), less than of 100
	cal := calibrateSimulated(t, truth)
	for k, want := range map[string]float64{"run_ahead": truth.RunAhead, "reorder_reach": truth.ReorderReach} {
		v, ok := cal.Values[k]
		if !ok {
			t.Fatalf("no %s from the figures", k)
		}
		within(t, k, v.V, want, 0.02)
		if !strings.Contains(cal.Profile, k+" = ") {
			t.Errorf("the profile does not carry %s:\n%s", k, cal.Profile)
		}
	}
	if _, ok := cal.Values["miss_overlap"]; ok {
		t.Errorf("miss_overlap %v beside a timed run_ahead", cal.Values["miss_overlap"].V)
	}
	if slices.Contains(cal.Series.Free, "profile.miss_overlap") {
		t.Errorf("the 2-thread add with work is still a calibrate figure: free %v", cal.Series.Free)
	}
	for _, r := range cal.Rows {
		if math.Abs(r.ErrorPct) > 2 {
			t.Errorf("%s %s x%v: measured on the model %.4g, simulated %.4g (%+.1f%%)", r.Role, r.Variant, r.X, r.Measured, r.Predicted, r.ErrorPct)
		}
	}
	// Where the wait, not the window, stops the work, the figures say
	// nothing of the window.
	truth.ReorderReach = 300 // 100 ns: longer than the 70 ns wait
	if _, ok := calibrateSimulated(t, truth).Values["reorder_reach"]; ok {
		t.Error("reorder_reach read from a core whose wait, not its window, stopped the work")
	}
}

// builtinTruth is the profile of Scenario's built-in host.
func builtinTruth(t *testing.T) *scenarios.Profile {
	t.Helper()
	s, err := scenarios.LoadBuiltin(Scenario)
	if err != nil {
		t.Fatal(err)
	}
	return s.Profiles[ProfileName]
}

// calibrateSimulated measures every figure of Plan on the model of truth
// and calibrates from them.
func calibrateSimulated(t *testing.T, truth *scenarios.Profile) *Calibration {
	t.Helper()
	m, err := NewSimulated(truth)
	if err != nil {
		t.Fatal(err)
	}
	figs, err := MeasureAll(m, Plan(m.Topology(), m), Quick, nil)
	if err != nil {
		t.Fatal(err)
	}
	cal, err := Calibrate(figs, m.Topology(), Provenance{}, func(s *scenarios.Scenario) scenarios.Runner { return s.Serial })
	if err != nil {
		t.Fatal(err)
	}
	return cal
}

// Calibrating a machine that is contend's own model gives its profile back,
// and the check of every loop, contended ones included, shows no error.
func TestCalibrateTheModel(t *testing.T) {
	truth := builtinTruth(t)
	truth.StoreAfterAtomic = 4 * sim.Nanosecond // longer than the store's cycle and drain: the fit must find it
	cal := calibrateSimulated(t, truth)
	want := map[string]float64{"ghz": truth.GHz, "atomic": truth.Atomic.Nanoseconds(), "atomic_overlap": truth.AtomicOverlap,
		"store_drain": truth.StoreDrain.Nanoseconds(), "store_after_atomic": truth.StoreAfterAtomic.Nanoseconds(), "same_socket": truth.SameSocket.Nanoseconds(),
		"l1_hit": truth.L1Hit.Nanoseconds(), "memory": truth.Memory.Nanoseconds(), "wakeup": truth.Wakeup.Nanoseconds()}
	for k, v := range want {
		within(t, k, cal.Values[k].V, v, 0.02)
	}
	for _, r := range cal.Rows {
		if math.Abs(r.ErrorPct) > 2 {
			t.Errorf("%s %s x%v: measured on the model %.4g, simulated %.4g (%+.1f%%)", r.Role, r.Variant, r.X, r.Measured, r.Predicted, r.ErrorPct)
		}
	}
	// The model has one latency a transfer: the accesses timed alone are
	// each that, and the note sets them beside the fitted one.
	note := cal.Timed
	var load, rmw, shared, xfer float64
	if _, err := fmt.Sscanf(note[strings.Index(note, "modified ")+len("modified "):], "%g ns, an atomic on it %g ns, an atomic on a line both read %g ns; the profile's transfer (same_socket) is %g",
		&load, &rmw, &shared, &xfer); err != nil {
		t.Fatalf("note %q: %v", note, err)
	}
	for _, v := range []float64{load, rmw, shared} {
		within(t, "a timed access", v, truth.SameSocket.Nanoseconds(), 0.01)
	}
	within(t, "the fitted transfer", xfer, truth.SameSocket.Nanoseconds(), 0.02)
}

// A latency's spread is its figures' IQR read as a normal one's (IQR/1.349
// is one standard deviation), carried through the value's formula: scaled
// with it, halved with a round trip, added in quadrature over a difference
// or a sum.
// The profile writes it as "V ± SD" and the loader reads it back.
func TestSpreadFromIQR(t *testing.T) {
	topo, _ := ReadTopology(sysfs(1, 2, 1))
	figs := fakeFigures(t, newFake(topo))
	sd := map[string]float64{}
	for i := range figs {
		s := &figs[i].Stat
		sd[figs[i].Name] = 0.05 * s.Median
		s.Q1, s.Q3 = s.Median-0.5*1.349*sd[figs[i].Name], s.Median+0.5*1.349*sd[figs[i].Name]
	}
	v := Estimate(figs, topo)
	cycle := sd["work50"] / (50 * cyclesPerUnit)
	drain := math.Sqrt(sd["store-add"]*sd["store-add"] + sd["add"]*sd["add"] + cycle*cycle)
	for key, want := range map[string]float64{
		"atomic": sd["add"], "wakeup": sd["wakeup"] / 2, "same_socket": math.Hypot(sd[pingpongOf(SameLLC)]/4, sd["add"]/2), "store_drain": drain,
	} {
		within(t, key+" spread", v[key].SD, want, 1e-4)
	}
	if v["atomic_overlap"].SD != 0 || v["cores_per_socket"].SD != 0 {
		t.Errorf("a fraction or a count carries a spread: %v, %v", v["atomic_overlap"].SD, v["cores_per_socket"].SD)
	}
	text := ProfileTOML("host", v, figs, Provenance{}, scenarios.ProfileKeys())
	p, err := scenarios.LoadProfile(fstest.MapFS{"h.toml": {Data: []byte(text)}}, "h.toml")
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	for _, key := range []string{"atomic", "wakeup", "same_socket", "store_drain", "l1_hit"} {
		if got := p.Spread[key].PS / 1e3; math.Abs(got-v[key].SD) > 0.0005 {
			t.Errorf("%s: loaded spread %v ns, written %v ns", key, got, v[key].SD)
		}
	}
}

// A machine whose line latencies change while it is measured (a guest whose
// vCPUs the hypervisor moved) shows it in the check: the ping-pong measured
// again after the contended loops is a validate row, whose error is the
// drift against the profile fitted to the first.
func TestCheckShowsDrift(t *testing.T) {
	topo, _ := ReadTopology(sysfs(1, 2, 1))
	figs := fakeFigures(t, newFake(topo))
	moved := false
	for i := range figs {
		if figs[i].Name == pingpongOf(SameLLC)+again {
			figs[i].Stat.Median *= 1.3
			moved = true
		}
	}
	if !moved {
		t.Fatalf("the plan measures no %q", pingpongOf(SameLLC)+again)
	}
	cal, err := Calibrate(figs, topo, Provenance{CPU: "fake"}, func(s *scenarios.Scenario) scenarios.Runner { return s.Serial })
	if err != nil {
		t.Fatal(err)
	}
	var roles []string
	for _, r := range cal.Rows {
		if r.Variant != "pingpong" {
			continue
		}
		roles = append(roles, r.Role)
		if want := 100 * (1/1.3 - 1); r.Role == "validate" && math.Abs(r.ErrorPct-want) > 1 {
			t.Errorf("repeated ping-pong: error %+.1f%%, want the drift, %+.1f%%", r.ErrorPct, want)
		}
	}
	if !slices.Equal(roles, []string{"calibrate", "validate"}) {
		t.Errorf("ping-pong rows %v, want the fitted one and its repeat", roles)
	}
}

// The profile names the vendor's coherence protocol from the CPU's model
// name, and the loader takes it; an unknown vendor gets the default.
func TestProfileCoherence(t *testing.T) {
	topo, _ := ReadTopology(sysfs(1, 2, 1))
	figs := fakeFigures(t, newFake(topo))
	v := Estimate(figs, topo)
	for cpu, want := range map[string]cacheline.Forwarding{
		"AMD EPYC 7R13 Processor": cacheline.ForwardOwner, "Intel(R) Xeon(R) Platinum 8275CL": cacheline.ForwardLLC, "fake": cacheline.ForwardLLC,
	} {
		text := ProfileTOML("host", v, figs, Provenance{CPU: cpu}, scenarios.ProfileKeys())
		p, err := scenarios.LoadProfile(fstest.MapFS{"h.toml": {Data: []byte(text)}}, "h.toml")
		if err != nil {
			t.Fatalf("%s: %v\n%s", cpu, err, text)
		}
		if p.Forward != want {
			t.Errorf("%s: forwarding %v, want %v", cpu, p.Forward, want)
		}
	}
}

// A contended loop measured after the machine changed is compared with the
// machine it ran on: the ping-pong measured just before it is 30% slower,
// so its row is predicted with the pair's latency refitted to that one
// (slower transfers: a slower lock), and says so; the other rows are not.
func TestCheckFollowsDrift(t *testing.T) {
	topo, _ := ReadTopology(sysfs(1, 2, 1))
	figs := fakeFigures(t, newFake(topo))
	row := func(cal *Calibration, variant string) scenarios.Row {
		for _, r := range cal.Rows {
			if r.Variant == variant && r.X == 2 {
				return r
			}
		}
		t.Fatalf("no %s x2 row", variant)
		return scenarios.Row{}
	}
	serial := func(s *scenarios.Scenario) scenarios.Runner { return s.Serial }
	calm, err := Calibrate(figs, topo, Provenance{}, serial)
	if err != nil {
		t.Fatal(err)
	}
	moved := slices.Clone(figs)
	i := slices.IndexFunc(moved, func(f Figure) bool { return f.Name == pingpongOf(SameLLC)+before+"ticket x2" })
	if i < 0 {
		t.Fatalf("the plan measures no ping-pong before ticket x2")
	}
	moved[i].Stat.Median *= 1.3
	cal, err := Calibrate(moved, topo, Provenance{}, serial)
	if err != nil {
		t.Fatal(err)
	}
	before, after := row(calm, "ticket"), row(cal, "ticket")
	if !(after.Predicted < 0.95*before.Predicted) || !strings.Contains(after.Source, "refitted to the ping-pong measured just before") {
		t.Errorf("ticket x2 predicted %.4g (%s), undisturbed %.4g: want it slower and said", after.Predicted, after.Source, before.Predicted)
	}
	if len(calm.Notes) != 0 || len(cal.Notes) != 1 || !strings.HasPrefix(cal.Notes[0], "ticket x2 predicted with same_socket refitted") {
		t.Errorf("notes %q undisturbed, %q moved; want none, then one for ticket x2", calm.Notes, cal.Notes)
	}
	if a, b := row(cal, "mcs"), row(calm, "mcs"); a.Predicted != b.Predicted || a.Source != b.Source {
		t.Errorf("mcs x2 changed (%.4g, %s), though its ping-pong did not", a.Predicted, a.Source)
	}
}

// Unsteady names a calibrate figure whose samples spread wider than MaxIQR
// (a ping-pong measured half in one placement of the vCPUs and half in the
// other), and no figure of a steady run; a contended loop's spread is the
// check's business, not the profile's.
func TestUnsteadyCalibrateFigures(t *testing.T) {
	topo, _ := ReadTopology(sysfs(1, 2, 1))
	m := newFake(topo)
	m.outliers = 0 // a quiet host: 1% noise
	figs := fakeFigures(t, m)
	c := &Calibration{Figures: figs, topo: topo}
	if u := c.Unsteady(); len(u) != 0 {
		t.Fatalf("steady run: %d unsteady figures, first %s (IQR %.1f%%)", len(u), u[0].Name, u[0].Stat.IQRPct())
	}
	for i := range figs {
		switch figs[i].Name {
		case "pingpong same_llc", "ticket x2":
			figs[i].Stat = Summarize([]float64{120, 121, 123, 470, 475, 480, 485})
		}
	}
	u := c.Unsteady()
	if len(u) != 1 || u[0].Name != "pingpong same_llc" {
		names := []string{}
		for _, f := range u {
			names = append(names, f.Name)
		}
		t.Errorf("unsteady: %v; want the ping-pong alone (ticket x2 is a contended loop, not fitted)", names)
	}
}

// A ping-pong that moved far (a guest moved to another core complex: a
// tenth of the first) is followed all the way: the ticket loop measured
// after it is predicted as on a machine whose every ping-pong was that
// fast. The search used to start from the first fit and stop at a quarter
// of it.
func TestCheckFollowsLargeDrift(t *testing.T) {
	topo, _ := ReadTopology(sysfs(1, 2, 1))
	figs := fakeFigures(t, newFake(topo))
	serial := func(s *scenarios.Scenario) scenarios.Runner { return s.Serial }
	const drift = 0.1
	moved := slices.Clone(figs)
	i := slices.IndexFunc(moved, func(f Figure) bool { return f.Name == pingpongOf(SameLLC)+before+"ticket x2" })
	if i < 0 {
		t.Fatalf("the plan measures no ping-pong before ticket x2")
	}
	moved[i].Stat.Median *= drift
	fast := slices.Clone(figs)
	for j := range fast {
		if strings.HasPrefix(fast[j].Name, pingpongOf(SameLLC)) {
			fast[j].Stat.Median *= drift
		}
	}
	ticket := func(figs []Figure) float64 {
		cal, err := Calibrate(figs, topo, Provenance{}, serial)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range cal.Rows {
			if r.Variant == "ticket" && r.X == 2 {
				return r.Predicted
			}
		}
		t.Fatal("no ticket x2 row")
		return 0
	}
	got, want := ticket(moved), ticket(fast)
	if math.Abs(got/want-1) > 0.05 {
		t.Errorf("ticket x2 after a ping-pong %.0f%% of the first: predicted %.4g; on a machine fitted to that ping-pong %.4g", 100*drift, got, want)
	}
}

// Where the readers loop and the two ping-pongs disagree about what a load
// of a modified line does, the reading nearer the value it stands for wins;
// where they agree, or only one gives a verdict, that verdict stands.
func TestLoadModifiedDisagreement(t *testing.T) {
	fig := func(name string, cpus []int, v float64) Figure {
		return Figure{Name: name, Job: Job{CPUs: cpus}, Stat: Stat{Median: v, N: 1}}
	}
	pair := []int{0, 1}
	record := func(pp, cas, readers float64) figures {
		return figures{
			fig("pingpong same_llc", pair, pp),
			fig("pingpong same_llc before pingpong-cas same_llc", pair, pp),
			fig("pingpong-cas same_llc", pair, cas),
			fig("pingpong same_llc before readers x1", pair, pp),
			fig("readers x1", pair, readers),
		}
	}
	for _, c := range []struct {
		name              string
		pp, cas, readers  float64
		want              float64
		disagreementNoted bool
	}{
		{"both migrate", 200, 200, 400, 1, false},
		{"both share", 200, 100, 200, 0, false},
		{"CAS at the edge of share, readers squarely migrate (run 13)", 244, 154.4, 505, 1, true},
		{"CAS squarely share, readers at the edge of migrate", 200, 100, 330, 0, true},
		{"CAS says nothing, readers migrate", 200, 140, 400, 1, false},
		{"CAS share, readers near neither", 200, 100, 300, 0, false},
	} {
		m, how, ok := loadModified(record(c.pp, c.cas, c.readers), Topology{})
		if !ok || m != c.want {
			t.Errorf("%s: load_modified %v (known %v), want %v: %s", c.name, m, ok, c.want, how)
		}
		if noted := strings.Contains(how, "says otherwise"); noted != c.disagreementNoted {
			t.Errorf("%s: %q; want the disagreement noted: %v", c.name, how, c.disagreementNoted)
		}
	}
}
