package perffile

import (
	"flag"
	"io"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"contend/scenarios"
)

// scenario loads one of the embedded scenarios from its file.
func scenario(t testing.TB, name string) *scenarios.Scenario {
	t.Helper()
	s, err := scenarios.Load(os.DirFS("../scenarios"), name+".toml")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// imported imports testdata/file with o and decodes its references.
func imported(t *testing.T, file string, o Options) (string, map[string]scenarios.Reference) {
	t.Helper()
	src, err := os.ReadFile("testdata/" + file)
	if err != nil {
		t.Fatal(err)
	}
	out, err := Import(file, src, o)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Series struct{ Reference []scenarios.Reference }
	}
	if _, err := toml.Decode(out, &doc); err != nil {
		t.Fatalf("not TOML: %v\n%s", err, out)
	}
	got := map[string]scenarios.Reference{}
	for _, r := range doc.Series.Reference {
		if _, dup := got[r.Variant+" "+r.Metric]; dup {
			t.Errorf("%s %s given twice", r.Variant, r.Metric)
		}
		got[r.Variant+" "+r.Metric] = r
	}
	return out, got
}

// want checks the figures of refs against values worked out by hand from
// the fixture, and that nothing else was imported.
func want(t *testing.T, refs map[string]scenarios.Reference, values map[string]float64) {
	t.Helper()
	for k, v := range values {
		if r, ok := refs[k]; !ok || math.Abs(r.Value-v) > 1e-6*v {
			t.Errorf("%s = %v, want %v", k, refs[k].Value, v)
		}
	}
	for k := range refs {
		if _, ok := values[k]; !ok {
			t.Errorf("imported %s, which the file does not give", k)
		}
	}
}

// perf report --stdio --no-children of two events: the cycles report's
// symbols, each summed over the two pktgen threads, less those ingress
// does not simulate; the instructions report is skipped, and said so.
func TestImportPerfReportStdio(t *testing.T) {
	out, refs := imported(t, "perf-report-stdio.txt", Options{Variants: []string{"locked"}, X: 2, MinShare: 1, Role: "validate", Scenario: scenario(t, "ingress")})
	want(t, refs, map[string]float64{
		"locked share_of_cycles__raw_spin_lock":           30.91 + 30.46,
		"locked share_of_cycles___netif_receive_skb_core": 7.08 + 6.94,
		"locked share_of_cycles_ingress_enqueue":          2.99 + 2.94,
		"locked share_of_cycles_tc_classify":              0.61 + 0.59,
	})
	for _, note := range []string{"kfree_skb 8.11%", "event \"instructions\", skipped"} {
		if !strings.Contains(out, note) {
			t.Errorf("the import does not note %q:\n%s", note, out)
		}
	}
	golden(t, "import-perf-report-stdio.golden", out)
}

// perf report --stdio with children: a symbol's share is its Self column,
// not its Children (pktgen_thread_worker is 99.38% with its callees, 2.54%
// alone).
func TestImportPerfReportChildren(t *testing.T) {
	_, refs := imported(t, "perf-report-children.txt", Options{Variants: []string{"locked"}, X: 1, MinShare: 1, Role: "validate"})
	want(t, refs, map[string]float64{
		"locked share_of_cycles_pktgen_thread_worker":     2.54,
		"locked share_of_cycles___netif_receive_skb_core": 13.10,
		"locked share_of_cycles__raw_spin_lock":           61.37,
		"locked share_of_cycles_kfree_skb":                8.11,
		"locked share_of_cycles_ingress_enqueue":          5.93,
		"locked share_of_cycles_tc_classify":              1.20,
	})
}

// Seed 002 quotes two profiles four levels deep, with no header: both are
// read, each its own block, and each symbol flower-insert simulates is
// kept.
func TestImportSeed002(t *testing.T) {
	_, refs := imported(t, "seeds/002_45deaede6f0d2a8e.txt", Options{Variants: []string{"pre-regression", "sync-rcu"}, X: 1, MinShare: 1, Role: "validate", Scenario: scenario(t, "flower-insert")})
	want(t, refs, map[string]float64{
		"pre-regression share_of_cycles_tcf_chain_tp_find": 77.24,
		"sync-rcu share_of_cycles_tcf_chain_tp_find":       75.57,
	})
}

