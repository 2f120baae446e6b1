package web

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"contend/band"
	"contend/report"
	"contend/scenarios"
	"contend/sweep"
)

// sameBand says whether the page's band is the CLI's cell (no band: an
// empty kind in both).
func sameBand(got Band, want *band.Cell) bool {
	if want == nil || want.Kind == "" {
		return got == Band{}
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*max(1, math.Abs(b)) }
	return got.Kind == want.Kind && near(got.Width, want.Width) && near(got.Low, want.Low) && near(got.High, want.High)
}

// TestSweepBands: a sweep's values carry the bands contend run prints for
// the same points, its reference rows and changes those of contend
// validate (learned without the series' own case; none for a calibrate
// row), each with the words the CLI prints.
func TestSweepBands(t *testing.T) {
	sd := sweepOf(t, Options{}, "ingress", "ingress-u32")
	sc, _ := scenarios.LoadBuiltin("ingress")
	f := band.Committed()

	p := &sweep.Plan{}
	if err := p.Add(sc, sc.Run.Seed, "ingress-u32", false); err != nil {
		t.Fatal(err)
	}
	values, err := p.Simulate(nil, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, tb := range p.BandedTables(values, nil, f) {
		if tb.Metric != sd.Metric {
			continue
		}
		for i, x := range tb.X {
			for j, v := range tb.Variants {
				k := indexOf(sd.X, x)
				if k < 0 || sd.Variants[j] != v {
					t.Fatalf("run's %s at %v is not in the sweep (%v of %v)", v, x, sd.Variants, sd.X)
				}
				if got := sd.Bands[j][k]; !sameBand(got, &tb.Bands[i][j]) || got.Text != f.DescribeCell(tb.Bands[i][j]) {
					t.Errorf("%s at %v: band %+v, run's %+v (%s)", v, x, got, tb.Bands[i][j], f.DescribeCell(tb.Bands[i][j]))
				}
				checked++
			}
		}
	}
	if checked < 4 {
		t.Fatalf("%d values compared", checked)
	}

	var v sweep.Validation
	if err := v.Add(sc, sc.Run.Seed, 0, sc.Serial); err != nil {
		t.Fatal(err)
	}
	rowBands, changeBands := report.BandsOf(f, v.Tags), report.BandsOf(f, v.ChangeTags)
	validated := 0
	for _, r := range sd.Refs {
		i := rowIndex(v.Rows, r.Row)
		if i < 0 {
			t.Fatalf("reference %+v is not among validate's rows", r.Row)
		}
		var want *band.Cell
		if r.Role == "validate" && rowBands[i] != nil {
			c := rowBands[i].Cell(r.Predicted)
			want = &c
			validated++
		}
		if !sameBand(r.Band, want) {
			t.Errorf("%s %s=%v %s (%s): band %+v, validate's %+v", r.Variant, r.Axis, r.X, r.Metric, r.Role, r.Band, want)
		}
	}
	for _, ch := range sd.Changes {
		i := changeIndex(v.Changes, ch.Change)
		if i < 0 || changeBands[i] == nil {
			t.Fatalf("change %+v has no band in validate", ch.Change)
		}
		c := changeBands[i].Cell(ch.PredictedPct)
		if !sameBand(ch.Band, &c) || !strings.HasPrefix(ch.Band.Text, "±") || !strings.Contains(ch.Band.Text, " points (90%: ") {
			t.Errorf("change %s at %v: band %+v, validate's %+v", ch.Variant, ch.X, ch.Band, c)
		}
	}
	if validated == 0 || len(sd.Changes) == 0 {
		t.Fatalf("%d validate rows with a band, %d changes", validated, len(sd.Changes))
	}
}

func indexOf(xs []float64, x float64) int {
	for i, v := range xs {
		if v == x {
			return i
		}
	}
	return -1
}

func rowIndex(rows []scenarios.Row, r scenarios.Row) int {
	for i, w := range rows {
		if w.Scenario == r.Scenario && w.Variant == r.Variant && w.Axis == r.Axis && w.X == r.X && w.Metric == r.Metric && w.Measured == r.Measured {
			return i
		}
	}
	return -1
}

func changeIndex(cs []scenarios.Change, c scenarios.Change) int {
	for i, w := range cs {
		if w == c {
			return i
		}
	}
	return -1
}

// TestDoneBands: a run's figures carry the band contend run gives its
// point (a contended throughput on two CPUs, around the figure); with
// bands that know no such kind, none, in messages that still have every
// field and no null.
func TestDoneBands(t *testing.T) {
	onlyChanges := &band.File{Bands: []band.Entry{{Band: band.Band{Kind: band.Kind{Figure: band.Change}, Pool: band.Kind{Figure: band.Change}, Points: 9, Width: 20}}}}
	for _, tc := range []struct {
		bands  *band.File
		banded bool
	}{{nil, true}, {onlyChanges, false}} {
		_, ts := newTestServer(t, Options{Bands: tc.bands})
		c := dial(t, ts)
		c.WriteJSON(Request{Type: "start", Scenario: "ingress", Series: "ingress-u32", Variant: "locked", Cores: new(2)})
		var done Done
		until(t, c, "done", &done)
		m := done.Metrics[0]
		w, ok := band.Committed().Set().For(band.Kind{Figure: band.Contended, Reach: band.OtherCPUs})
		if !ok {
			t.Fatal("band.json has no band of a contended throughput at another CPU count")
		}
		want := Band{}
		if tc.banded {
			want = bandOf(band.Committed(), w, true, m.Value)
		}
		if m.Band != want || tc.banded && !(m.Band.Low < m.Value && m.Value < m.Band.High) {
			t.Errorf("bands %v: %s %v with band %+v, want %+v", tc.bands != nil, m.Metric, m.Value, m.Band, want)
		}
		if raw, _ := json.Marshal(done.Metrics); strings.Contains(string(raw), "null") || !strings.Contains(string(raw), `"band":{"kind":`) {
			t.Errorf("done's metrics %s: a null, or a metric without its band", raw)
		}
		c.WriteJSON(Request{Type: "sweep", Scenario: "ingress", Series: "ingress-u32"})
		var sd SweepDone
		until(t, c, "sweep_done", &sd)
		if raw, _ := json.Marshal(sd); strings.Contains(string(raw), "null") {
			t.Errorf("sweep_done %s has a null", raw)
		}
		if got := len(sd.Bands); got != len(sd.Variants) || len(sd.Bands[0]) != len(sd.X) || (sd.Bands[0][1].Kind != "") != tc.banded {
			t.Errorf("bands %v: sweep bands %+v", tc.bands != nil, sd.Bands)
		}
		if len(sd.Changes) == 0 || sd.Changes[0].Band.Kind == "" {
			t.Errorf("bands %v: change %+v has no band; every set has the changes'", tc.bands != nil, sd.Changes)
		}
	}
}
