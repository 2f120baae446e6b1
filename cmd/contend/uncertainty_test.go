package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"contend/band"
	"contend/internal/iofiles"
	"contend/report"
	"contend/scenarios"
	"contend/sweep"
)

// uncertainWith writes testdata/uncertain.toml with same_socket written as
// value and returns its path.
func uncertainWith(t *testing.T, value string) string {
	t.Helper()
	src, err := os.ReadFile("testdata/uncertain.toml")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "u.toml")
	if err := os.WriteFile(path, []byte(strings.Replace(string(src), "SPREAD", value, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// intervalsWith validates testdata/uncertain.toml with same_socket written
// as value, and runs it, and returns the interval of each reference and
// then of each value of run's tables.
func intervalsWith(t *testing.T, value string) []report.RowJSON {
	t.Helper()
	path := uncertainWith(t, value)
	var rows []report.RowJSON
	if err := json.Unmarshal([]byte(mustRun(t, "validate", path, "--uncertainty", "24", "--format", "json")), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 {
		t.Fatalf("%d rows; want the 2 references", len(rows))
	}
	var tables []sweep.Table
	if err := json.Unmarshal([]byte(mustRun(t, "run", path, "--uncertainty", "24", "--format", "json")), &tables); err != nil {
		t.Fatal(err)
	}
	for _, tb := range tables {
		for i := range tb.X {
			for j := range tb.Variants {
				rows = append(rows, report.RowJSON{Row: scenarios.Row{Predicted: tb.Values[i][j]}, Interval: &sweep.Interval{Bounds: tb.Intervals[i][j]}})
			}
		}
	}
	if len(rows) != 3 {
		t.Fatalf("%d intervals; want the 2 references and the one value of run's table", len(rows))
	}
	return rows
}

// Without jitter and without spread every sample is the prediction itself;
// a wider spread of the transfer time widens every interval, of validate's
// references and of run's values alike.
func TestIntervalsGrowWithSpread(t *testing.T) {
	var last []float64
	for _, v := range []string{"45ns", "45ns ± 0ns", "45ns ± 2ns", "45ns ± 8ns"} {
		rows := intervalsWith(t, v)
		var widths []float64
		for i, r := range rows {
			w := r.Interval.High - r.Interval.Low
			if !(r.Interval.Low <= r.Interval.Median && r.Interval.Median <= r.Interval.High) {
				t.Errorf("%s row %d: median %v outside %v – %v", v, i, r.Interval.Median, r.Interval.Low, r.Interval.High)
			}
			if !strings.Contains(v, "±") || strings.HasSuffix(v, "± 0ns") {
				if w != 0 || r.Interval.Median != r.Predicted {
					t.Errorf("%s row %d: interval %v – %v around %v; want zero width at the prediction %v", v, i, r.Interval.Low, r.Interval.High, r.Interval.Median, r.Predicted)
				}
			} else if w <= last[i] {
				t.Errorf("%s row %d: interval width %v, not wider than %v with a smaller spread", v, i, w, last[i])
			}
			widths = append(widths, w)
		}
		last = widths
	}
}

func TestUncertaintyErrors(t *testing.T) {
	src, err := os.ReadFile("testdata/uncertain.toml")
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(t.TempDir(), "u.toml")
	if err := os.WriteFile(bad, []byte(strings.Replace(string(src), "SPREAD", "45ns ± -4ns", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"validate", "ingress", "--uncertainty", "1"}, "--uncertainty 1: give at least 2 samples"},
		{[]string{"validate", "ingress", "--uncertainty", "-3"}, "--uncertainty -3: give a number of samples (20 or more for a useful 90% interval; 0: none), from 0 to 1000"},
		{[]string{"validate", bad, "--uncertainty", "4"}, "u.toml:13:1: profile.box.same_socket spread: negative duration"},
		{[]string{"run", "ingress", "--uncertainty", "1"}, "--uncertainty 1: give at least 2 samples"},
		{[]string{"sweep", "ingress", "--shard", "0/2", "--uncertainty", "4"}, "--uncertainty with --shard"},
	} {
		_, errOut, code := contend(t, tc.args...)
		if code != 1 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: status %d, stderr %q; want %q", tc.args, code, errOut, tc.want)
		}
	}
}

// A spread may be written in cycles: it is converted at the profile's clock
// (3 GHz here), like the value.
func TestSpreadInCycles(t *testing.T) {
	src, err := os.ReadFile("testdata/uncertain.toml")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "u.toml")
	if err := os.WriteFile(path, []byte(strings.Replace(string(src), "SPREAD", "135cyc ± 30cyc", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	s, _, err := iofiles.LoadScenario(path)
	if err != nil {
		t.Fatal(err)
	}
	got := s.Uncertain(s.Series[0])
	if len(got) != 1 || got[0].Key != "profile.same_socket" || got[0].Value != 45 || got[0].SD != 10 {
		t.Fatalf("Uncertain: %+v; want same_socket 45 ns ± 10 ns", got)
	}
}

// Where a prediction has both an interval over the profile's spread and an
// error band, validate and run give the interval widened by the band: its
// low end less the band's percent of it (never below zero), its high end
// more, which holds both the interval and the band around the prediction.
func TestCombinedRange(t *testing.T) {
	path := uncertainWith(t, "45ns ± 8ns")
	var rows []report.RowJSON
	if err := json.Unmarshal([]byte(mustRun(t, "validate", path, "--uncertainty", "24", "--format", "json")), &rows); err != nil {
		t.Fatal(err)
	}
	type got struct {
		what     string
		pred     float64
		iv       sweep.Bounds
		cell     *band.Cell
		combined *band.Range
	}
	var all []got
	for _, r := range rows {
		all = append(all, got{fmt.Sprintf("validate x=%v", r.X), r.Predicted, r.Interval.Bounds, r.Cell, r.Combined})
	}
	var tables []sweep.Table
	if err := json.Unmarshal([]byte(mustRun(t, "run", path, "--uncertainty", "24", "--format", "json")), &tables); err != nil {
		t.Fatal(err)
	}
	for _, tb := range tables {
		for i, x := range tb.X {
			for j := range tb.Variants {
				all = append(all, got{fmt.Sprintf("run %s x=%v", tb.Metric, x), tb.Values[i][j], tb.Intervals[i][j], &tb.Bands[i][j], &tb.Combined[i][j]})
			}
		}
	}
	if len(all) != 3 {
		t.Fatalf("%d predictions; want validate's 2 references and run's one value", len(all))
	}
	for _, g := range all {
		if g.cell == nil || g.cell.Kind == "" || g.combined == nil {
			t.Fatalf("%s: band %v, combined %v; want both", g.what, g.cell, g.combined)
		}
		w := g.cell.Width / 100
		want := band.Range{Low: math.Max(0, g.iv.Low*(1-w)), High: g.iv.High * (1 + w)}
		if math.Abs(g.combined.Low-want.Low) > 1e-9 || math.Abs(g.combined.High-want.High) > 1e-9 {
			t.Errorf("%s: combined %+v; want %+v from the interval %v – %v and ±%.4g%%", g.what, *g.combined, want, g.iv.Low, g.iv.High, g.cell.Width)
		}
		if g.iv.Low < g.iv.High && !(g.combined.Low <= g.iv.Low && g.iv.High < g.combined.High) {
			t.Errorf("%s: combined %+v does not hold the interval %v – %v", g.what, *g.combined, g.iv.Low, g.iv.High)
		}
		if g.iv.Low <= g.pred && g.pred <= g.iv.High && !(g.combined.Low <= g.cell.Low && g.cell.High <= g.combined.High) {
			t.Errorf("%s: combined %+v does not hold the band %v – %v around the prediction", g.what, *g.combined, g.cell.Low, g.cell.High)
		}
	}
	for _, args := range [][]string{{"validate", path}, {"run", path}} {
		out := mustRun(t, append(args, "--uncertainty", "4")...)
		if !strings.Contains(out, "widened by the error band") {
			t.Errorf("%v --uncertainty 4 prints no combined range:\n%s", args, out)
		}
	}
}
