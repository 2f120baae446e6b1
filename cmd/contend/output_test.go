package main

import (
	"contend/band"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"contend/report"
	"contend/scenarios"
	"contend/sweep"
)

const validateHeader = "scenario,variant,axis,x,metric,unit,measured,predicted,error_pct,role,band_kind,band_low,band_high"

// validate --changes gives, in every format, each variant's change against
// its series' base: in CSV the same changes the JSON has, each following
// from the two rows of validate's own CSV.
func TestValidateChanges(t *testing.T) {
	var js []scenarios.Change
	if err := json.Unmarshal([]byte(mustRun(t, "validate", "qspinlock", "--changes", "--format", "json")), &js); err != nil {
		t.Fatal(err)
	}
	out := mustRun(t, "validate", "qspinlock", "--changes", "--format", "csv")
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(recs[0], ",") != "scenario,series,variant,base,axis,x,metric,measured_pct,predicted_pct,band_kind,band_low,band_high" || len(recs)-1 != len(js) || len(js) != 8 {
		t.Fatalf("header %v and %d rows, %d in JSON; want the changes header and 8 rows (6 tasks counts on one node, 2 across)", recs[0], len(recs)-1, len(js))
	}
	rows, err := csv.NewReader(strings.NewReader(mustRun(t, "validate", "qspinlock", "--format", "csv"))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	value := map[string][2]float64{} // measured, predicted by scenario (the published case)|variant|x
	for _, r := range rows[1:] {
		m, _ := strconv.ParseFloat(r[6], 64)
		p, _ := strconv.ParseFloat(r[7], 64)
		value[r[0]+"|"+r[1]+"|"+r[3]] = [2]float64{m, p}
	}
	for i, c := range js {
		if c.Base != "qspinlock-before" || c.Variant != "qspinlock" {
			t.Errorf("change %d: %s against %s, want qspinlock against qspinlock-before", i, c.Variant, c.Base)
		}
		a, b := value[c.Scenario+"|qspinlock|"+report.Num(c.X)], value[c.Scenario+"|qspinlock-before|"+report.Num(c.X)]
		if math.Abs(c.MeasuredPct-100*(a[0]/b[0]-1)) > 1e-6 || math.Abs(c.PredictedPct-100*(a[1]/b[1]-1)) > 0.01 {
			t.Errorf("change at %v tasks: %+.3f%% measured, %+.3f%% predicted; the rows give %+.3f%% and %+.3f%%", c.X, c.MeasuredPct, c.PredictedPct, 100*(a[0]/b[0]-1), 100*(a[1]/b[1]-1))
		}
	}
	if _, errOut, code := contend(t, "validate", "qspinlock", "--changes", "--uncertainty", "4"); code == 0 || !strings.Contains(errOut, "drop one of them") {
		t.Errorf("--changes with --uncertainty: exit %d, %q; want an error saying to drop one", code, errOut)
	}
}

// Each CSV row is a reference point of a built-in, in file order, with the
// measured value as written and an error that follows from the two values.
func TestValidateCSV(t *testing.T) {
	out := mustRun(t, "validate", "--format", "csv")
	if first, _, _ := strings.Cut(out, "\n"); first != validateHeader {
		t.Fatalf("header %q, want %q", first, validateHeader)
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var refs []scenarios.Reference
	for _, name := range scenarios.BuiltinNames() {
		s, err := scenarios.LoadBuiltin(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, se := range s.Series {
			refs = append(refs, se.Refs...)
		}
	}
	if len(recs)-1 != len(refs) {
		t.Fatalf("%d rows, want one per reference point: %d", len(recs)-1, len(refs))
	}
	for i, ref := range refs {
		rec := recs[i+1]
		f := func(col int) float64 {
			v, err := strconv.ParseFloat(rec[col], 64)
			if err != nil {
				t.Fatalf("row %d: %s: %v", i+1, strings.Split(validateHeader, ",")[col], err)
			}
			return v
		}
		want := []string{ref.Scenario, ref.Variant, ref.Axis, rec[3], ref.Metric, ref.Unit}
		if !slices.Equal(rec[:6], want) || f(3) != ref.X || rec[9] != ref.Role {
			t.Errorf("row %d: %v, want reference %+v", i+1, rec, ref)
		}
		measured, predicted, errPct := f(6), f(7), f(8)
		if !within(measured, ref.Value, 1e-5) {
			t.Errorf("row %d: measured %v, reference says %v", i+1, measured, ref.Value)
		}
		// predicted has 4 decimals and error_pct 2: allow for that rounding.
		if e := 100 * (predicted - measured) / measured; math.Abs(e-errPct) > 0.006+100*0.00005/math.Abs(measured) {
			t.Errorf("row %d: error_pct %v, but measured %v and predicted %v give %.4f", i+1, errPct, measured, predicted, e)
		}
		checkBandCells(t, i+1, rec[9], predicted, rec[10:13])
	}
}

// checkBandCells checks a csv row's band: a calibrate row has none, a
// validate row a kind and a band around its prediction.
func checkBandCells(t *testing.T, row int, role string, predicted float64, cells []string) {
	t.Helper()
	if role == "calibrate" {
		if strings.Join(cells, "") != "" {
			t.Errorf("row %d: calibrate point with a band %v; a fitted point is no prediction", row, cells)
		}
		return
	}
	low, errLow := strconv.ParseFloat(cells[1], 64)
	high, errHigh := strconv.ParseFloat(cells[2], 64)
	if cells[0] == "" || errLow != nil || errHigh != nil || !(low <= predicted*(1+1e-4) && predicted <= high*(1+1e-4) && low < high) {
		t.Errorf("row %d: band %v around prediction %v; want a kind and band_low <= predicted <= band_high", row, cells, predicted)
	}
}

func within(got, want, rel float64) bool {
	return math.Abs(got-want) <= rel*math.Max(math.Abs(got), math.Abs(want))
}

// JSON output decodes with encoding/json and has no null anywhere, so a page
// or notebook can iterate every slice.
func TestJSONHasNoNulls(t *testing.T) {
	for _, args := range [][]string{
		{"validate", "--format", "json"},
		{"validate", "ingress", "--format", "json"},
		{"run", "ingress", "--format", "json"},
		{"run", "flower-insert", "--format", "json"},
		{"sweep", "ingress", "--format", "json"},
		{"validate", noSeries(t), "--format", "json"},
		{"run", noSeries(t), "--format", "json"},
	} {
		var v any
		if err := json.Unmarshal([]byte(mustRun(t, args...)), &v); err != nil {
			t.Errorf("contend %s: %v", strings.Join(args, " "), err)
			continue
		}
		if path := findNull(v, "$"); path != "" {
			t.Errorf("contend %s: null at %s", strings.Join(args, " "), path)
		}
	}
}

// noSeries writes the ingress scenario without its series: a scenario with
// nothing to validate, which must print [] rather than null.
func noSeries(t *testing.T) string {
	t.Helper()
	src, err := fs.ReadFile(scenarios.Builtin(), "ingress.toml")
	if err != nil {
		t.Fatal(err)
	}
	head, _, ok := strings.Cut(string(src), "\n[[series]]")
	if !ok {
		t.Fatal("ingress.toml has no [[series]]; this test cuts the file there")
	}
	path := filepath.Join(t.TempDir(), "no-series.toml")
	if err := os.WriteFile(path, []byte(head+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// findNull returns the path of the first null in v, or "".
func findNull(v any, path string) string {
	switch v := v.(type) {
	case nil:
		return path
	case []any:
		for i, e := range v {
			if p := findNull(e, fmt.Sprintf("%s[%d]", path, i)); p != "" {
				return p
			}
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			if p := findNull(v[k], path+"."+k); p != "" {
				return p
			}
		}
	}
	return ""
}

// run and validate reach the same points by different paths (a table over
// the series' axis, a list of references); where they meet they must agree,
// and the JSON tables must be as wide and long as their labels say.
func TestRunAgreesWithValidate(t *testing.T) {
	for _, name := range []string{"ingress", "flower-insert"} {
		var tables []sweep.Table
		if err := json.Unmarshal([]byte(mustRun(t, "run", name, "--format", "json")), &tables); err != nil {
			t.Fatal(err)
		}
		var rows []scenarios.Row
		if err := json.Unmarshal([]byte(mustRun(t, "validate", name, "--format", "json")), &rows); err != nil {
			t.Fatal(err)
		}
		matched := 0
		for _, tb := range tables {
			if len(tb.Values) != len(tb.X) {
				t.Errorf("%s %s %s: %d rows of values for %d x", name, tb.Series, tb.Metric, len(tb.Values), len(tb.X))
				continue
			}
			for i, x := range tb.X {
				if len(tb.Values[i]) != len(tb.Variants) {
					t.Errorf("%s %s %s x=%v: %d values for %d variants", name, tb.Series, tb.Metric, x, len(tb.Values[i]), len(tb.Variants))
					continue
				}
				for j, v := range tb.Variants {
					for _, r := range rows {
						if r.Series == tb.Series && r.Variant == v && r.Axis == tb.Axis && r.X == x && r.Metric == tb.Metric && r.Unit == tb.Unit {
							matched++
							if !within(tb.Values[i][j], r.Predicted, 1e-12) {
								t.Errorf("%s %s %s %s=%v %s: run says %v, validate %v", name, tb.Series, v, tb.Axis, x, tb.Metric, tb.Values[i][j], r.Predicted)
							}
						}
					}
				}
			}
		}
		if matched == 0 {
			t.Errorf("%s: no run cell matches a validate row; the test checks nothing", name)
		}
	}
}

// Points run on --jobs goroutines but come back in order: the output cannot
// depend on how many.
func TestJobsDoNotChangeOutput(t *testing.T) {
	for _, args := range [][]string{
		{"validate"},
		{"validate", "--format", "csv"},
		{"sweep", "ingress"},
		{"sweep", "ingress", "--format", "json"},
	} {
		one := mustRun(t, append(slices.Clone(args), "--jobs", "1")...)
		for _, jobs := range []string{"2", "5"} {
			if got := mustRun(t, append(slices.Clone(args), "--jobs", jobs)...); got != one {
				t.Errorf("contend %s: --jobs %s differs from --jobs 1:\n%s", strings.Join(args, " "), jobs, lineDiff(one, got))
			}
		}
	}
}

// -o writes what stdout would have shown, replaces an existing file whole,
// and leaves no temporary file behind.
func TestOutputFile(t *testing.T) {
	for _, args := range [][]string{
		{"list"},
		{"validate", "ingress"},
		{"run", "ingress", "--format", "json"},
		{"validate", "flower-insert", "--format", "csv"},
	} {
		want := mustRun(t, args...)
		dir := t.TempDir()
		path := filepath.Join(dir, "out")
		if err := os.WriteFile(path, []byte(strings.Repeat("stale\n", 10000)), 0o600); err != nil {
			t.Fatal(err)
		}
		if out := mustRun(t, append(slices.Clone(args), "-o", path)...); out != "" {
			t.Errorf("contend %s -o: stdout %q, want nothing", strings.Join(args, " "), out)
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Errorf("contend %s -o: file differs from stdout:\n%s", strings.Join(args, " "), lineDiff(want, string(got)))
		}
		if names := dirNames(t, dir); !slices.Equal(names, []string{"out"}) {
			t.Errorf("contend %s -o: directory holds %v, want only out", strings.Join(args, " "), names)
		}
		if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o644 {
			t.Errorf("contend %s -o: mode %v (%v), want -rw-r--r--", strings.Join(args, " "), st.Mode(), err)
		}
	}
}

// A file that cannot be written is an error naming the path, and leaves
// nothing behind.
func TestOutputFileErrors(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "taken"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{
		filepath.Join(dir, "missing", "out.txt"), // no such directory
		filepath.Join(dir, "taken"),              // a directory is in the way
	} {
		out, errOut, code := contend(t, "validate", "ingress", "-o", path)
		if code != 1 || out != "" || !strings.HasPrefix(errOut, "contend validate: -o "+path+": ") {
			t.Errorf("-o %s: status %d, stdout %q, stderr %q; want 1, nothing, and an error naming the path", path, code, out, errOut)
		}
		if names := dirNames(t, dir); !slices.Equal(names, []string{"taken"}) {
			t.Errorf("-o %s: directory holds %v, want only taken", path, names)
		}
	}
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// A user's own file gets, on every validate row, the band of its kind
// learned from the whole corpus (its case is none of the corpus's), the
// kind decided from the file: two cores, nothing fitted.
func TestValidateOwnFileBands(t *testing.T) {
	out := mustRun(t, "validate", uncertainWith(t, "45ns"), "--format", "csv")
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(recs[0], ",") != validateHeader || len(recs) != 3 {
		t.Fatalf("header %v and %d rows; want validate's header and the file's 2 references", recs[0], len(recs)-1)
	}
	want, ok := band.Committed().Set().For(band.Kind{Figure: band.Contended, Reach: band.Unfitted})
	if !ok {
		t.Fatal("the committed bands have none for a contended throughput")
	}
	for i, rec := range recs[1:] {
		predicted, _ := strconv.ParseFloat(rec[7], 64)
		checkBandCells(t, i+1, rec[9], predicted, rec[10:13])
		high, _ := strconv.ParseFloat(rec[12], 64)
		if rec[10] != want.Kind.String() || math.Abs(high/predicted-1-want.Width/100) > 1e-3 {
			t.Errorf("row %d: band %v around %v; want %s, ±%.4g%%", i+1, rec[10:13], predicted, want.Kind, want.Width)
		}
	}
}