// A reply that quotes a report repeats it: one block, not two.
func TestImportQuotedRepeat(t *testing.T) {
	report := "    61.37%  kpktgend_0  [kernel.vmlinux]  [k] _raw_spin_lock\n     5.93%  kpktgend_0  [sch_ingress]     [k] ingress_enqueue\n"
	src := "On Mon, someone wrote:\n" + strings.ReplaceAll(">"+report, "\n    ", "\n>    ") + "\nThe lock is 61%:\n\n" + report
	out, err := Import("mail.txt", []byte(src), Options{Variants: []string{"locked"}, MinShare: 1, Role: "validate"})
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out, "share_of_cycles__raw_spin_lock"); n != 1 || !strings.Contains(out, "mail.txt:2: perf report") {
		t.Errorf("the quote and its original gave %d blocks of the lock, want the quote's alone:\n%s", n, out)
	}
}

// perf c2c report --stdio: the lock's cacheline is found by
// _raw_spin_lock, the stats' by ingress_enqueue, and the third touches no
// line of ingress; the shares are of the HITMs of the two matched.
func TestImportC2C(t *testing.T) {
	out, refs := imported(t, "perf-c2c-report.txt", Options{Variants: []string{"locked"}, X: 2, Role: "validate", Scenario: scenario(t, "ingress")})
	want(t, refs, map[string]float64{
		"locked hitm_share_qdisc_lock":      100 * 4480.0 / (4480 + 2370),
		"locked hitm_share_qdisc_bstats":    100 * 2370.0 / (4480 + 2370),
		"locked hitm_of_loads_qdisc_lock":   100 * 4480.0 / 6312,
		"locked hitm_of_loads_qdisc_bstats": 100 * 2370.0 / 3148,
	})
	if !strings.Contains(out, "1 cachelines matched no line of ingress") {
		t.Errorf("the import does not say a cacheline matched nothing:\n%s", out)
	}
	golden(t, "import-perf-c2c.golden", out)
	// An address names the cacheline where symbols do not say.
	_, refs = imported(t, "perf-c2c-report.txt", Options{Variants: []string{"locked"}, X: 2, Role: "validate", Scenario: scenario(t, "ingress"),
		Lines: map[string]string{"qdisc_bstats": "0xffff88810e1d3a40"}})
	if got := refs["locked hitm_share_qdisc_bstats"].Value; math.Abs(got-100*212.0/(4480+212)) > 1e-6 {
		t.Errorf("--line qdisc_bstats=0xffff88810e1d3a40: share %v, want %v", got, 100*212.0/(4480+212))
	}
}

// perf c2c cuts a symbol to 26 characters: a label matches its cut.
func TestSameSymbol(t *testing.T) {
	for _, tc := range []struct {
		sym, label string
		same       bool
	}{
		{"native_queued_spin_lock_sl", "native_queued_spin_lock_slowpath", true},
		{"_raw_spin_lock", "_raw_spin_lock", true},
		{"_raw_spin", "_raw_spin_lock", false},
		{"native_queued_spin_lock_sx", "native_queued_spin_lock_slowpath", false},
	} {
		if got := sameSymbol(tc.sym, tc.label); got != tc.same {
			t.Errorf("sameSymbol(%q, %q) = %v", tc.sym, tc.label, got)
		}
	}
}

// /proc/lock_stat: the class --lock names gives its lock's contentions
// over its acquisitions, and its waittime-total over its contentions (in
// us, as lock_stat prints times); a reader-writer class's two rows are
// summed.
func TestImportLockStat(t *testing.T) {
	_, refs := imported(t, "lock_stat.txt", Options{Variants: []string{"locked"}, X: 2, Role: "validate", Scenario: scenario(t, "ingress"),
		Locks: map[string]string{"qdisc_lock": "&sch->q.lock"}})
	want(t, refs, map[string]float64{"locked contended_qdisc_lock": 100 * 5210448.0 / 10421904, "locked mean_wait_qdisc_lock": 1589177.21 / 5210448})
	if u := refs["locked mean_wait_qdisc_lock"].Unit; u != "us" {
		t.Errorf("mean_wait_qdisc_lock in %q, want us", u)
	}
	src, err := os.ReadFile("testdata/lock_stat.txt")
	if err != nil {
		t.Fatal(err)
	}
	lines, err := splitLines("lock_stat.txt", src)
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := readLockStat("lock_stat.txt", lines, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.locks) != 3 || b.locks[2].name != "&mm->mmap_lock" || b.locks[2].contentions != 84+100 || b.locks[2].acquisitions != 2922365+34316685 {
		t.Errorf("classes %+v, want three, the last &mm->mmap_lock with its -W and -R rows summed", b.locks)
	}
}

