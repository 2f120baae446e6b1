package figures_test

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"contend/band"
	"contend/figures"
	"contend/report"
	"contend/sweep"
)

// committedWidth is the half-width band.json gives the kind named kind.
func committedWidth(t *testing.T, kind string) float64 {
	t.Helper()
	for _, e := range band.Committed().Bands {
		if e.Kind.String() == kind {
			return e.Width
		}
	}
	t.Fatalf("band.json has no band of kind %q", kind)
	return 0
}

// Each predicted value of a scaling figure lies in its kind's band from
// band.json: an uncontended throughput on one CPU, a contended one on
// more, the band that many percent of the value either side (never below
// zero). Measured points have none.
func TestScalingBands(t *testing.T) {
	f, err := make1(t, "ingress", "scaling")
	if err != nil {
		t.Fatal(err)
	}
	predictions := 0
	for _, r := range rows(t, f) {
		if r["kind"] != "prediction" {
			if r["band_kind"] != "" || r["band_low"] != "" {
				t.Errorf("measured point %v has a band", r)
			}
			continue
		}
		predictions++
		want := string(band.Contended)
		if r["x"] == "1" {
			want = string(band.Uncontended)
		}
		if !strings.HasPrefix(r["band_kind"], want) {
			t.Errorf("%s %s at %s CPUs: band of %q, want a %s", r["series"], r["variant"], r["x"], r["band_kind"], want)
			continue
		}
		v, w := float(t, r["value"]), committedWidth(t, r["band_kind"])/100
		// The CSV holds six significant digits of each end.
		if low, high := float(t, r["band_low"]), float(t, r["band_high"]); math.Abs(low-math.Max(0, v*(1-w))) > 1e-5*v || math.Abs(high-v*(1+w)) > 1e-5*high {
			t.Errorf("%s %s at %s CPUs: band %v – %v around %v; want ±%.4g%%", r["series"], r["variant"], r["x"], low, high, v, 100*w)
		}
	}
	if predictions < 20 {
		t.Fatalf("%d predictions in the figure", predictions)
	}
}

// The changes figure's bar through each change is the band validate
// --changes gives it: learned without the change's own case.
func TestChangesBandsAreValidates(t *testing.T) {
	s, o := short(t, "qspinlock")
	o.Kind = "changes"
	f, err := figures.Make(s, o)
	if err != nil {
		t.Fatal(err)
	}
	var v sweep.Validation
	if err := v.Add(s, s.Run.Seed, 0, s.Serial); err != nil {
		t.Fatal(err)
	}
	bands := report.BandsOf(band.Committed(), v.ChangeTags)
	got := rows(t, f)
	if len(got) != len(v.Changes) || len(got) == 0 {
		t.Fatalf("%d changes drawn, validate has %d", len(got), len(v.Changes))
	}
	for i, c := range v.Changes {
		if bands[i] == nil {
			t.Fatalf("validate gives change %d no band", i)
		}
		want := bands[i].Cell(c.PredictedPct)
		r := got[i]
		// The CSV keeps six significant digits.
		near := func(cell string, v float64) bool { return math.Abs(float(t, cell)-v) <= 1e-3+1e-5*math.Abs(v) }
		if r["band_kind"] != want.Kind || !near(r["band_low"], want.Low) || !near(r["band_high"], want.High) {
			t.Errorf("change %d (%s against %s at %s=%v): band %s %s – %s; validate's %s %v – %v", i, c.Variant, c.Base, c.Axis, c.X,
				r["band_kind"], r["band_low"], r["band_high"], want.Kind, want.Low, want.High)
		}
	}
}

// A prediction whose kind the bands know nothing of gets no band and no
// shading, and the figure still draws; without bands at all, none is
// drawn or named in the legend.
func TestNoBand(t *testing.T) {
	onlyChanges := &band.File{Bands: []band.Entry{{Band: band.Band{Kind: band.Kind{Figure: band.Change}, Pool: band.Kind{Figure: band.Change}, Points: 9, Width: 20}}}}
	for _, c := range []struct {
		kind  string
		bands *band.File
		drawn bool
	}{
		{"scaling", onlyChanges, false},
		{"scaling", nil, false},
		{"changes", nil, false},
		{"changes", onlyChanges, true},
		{"scaling", band.Committed(), true},
	} {
		s, o := short(t, "ingress")
		o.Kind, o.Bands = c.kind, c.bands
		f, err := figures.Make(s, o)
		if err != nil {
			t.Fatalf("%s: %v", c.kind, err)
		}
		cells := 0
		for _, r := range rows(t, f) {
			if r["band_kind"] != "" {
				cells++
			}
		}
		svg, err := f.Render(figures.Width, "svg")
		if err != nil {
			t.Fatal(err)
		}
		named := bytes.Contains(svg, []byte("90% error band"))
		translucent := bytes.Contains(svg, []byte("fill-opacity"))
		if (cells > 0) != c.drawn || named != c.drawn || c.kind == "scaling" && translucent != c.drawn {
			t.Errorf("%s with %d bands: %d band cells, legend names a band %v, shaded %v; want bands drawn %v", c.kind, len(bandsOf(c.bands)), cells, named, translucent, c.drawn)
		}
	}
}

func bandsOf(f *band.File) []band.Entry {
	if f == nil {
		return nil
	}
	return f.Bands
}
