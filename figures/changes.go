package figures

import (
	"fmt"
	"math"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"contend/scenarios"
)

var changesHeader = []string{"series", "variant", "base", "axis", "x", "metric", "measured_pct", "predicted_pct"}

// changesBand is the grey band either side of the diagonal, in points of
// change: validate's bound on the seeds' predictions.
const changesBand = 10

// changes draws what each change did against what the model predicts it
// does: a point per reference of a variant paired with its series' base
// (scenarios.Changes), the measured change across and the predicted one up;
// where they agree the point is on the diagonal. One colour and glyph per
// series, a grey band changesBand points either side.
func changes(s *scenarios.Scenario, series []*scenarios.Series, o Options) (*Figure, error) {
	f := &Figure{Kind: "changes", Header: changesHeader, panelH: Width}
	type group struct {
		se  *scenarios.Series
		idx int
		cs  []scenarios.Change
	}
	var groups []group
	lo, hi := 0.0, 0.0
	for si, se := range series {
		if se.Base == "" {
			continue
		}
		rows, err := s.Predict(se, o.Seed, nil, o.Run)
		if err != nil {
			return nil, err
		}
		cs := scenarios.Changes(se, rows)
		if len(cs) == 0 {
			continue
		}
		for _, c := range cs {
			lo = math.Min(lo, math.Min(c.MeasuredPct, c.PredictedPct))
			hi = math.Max(hi, math.Max(c.MeasuredPct, c.PredictedPct))
			f.Rows = append(f.Rows, []string{se.Name, c.Variant, c.Base, c.Axis, num(c.X), c.Metric, num(c.MeasuredPct), num(c.PredictedPct)})
		}
		groups = append(groups, group{se, si, cs})
	}
	if len(groups) == 0 {
		return nil, fmt.Errorf("%s: no series pairs a variant's reference with its base's at the same point and metric: a [[series]] needs base = \"VARIANT\" (the before) and references of both", s.Name)
	}
	pad := math.Max(5, 0.08*(hi-lo))
	lo, hi = lo-pad, hi+pad
	p := newPlot("measured change (%)", "predicted change (%)")
	band, err := plotter.NewPolygon(plotter.XYs{{X: lo, Y: lo - changesBand}, {X: hi, Y: hi - changesBand}, {X: hi, Y: hi + changesBand}, {X: lo, Y: lo + changesBand}})
	if err != nil {
		return nil, err
	}
	band.Color, band.LineStyle.Width = paleGrey, 0
	diag, err := plotter.NewLine(plotter.XYs{{X: lo, Y: lo}, {X: hi, Y: hi}})
	if err != nil {
		return nil, err
	}
	diag.Color, diag.Width = midGrey, vg.Points(0.6)
	p.Add(band, diag)
	for _, g := range groups {
		xys := make(plotter.XYs, len(g.cs))
		for i, c := range g.cs {
			xys[i] = plotter.XY{X: c.MeasuredPct, Y: c.PredictedPct}
		}
		sc, err := plotter.NewScatter(xys)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: colorOf(g.idx), Radius: vg.Points(2.2), Shape: glyphs[false][g.idx%len(glyphs[false])]}
		p.Add(sc)
		f.addLegend(fmt.Sprintf("%s (against %s)", g.se.Name, g.se.Base), sc)
	}
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = lo, hi, lo, hi
	f.panels = append(f.panels, p)
	return f, nil
}
