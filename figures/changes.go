package figures

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
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
	return drawChanges(groups, false)
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
	f, err := drawChanges(groups, true)
	if err != nil {
		return nil, err
	}
	f.note = changesNote(groups)
	return f, nil
}

// changeGroup is one series' changes, and each one's error band (nil
// for none).
type changeGroup struct {
	scenario *scenarios.Scenario
	se       *scenarios.Series
	cs       []scenarios.Change
	bands    []*band.Band
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
	g := changeGroup{scenario: s, se: se, cs: cs, bands: make([]*band.Band, len(cs))}
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

// zoomLo and zoomHi bound the second panel of the changes figure, drawn
// when changes lie beyond them: most commits change a figure by less than
// a factor of two, and on axes that hold a change of 20x they overlap.
const zoomLo, zoomHi = 0.5, 2.0

// changeShapes tell the groups apart with their colours: seven colours and
// six shapes give 42 distinct pairs, neighbours differ in both, and the
// two blues (the first and sixth colours) take different shapes.
var changeShapes = []draw.GlyphDrawer{draw.RingGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.CrossGlyph{}, draw.PlusGlyph{}, draw.CircleGlyph{}}

// drawChanges plots after/before, measured against predicted, on log10
// axes drawn as linear ones (see curve.y): a change of +422% and one of -3%
// both stay readable, and equal ratios lie equally far from 1. With more
// than one scenario, a colour and glyph is a scenario (its series are
// one case), else a series. Beside the whole range, a second panel
// enlarges zoomLo to zoomHi when some change lies beyond it.
func drawChanges(groups []changeGroup, byScenario bool) (*Figure, error) {
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
	var keys, labels []string
	style := make([]int, len(groups))
	for i, g := range groups {
		key, label := g.se.Name, fmt.Sprintf("%s (against %s)", g.se.Name, g.se.Base)
		if byScenario {
			key, label = g.scenario.Name, g.scenario.Name
		}
		if style[i] = slices.Index(keys, key); style[i] < 0 {
			style[i] = len(keys)
			keys, labels = append(keys, key), append(labels, label)
		}
	}
	// A margin of an eighth of the range each way, in logarithm.
	span := math.Max(math.Log10(hi/lo), 0.2)
	llo, lhi := math.Log10(lo)-span/8, math.Log10(hi)+span/8
	zoom := lo < zoomLo || hi > zoomHi
	full, err := f.changesPanel(groups, style, llo, lhi, nil, zoom)
	if err != nil {
		return nil, err
	}
	for i, l := range labels {
		f.addLegend(l, changeScatter(plotter.XYs{{}}, i))
	}
	if !zoom {
		return f, nil
	}
	zlo, zhi := math.Log10(zoomLo), math.Log10(zoomHi)
	frame, err := plotter.NewLine(plotter.XYs{{X: zlo, Y: zlo}, {X: zhi, Y: zlo}, {X: zhi, Y: zhi}, {X: zlo, Y: zhi}, {X: zlo, Y: zlo}})
	if err != nil {
		return nil, err
	}
	frame.Color, frame.Width, frame.Dashes = midGrey, vg.Points(0.5), []vg.Length{vg.Points(2), vg.Points(1.5)}
	full.Add(frame)
	inside := func(c scenarios.Change) bool {
		in := func(r float64) bool { return zoomLo <= r && r <= zoomHi }
		return in(ratio(c.MeasuredPct)) && in(ratio(c.PredictedPct))
	}
	if _, err := f.changesPanel(groups, style, zlo, zhi, inside, true); err != nil {
		return nil, err
	}
	n := 0
	for _, g := range groups {
		for _, c := range g.cs {
			if inside(c) {
				n++
			}
		}
	}
	titled(full, fmt.Sprintf("all %d changes", len(f.Rows)))
	titled(f.panels[1], fmt.Sprintf("%d of them, %g to %g enlarged", n, zoomLo, zoomHi))
	f.cols, f.panelH = 2, 1.9*vg.Inch
	return f, nil
}

// changesPanel adds a panel of the changes keep holds (nil: all) on log
// axes from lo to hi: the band, the diagonal, each change's bar and point.
// A narrow panel labels fewer ticks across.
func (f *Figure) changesPanel(groups []changeGroup, style []int, lo, hi float64, keep func(scenarios.Change) bool, narrow bool) (*plot.Plot, error) {
	p := newPlot("measured after/before", "predicted after/before")
	p.X.Tick.Marker, p.Y.Tick.Marker = decades{twoFive: !narrow}, decades{twoFive: true}
	if hi-lo < 1 {
		p.X.Tick.Marker, p.Y.Tick.Marker = ratioTicks{sparse: narrow}, ratioTicks{}
	}
	// The band: a prediction within changesBand percent of the measured
	// ratio, as wide everywhere on log axes.
	w := math.Log10(1 + changesBand/100.0)
	band, err := plotter.NewPolygon(plotter.XYs{{X: lo, Y: lo - w}, {X: hi, Y: hi - w}, {X: hi, Y: hi + w}, {X: lo, Y: lo + w}})
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
	f.addLegend(fmt.Sprintf("grey: predicted within %d%%", changesBand), band)
	kept := make([]changeGroup, len(groups))
	for i, g := range groups {
		kept[i] = g.only(keep)
		bars, err := changeBars(kept[i], lo-(hi-lo), colorOf(style[i]))
		if err != nil {
			return nil, err
		}
		if bars != nil {
			p.Add(bars)
			f.addLegend("bar: 90% error band", barThumb{barStyle(okabeIto[len(okabeIto)-1])})
		}
	}
	for i, g := range kept {
		xys := make(plotter.XYs, len(g.cs))
		for k, c := range g.cs {
			xys[k] = plotter.XY{X: math.Log10(1 + c.MeasuredPct/100), Y: math.Log10(1 + c.PredictedPct/100)}
		}
		if len(xys) > 0 {
			p.Add(changeScatter(xys, style[i]))
		}
	}
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = lo, hi, lo, hi
	f.panels = append(f.panels, p)
	return p, nil
}

// only is g with just the changes keep holds (all for nil).
func (g changeGroup) only(keep func(scenarios.Change) bool) changeGroup {
	if keep == nil {
		return g
	}
	out := changeGroup{se: g.se, scenario: g.scenario}
	for k, c := range g.cs {
		if keep(c) {
			out.cs, out.bands = append(out.cs, c), append(out.bands, g.bands[k])
		}
	}
	return out
}

// changeScatter marks points in the i-th group's colour and glyph.
func changeScatter(xys plotter.XYs, i int) *plotter.Scatter {
	sc, _ := plotter.NewScatter(xys)
	sc.GlyphStyle = draw.GlyphStyle{Color: colorOf(i), Radius: vg.Points(2.2), Shape: changeShapes[i%len(changeShapes)]}
	return sc
}

// ratioTicks label a log10 axis that spans less than a decade at the
// ratios a reader compares changes by; sparse ones label 0.5, 0.7, 1,
// 1.5 and 2 and mark the rest.
type ratioTicks struct{ sparse bool }

func (t ratioTicks) Ticks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	for _, r := range []float64{0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.2, 1.5, 2} {
		if v := math.Log10(r); v >= lo && v <= hi {
			tick := plot.Tick{Value: v, Label: num(r)}
			if t.sparse && !slices.Contains([]float64{0.5, 0.7, 1, 1.5, 2}, r) {
				tick.Label = ""
			}
			out = append(out, tick)
		}
	}
	return out
}

// changesNote names the machines of several scenarios' changes: each
// profile's description after the scenarios that ran on it.
func changesNote(groups []changeGroup) string {
	var descs []string
	on := map[string][]string{}
	for _, g := range groups {
		d := profileDescription(g.scenario, g.se.Profile)
		if !slices.Contains(descs, d) {
			descs = append(descs, d)
		}
		if !slices.Contains(on[d], g.scenario.Name) {
			on[d] = append(on[d], g.scenario.Name)
		}
	}
	parts := make([]string, len(descs))
	for i, d := range descs {
		parts[i] = strings.Join(on[d], ", ") + ": " + d
	}
	return "Machines: " + strings.Join(parts, "; ")
}