// Bad input gets an error that names the file and line and says what to
// give.
func TestImportFormatErrors(t *testing.T) {
	c2c, err := os.ReadFile("testdata/perf-c2c-report.txt")
	if err != nil {
		t.Fatal(err)
	}
	lockstat, err := os.ReadFile("testdata/lock_stat.txt")
	if err != nil {
		t.Fatal(err)
	}
	ingress := scenario(t, "ingress")
	o := Options{Variants: []string{"locked"}, Role: "validate", Scenario: ingress}
	peer := strings.Replace(strings.Replace(string(c2c), "------- Load Hitm -------", "------- Load Peer -------", 1), "   Tot  ", "  Peer  ", 1)
	for _, tc := range []struct {
		name, src string
		o         Options
		want      string
	}{
		{"no scenario", string(c2c), Options{Variants: []string{"locked"}}, "c.txt:2: perf c2c: give --scenario NAME"},
		{"unknown variant", string(c2c), Options{Variants: []string{"locky"}, Scenario: ingress}, "c.txt:2: perf c2c: ingress has no variant \"locky\""},
		{"a row cut short", strings.Replace(string(c2c), "   63.44%     4480", "   63.44%", 1), o, "c.txt:73: perf c2c: a row of the Shared Data Cache Line Table has 22 fields, its header 23 columns"},
		{"peer display", peer, o, "c.txt:71: perf c2c: the Shared Data Cache Line Table has no Hitm column"},
		{"two lines on one cacheline", string(c2c), Options{Variants: []string{"locked"}, Scenario: ingress, Lines: map[string]string{"qdisc_bstats": "0xffff8881052a4c00"}},
			"perf c2c: lines qdisc_bstats and qdisc_lock of ingress both match cacheline 0xffff8881052a4c00"},
		{"an address not listed", string(c2c), Options{Variants: []string{"locked"}, Scenario: ingress, Lines: map[string]string{"qdisc_lock": "0xffff"}},
			"--line qdisc_lock=0xffff: c.txt:2: the perf c2c report lists no cacheline 0xffff"},
		{"no class", string(lockstat), o, "c.txt:1: lock_stat: no class names a lock of ingress (qdisc_lock); name each with --lock LOCK=CLASS"},
		{"another version", strings.Replace(string(lockstat), "version 0.4", "version 0.3", 1), o, "c.txt:1: lock_stat version 0.3: contend reads version 0.4"},
		{"a bad figure", strings.Replace(string(lockstat), "5123811        5210448", "5123811        5,21,448", 1), o, "c.txt:6: lock_stat: &sch->q.lock: contentions: \"5,21,448\" is not a number"},
	} {
		if _, err := Import("c.txt", []byte(tc.src), tc.o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}

// --line and --lock take NAME=VALUE, each name once.
func TestMatchFlags(t *testing.T) {
	var o Options
	fs := flag.NewFlagSet("import", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	o.MatchFlags(fs)
	if err := fs.Parse([]string{"--line", "qdisc_lock=0xffff8881052a4c00", "--lock", "qdisc_lock=&sch->q.lock"}); err != nil || o.Lines["qdisc_lock"] != "0xffff8881052a4c00" || o.Locks["qdisc_lock"] != "&sch->q.lock" {
		t.Errorf("parsed %v %v, %v", o.Lines, o.Locks, err)
	}
	for _, args := range [][]string{{"--line", "qdisc_lock"}, {"--lock", "=x"}, {"--line", "qdisc_lock=0x1"}} {
		if err := fs.Parse(args); err == nil {
			t.Errorf("%q parsed", args)
		}
	}
}
