package figures

import (
	"fmt"
	"math"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"contend/band"
	"contend/scenarios"
)

var changesHeader = append([]string{"series", "variant", "base", "axis", "x", "metric", "measured_pct", "predicted_pct"}, bandHeader...)

// changesBand is the grey band either side of the diagonal: a predicted
// after/before within this many percent of the measured one (for a small
// change, about as many points of change: validate's bound on the seeds).
const changesBand = 10

// changes draws what each change did against what the model predicts it
// does: a point per reference of a variant paired with its series' base
// (scenarios.Changes), after/before as measured across and as predicted up;
// where they agree the point is on the diagonal. One colour and glyph per
// series, a grey band where the prediction is within changesBand percent,
// and through each point a bar: its error band (o.Bands), the one
// validate gives the change, learned without its own case.
func changes(s *scenarios.Scenario, series []*scenarios.Series, o Options) (*Figure, error) {
	var groups []changeGroup
	for _, se := range series {
		g, err := changesOf(s, se, o)
		if err != nil {
			return nil, err
		}
		groups = append(groups, g...)
	}
	if len(groups) == 0 {
		return nil, fmt.Errorf("%s: no series pairs a variant's reference with its base's at the same point and metric: a [[series]] needs base = \"VARIANT\" (the before) and references of both", s.Name)
	}
	return drawChanges(groups)
}

// Changes draws the changes figure of several scenarios at once: every
// change they measured against what the model predicts, one colour and
// glyph per series. Each scenario runs at its own seed unless o gives one.
func Changes(scens []*scenarios.Scenario, o Options) (*Figure, error) {
	var groups []changeGroup
	for _, s := range scens {
		so := o.defaultsOf(s)
		for _, se := range s.Series {
			g, err := changesOf(s, se, so)
			if err != nil {
				return nil, err
			}
			groups = append(groups, g...)
		}
	}
	if len(groups) == 0 {
		return nil, fmt.Errorf("no series of these scenarios pairs a variant's reference with its base's")
	}
	return drawChanges(groups)
}

// changeGroup is one series' changes, and each one's error band (nil
// for none).
type changeGroup struct {
	se    *scenarios.Series
	cs    []scenarios.Change
	bands []*band.Band
}

// changesOf predicts se's references and pairs them with its base; a
// series without a base, or without pairs, gives none. Each change's band
// is the one validate gives it: of its kind, learned without its case.
func changesOf(s *scenarios.Scenario, se *scenarios.Series, o Options) ([]changeGroup, error) {
	if se.Base == "" {
		return nil, nil
	}
	rows, err := s.Predict(se, o.Seed, nil, o.Run)
	if err != nil {
		return nil, err
	}
	cs := scenarios.Changes(se, rows)
	if len(cs) == 0 {
		return nil, nil
	}
	g := changeGroup{se: se, cs: cs, bands: make([]*band.Band, len(cs))}
	if o.Bands != nil {
		var c band.Corpus
		_, tags, err := c.Add(band.NewClassifier(s), s, se, rows)
		if err != nil {
			return nil, err
		}
		for i, t := range tags {
			if b, ok := o.Bands.For(t.Kind, t.Case); ok {
				g.bands[i] = &b
			}
		}
	}
	return []changeGroup{g}, nil
}

// drawChanges plots after/before, measured against predicted, on log10
// axes drawn as linear ones (see curve.y): a change of +422% and one of -3%
// both stay readable, and equal ratios lie equally far from 1.
func drawChanges(groups []changeGroup) (*Figure, error) {
	f := &Figure{Kind: "changes", Header: changesHeader, panelH: Width}
	ratio := func(pct float64) float64 { return 1 + pct/100 }
	lo, hi := 1.0, 1.0
	for _, g := range groups {
		for k, c := range g.cs {
			for _, r := range []float64{ratio(c.MeasuredPct), ratio(c.PredictedPct)} {
				if !(r > 0) {
					return nil, fmt.Errorf("series %s: %s against %s at %s=%v is a change of %.4g%%: the ratio after/before is not positive", g.se.Name, c.Variant, c.Base, c.Axis, c.X, c.MeasuredPct)
				}
				lo, hi = math.Min(lo, r), math.Max(hi, r)
			}
			row := []string{g.se.Name, c.Variant, c.Base, c.Axis, num(c.X), c.Metric, num(c.MeasuredPct), num(c.PredictedPct)}
			f.Rows = append(f.Rows, append(row, bandCells(deref(g.bands[k]), g.bands[k] != nil, c.PredictedPct)...))
		}
	}
	// A margin of an eighth of the range each way, in logarithm.
	span := math.Max(math.Log10(hi/lo), 0.2)
	llo, lhi := math.Log10(lo)-span/8, math.Log10(hi)+span/8
	p := newPlot("measured after/before", "predicted after/before")
	p.X.Tick.Marker, p.Y.Tick.Marker = decades{twoFive: true}, decades{twoFive: true}
	// The band: a prediction within changesBand percent of the measured
	// ratio, as wide everywhere on log axes.
	w := math.Log10(1 + changesBand/100.0)
	band, err := plotter.NewPolygon(plotter.XYs{{X: llo, Y: llo - w}, {X: lhi, Y: lhi - w}, {X: lhi, Y: lhi + w}, {X: llo, Y: llo + w}})
	if err != nil {
		return nil, err
	}
	band.Color, band.LineStyle.Width = paleGrey, 0
	diag, err := plotter.NewLine(plotter.XYs{{X: llo, Y: llo}, {X: lhi, Y: lhi}})
	if err != nil {
		return nil, err
	}
	diag.Color, diag.Width = midGrey, vg.Points(0.6)
	p.Add(band, diag)
	f.addLegend(fmt.Sprintf("grey: predicted within %d%% of measured", changesBand), band)
	banded := false
	for i, g := range groups {
		bars, err := changeBars(g, llo-span, colorOf(i))
		if err != nil {
			return nil, err
		}
		if bars != nil {
			p.Add(bars)
			banded = true
		}
	}
	if banded {
		f.addLegend("bar: 90% error band, in points of the base", barThumb{barStyle(okabeIto[len(okabeIto)-1])})
	}
	for i, g := range groups {
		xys := make(plotter.XYs, len(g.cs))
		for k, c := range g.cs {
			xys[k] = plotter.XY{X: math.Log10(ratio(c.MeasuredPct)), Y: math.Log10(ratio(c.PredictedPct))}
		}
		sc, err := plotter.NewScatter(xys)
		if err != nil {
			return nil, err
		}
		shapes := glyphs[false]
		sc.GlyphStyle = draw.GlyphStyle{Color: colorOf(i), Radius: vg.Points(2.2), Shape: shapes[i%len(shapes)]}
		p.Add(sc)
		f.addLegend(fmt.Sprintf("%s (against %s)", g.se.Name, g.se.Base), sc)
	}
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = llo, lhi, llo, lhi
	f.panels = append(f.panels, p)
	return f, nil
}
