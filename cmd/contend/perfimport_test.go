package main

import (
	"bytes"
	"encoding/csv"
	"os"
	"strconv"
	"strings"
	"testing"
)

// A perf report, a perf c2c report and a lock_stat, as perf and the kernel
// print them, imported against ingress and added to its last series:
// validate then compares each figure with its prediction, measured as
// imported.
func TestImportThenValidate(t *testing.T) {
	imports := [][]string{
		{"perf-report-stdio.txt"},
		{"perf-c2c-report.txt"},
		{"lock_stat.txt", "--lock", "qdisc_lock=&sch->q.lock"},
	}
	base, err := os.ReadFile("../../scenarios/ingress.toml")
	if err != nil {
		t.Fatal(err)
	}
	scenario := append(base, '\n')
	for _, im := range imports {
		args := append([]string{"import", "../../perffile/testdata/" + im[0], "--scenario", "ingress", "--variant", "locked", "--x", "2"}, im[1:]...)
		var out, errb bytes.Buffer
		if code := Main(args, &out, &errb); code != 0 {
			t.Fatalf("%s: status %d: %s", strings.Join(args, " "), code, errb.String())
		}
		scenario = append(scenario, out.Bytes()...)
	}
	path := t.TempDir() + "/ingress.toml"
	if err := os.WriteFile(path, scenario, 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := Main([]string{"validate", path, "--format", "csv", "--quiet"}, &out, &errb); code != 0 {
		t.Fatalf("validate: status %d: %s", code, errb.String())
	}
	rows, err := csv.NewReader(&out).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	got := map[string][2]float64{}
	for _, r := range rows[1:] {
		if r[col["variant"]] == "locked" && r[col["x"]] == "2" {
			m, _ := strconv.ParseFloat(r[col["measured"]], 64)
			p, _ := strconv.ParseFloat(r[col["predicted"]], 64)
			got[r[col["metric"]]] = [2]float64{m, p}
		}
	}
	for metric, measured := range map[string]float64{
		"share_of_cycles__raw_spin_lock": 61.37, "share_of_cycles_ingress_enqueue": 5.93,
		"hitm_share_qdisc_lock": 100 * 4480.0 / 6850, "hitm_of_loads_qdisc_bstats": 100 * 2370.0 / 3148,
		"contended_qdisc_lock": 100 * 5210448.0 / 10421904, "mean_wait_qdisc_lock": 1589177.21 / 5210448,
	} {
		g, ok := got[metric]
		if !ok || (g[0]-measured)*(g[0]-measured) > 1e-8*measured*measured || !(g[1] > 0 && g[1] <= 100) {
			t.Errorf("validate of locked at 2 CPUs, %s: measured and predicted %v (found %v), want measured %v and a share predicted", metric, g, ok, measured)
		}
	}
}

// explain --compare puts each measured figure beside the simulated one:
// the share of cycles beside the one the simulated perf report above it
// prints, the symbols it does not simulate at 0, those the file lacks with
// no measured figure.
func TestExplainCompare(t *testing.T) {
	var out, errb bytes.Buffer
	args := []string{"explain", "ingress", "--variant", "locked", "--cores", "2", "--compare", "../../perffile/testdata/perf-report-stdio.txt"}
	if code := Main(args, &out, &errb); code != 0 {
		t.Fatalf("status %d: %s", code, errb.String())
	}
	text := out.String()
	explained, compared, ok := strings.Cut(text, "measured (perf-report-stdio.txt) beside simulated:\n")
	if !ok {
		t.Fatalf("no comparison:\n%s", text)
	}
	simulated := ""
	for _, line := range strings.Split(explained, "\n") {
		if f := strings.Fields(line); len(f) > 0 && f[len(f)-1] == "_raw_spin_lock" {
			simulated = f[0]
		}
	}
	if got := compareRow(compared, "share_of_cycles__raw_spin_lock"); simulated == "" || len(got) < 3 || got[1] != "61.37%" || got[2] != simulated {
		t.Errorf("_raw_spin_lock compared as %q, want 61.37%% beside the simulated %q:\n%s", got, simulated, compared)
	}
	if got := strings.Join(compareRow(compared, "share_of_cycles_kfree_skb"), " "); got != "share_of_cycles_kfree_skb 8.11% 0% -100.0% no step is labelled kfree_skb" {
		t.Errorf("kfree_skb compared as %q:\n%s", got, compared)
	}
	// Seed 000 holds two reports: which one is asked.
	args = []string{"explain", "ingress", "--variant", "locked", "--compare", "../../perffile/testdata/seeds/000_a9414ada84b768ad.txt"}
	errb.Reset()
	if code := Main(args, &out, &errb); code == 0 || !strings.Contains(errb.String(), "--compare-line 0: name the line a block starts at; the file's blocks start at line 149 (time_bench), line 227 (perf report), line 248 (perf report)") {
		t.Errorf("a file of several blocks without --compare-line: status %d, %s", code, errb.String())
	}
	out.Reset()
	if code := Main(append(args, "--compare-line", "227"), &out, &errb); code != 0 || strings.Join(compareRow(out.String(), "share_of_cycles__raw_spin_lock")[:2], " ") != "share_of_cycles__raw_spin_lock 12.23%" {
		t.Errorf("--compare-line 227: status %d, %s\n%s", code, errb.String(), out.String())
	}
}

// compareRow is the fields of the row of metric in explain --compare's
// table.
func compareRow(text, metric string) []string {
	for _, line := range strings.Split(text, "\n") {
		if f := strings.Fields(line); len(f) > 0 && f[0] == metric {
			return f
		}
	}
	return make([]string, 2)
}
