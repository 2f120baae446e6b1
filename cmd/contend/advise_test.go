package main

import (
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"contend/advise"
	"contend/report"
	"contend/scenarios"
	"contend/sweep"
)

func adviseJSONOf(t *testing.T, args ...string) report.Advice {
	t.Helper()
	var a report.Advice
	if err := json.Unmarshal([]byte(mustRun(t, append([]string{"advise", "--format", "json"}, args...)...)), &a); err != nil {
		t.Fatal(err)
	}
	return a
}

// rateOf simulates a hand-written variant of a built-in at the point
// advise took, as run would, per second.
func rateOf(t *testing.T, name string, a report.Advice, variant string) float64 {
	t.Helper()
	s, err := scenarios.LoadBuiltin(name)
	if err != nil {
		t.Fatal(err)
	}
	se, err := advise.SeriesOf(s, variant, a.Series)
	if err != nil {
		t.Fatal(err)
	}
	pts := s.Replicate([]scenarios.Point{{Series: se, Variant: variant, Axis: a.Axis, X: a.X, Seed: s.Run.Seed}})
	rs, err := sweep.Runner(s, 2, nil)(pts)
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for _, r := range rs {
		sum += advise.Rate(s, r)
	}
	return sum / float64(len(rs))
}

// Seed 000: on two cores the patch (no qdisc lock, per-cpu stats) is the
// best change to the locked ingress qdisc, and the variant advise derives
// from the locked code path predicts what the patch's own variant does.
func TestAdviseIngress(t *testing.T) {
	a := adviseJSONOf(t, "ingress", "--variant", "locked", "--cores", "2")
	top := a.Rows[0]
	if top.Rule != "percpu-unlocked" || top.Change != "per-cpu qdisc_bstats; no qdisc_lock" {
		t.Fatalf("first: %s (%s); want the patch of seed 000", top.Change, top.Rule)
	}
	if patch := 1e-6 * rateOf(t, "ingress", a, "lockless"); math.Abs(top.Rate-patch) > 0.005*patch {
		t.Errorf("derived %.3f Mpps, the patch's variant %.3f Mpps", top.Rate, patch)
	}
	if !strings.Contains(top.Explain, "qdisc_lock stops moving") || !strings.Contains(top.Explain, "qdisc_bstats stops moving") {
		t.Errorf("explain %q; want both lines to stop moving", top.Explain)
	}
	text := mustRun(t, "advise", "ingress", "--variant", "locked", "--cores", "2", "--format", "csv", "--jobs", "1")
	if again := mustRun(t, "advise", "ingress", "--variant", "locked", "--cores", "2", "--format", "csv", "--jobs", "2"); again != text {
		t.Errorf("advise printed\n%s\non one job and\n%s\non two", text, again)
	}
	rows, err := csv.NewReader(strings.NewReader(text)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(a.Rows)+2 || rows[1][2] != "none" || rows[2][3] != top.Variant || rows[2][1] != top.Rule {
		t.Errorf("csv %v; want a header, the base variant, then the rows as json ranks them", rows)
	}
}

// netdev-refcnt's variant frees each route in a call_rcu callback that
// drops the device reference. advise changes the callback with the variant:
// its per-cpu dev_refcnt moves the send path's dev_hold and the callback's
// dev_put, as the commit did, and predicts within 0.5% what the commit's
// hand-written variant does. (Rows whose callbacks were dropped gained
// 22-25% each; rows that left them as written changed dev_hold alone.)
func TestAdviseChangesCallbacks(t *testing.T) {
	a := adviseJSONOf(t, "netdev-refcnt", "--variant", "atomic-refcnt")
	var row *report.AdviceRow
	for i := range a.Rows {
		if a.Rows[i].Change == "per-cpu dev_refcnt" {
			row = &a.Rows[i]
		}
	}
	if row == nil {
		t.Fatalf("no per-cpu dev_refcnt row in %+v", a.Rows)
	}
	if commit := 1e-6 * rateOf(t, "netdev-refcnt", a, "percpu-refcnt"); math.Abs(row.Rate-commit) > 0.005*commit {
		t.Errorf("per-cpu dev_refcnt %.3f Mpps (%+.1f%%), the commit's variant %.3f Mpps", row.Rate, row.GainPct, commit)
	}
	if !strings.Contains(row.Explain, "dev_refcnt stops moving") {
		t.Errorf("explain %q; want dev_refcnt to stop moving", row.Explain)
	}
}

// On qspinlock's before variant advise finds the commit itself (2c83e8e9492d:
// the queue head claims with a store) and predicts what the hand-written
// after variant does. On the after variant, a 4.2 kernel's, what is left
// is 4.5's prefetch of the successor's node; on a qspinlock as Linux has
// it now, nothing.
func TestAdviseQspinlockClaim(t *testing.T) {
	a := adviseJSONOf(t, "qspinlock", "--variant", "qspinlock-before")
	if len(a.Rows) == 0 || a.Rows[0].Rule != "claim-store" {
		t.Fatalf("rows %+v; want the claim-store rule first", a.Rows)
	}
	if commit := 1e-6 * rateOf(t, "qspinlock", a, "qspinlock"); math.Abs(a.Rows[0].Rate-commit) > 0.005*commit {
		t.Errorf("claim by store %.3f Mlocks/s, the commit's variant %.3f", a.Rows[0].Rate, commit)
	}
	if after := adviseJSONOf(t, "qspinlock", "--variant", "qspinlock"); len(after.Rows) != 1 || after.Rows[0].Rule != "prefetch-next" {
		t.Errorf("rows %+v on the after variant; want the prefetch-next rule alone", after.Rows)
	}
	// A qspinlock as Linux has it now is where the lock rules lead:
	// advise says so, rather than that no line is written by more than
	// one CPU (the lock word and the queue nodes are).
	if out := mustRun(t, "advise", "testdata/qspinlock-now.toml", "--variant", "locked"); !strings.Contains(out, "no rule applies") || !strings.Contains(out, "already where the lock rules lead") {
		t.Errorf("advise on a qspinlock of today:\n%s\nwant no rule, and why", out)
	}
}

// Seed 004: at 6 queues advise finds the patch's per-cpu count flushed
// once per jiffy, and predicts what the hand-written percpu-lazy does.
func TestAdviseDstUse(t *testing.T) {
	a := adviseJSONOf(t, "dst-use", "--variant", "eager", "--cores", "6")
	for _, r := range a.Rows {
		if r.Change != "per-cpu dst, flushed once per jiffy" {
			continue
		}
		if r.GainPct <= 10 {
			t.Errorf("lazy flush: %+.1f%%; seed 004 measured +16%%", r.GainPct)
		}
		if patch := 1e-6 * rateOf(t, "dst-use", a, "percpu-lazy"); math.Abs(r.Rate-patch) > 0.05*patch {
			t.Errorf("derived %.3f Mpps, the patch's variant %.3f Mpps", r.Rate, patch)
		}
		return
	}
	t.Fatalf("no per-cpu lazy flush among %+v", a.Rows)
}

// Seed 002: advise turns flower's synchronize_rcu into the fix's
// queue_rcu_work (freeing the size the fix's variant frees), and predicts
// what the hand-written deferred-free does.
func TestAdviseFlowerInsert(t *testing.T) {
	a := adviseJSONOf(t, "flower-insert", "--variant", "sync-rcu")
	for _, r := range a.Rows {
		if r.Rule != "queue_rcu_work" {
			continue
		}
		if fix := rateOf(t, "flower-insert", a, "deferred-free"); r.Rate != fix {
			t.Errorf("derived %v ops/s, the fix's variant %v", r.Rate, fix)
		}
		if !strings.Contains(r.Explain, "off-CPU in synchronize_rcu") {
			t.Errorf("explain %q; want the time blocked in synchronize_rcu", r.Explain)
		}
		return
	}
	t.Fatalf("no queue_rcu_work among %+v", a.Rows)
}

// --write: every row is a scenario file contend run takes, whose advise
// series gives the row's prediction back; a built-in's includes are
// copied beside it, a file's are named from the directory.
func TestAdviseWrite(t *testing.T) {
	for _, args := range [][]string{
		{"netdev-refcnt", "--variant", "atomic-refcnt", "--cores", "2"},
		{filepath.Join("..", "..", "advise", "testdata", "unlock.toml"), "--variant", "locked"},
	} {
		dir := filepath.Join(t.TempDir(), "advice", "new") // made by --write
		a := adviseJSONOf(t, append(args, "--write", dir)...)
		if len(a.Rows) == 0 {
			t.Fatalf("%s: no rows", args[0])
		}
		for _, r := range a.Rows {
			if filepath.Dir(r.File) != dir {
				t.Fatalf("row %s written to %q", r.Variant, r.File)
			}
			var tables []sweep.Table
			if err := json.Unmarshal([]byte(mustRun(t, "run", r.File, "--format", "json")), &tables); err != nil {
				t.Fatal(err)
			}
			found := false
			for _, tb := range tables {
				if tb.Series == a.Series+"+advise" && tb.Metric == "throughput" && tb.Variants[1] == r.Variant {
					found = true
					if got := tb.Values[0][1]; math.Abs(got-r.Rate) > 1e-9*r.Rate {
						t.Errorf("%s: run gives %v, advise %v", r.File, got, r.Rate)
					}
					if got := tb.Values[0][0]; math.Abs(got-a.Rate) > 1e-9*a.Rate {
						t.Errorf("%s: run gives the base %v, advise %v", r.File, got, a.Rate)
					}
				}
			}
			if !found {
				t.Errorf("%s: no %s+advise throughput table with %s", r.File, a.Series, r.Variant)
			}
		}
	}
}

// With --profile, the rows are simulated on the profile file and the
// written scenario says to run it on that file: run gives the row back.
func TestAdviseWriteWithProfile(t *testing.T) {
	dir := t.TempDir()
	prof := filepath.Join(dir, "box.toml")
	if err := os.WriteFile(prof, []byte(`[profile.box]
ghz = 3.0
sockets = 1
cores_per_socket = 4
threads_per_core = 1
l1_hit = "1ns"
smt_sibling = "15ns"
same_socket = "60ns"
other_socket = "120ns"
memory = "90ns"
atomic = "6ns"
atomic_overlap = 0.5
store_drain = "5ns"
wakeup = "5us"
jitter = "none"
`), 0o644); err != nil {
		t.Fatal(err)
	}
	a := adviseJSONOf(t, "ingress", "--variant", "locked", "--cores", "2", "--profile", prof, "--write", dir)
	r := a.Rows[0]
	src, err := os.ReadFile(r.File)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), "run this file with --profile "+prof) {
		t.Errorf("%s does not say which profile it was simulated on", r.File)
	}
	var tables []sweep.Table
	if err := json.Unmarshal([]byte(mustRun(t, "run", r.File, "--profile", prof, "--series", a.Series+"+advise", "--format", "json")), &tables); err != nil {
		t.Fatal(err)
	}
	if got := tables[len(tables)-1].Values[0][1]; math.Abs(got-r.Rate) > 1e-9*r.Rate {
		t.Errorf("run --profile gives %v, advise %v", got, r.Rate)
	}
}

func TestAdviseBadInput(t *testing.T) {
	notDir := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(notDir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"ingress"}, "--variant: name the variant to improve, one of no-ingress, locked"},
		{[]string{"ingress", "--variant", "lokced"}, `--variant "lokced": ingress has no such variant; use one of no-ingress, locked`},
		{[]string{"ingress", "--variant", "locked", "--series", "nope"}, `--series "nope": ingress has no such series; use one of ingress-bare, ingress-u32`},
		{[]string{"ingress", "--variant", "locked", "--cores", "0"}, "--cores 0: give a number of CPUs, from 1 to 1024"},
		{[]string{"ingress", "--variant", "locked", "--cores", "-3"}, "--cores -3: give a number of CPUs, from 1 to 1024"},
		{[]string{"ingress", "--variant", "locked", "--write", notDir}, "--write " + notDir + ": not a directory but a file"},
		{[]string{"--variant", "locked"}, "name one scenario: contend advise ingress"},
	} {
		_, errOut, code := contend(t, append([]string{"advise"}, tc.args...)...)
		if code != 1 || !strings.Contains(errOut, tc.want) {
			t.Errorf("advise %s: status %d, %q; want %q", strings.Join(tc.args, " "), code, errOut, tc.want)
		}
	}
}

// advise --uncertainty: without spread (and without jitter) every draw
// gives the gain itself; with one, gains spread and rows rank by the lower
// bound of theirs.
func TestAdviseUncertainty(t *testing.T) {
	for _, spread := range []string{"45ns", "45ns ± 8ns"} {
		a := adviseJSONOf(t, uncertainWith(t, spread), "--variant", "locked", "--uncertainty", "12")
		if a.Samples != 12 || len(a.Rows) < 2 {
			t.Fatalf("%s: %d draws, %d rows", spread, a.Samples, len(a.Rows))
		}
		wide := false
		for i, r := range a.Rows {
			if i > 0 && r.LowPct > a.Rows[i-1].LowPct {
				t.Errorf("%s: row %d's lower bound %v above row %d's %v", spread, i+1, r.LowPct, i, a.Rows[i-1].LowPct)
			}
			if !(r.LowPct <= r.HighPct) {
				t.Errorf("%s: %s interval %v – %v", spread, r.Variant, r.LowPct, r.HighPct)
			}
			wide = wide || r.HighPct > r.LowPct
			if spread == "45ns" && (r.LowPct != r.GainPct || r.HighPct != r.GainPct) {
				t.Errorf("no spread: %s gains %v – %v around %v; want zero width", r.Variant, r.LowPct, r.HighPct, r.GainPct)
			}
		}
		if spread != "45ns" && !wide {
			t.Errorf("%s: every interval has zero width", spread)
		}
	}
}
