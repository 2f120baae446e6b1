package figures

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"contend/models"
	"contend/scenarios"
)

// grid is every variant of a series simulated at every x, replicated.
type grid struct {
	se       *scenarios.Series
	xs       []float64
	reps     int
	variants []string
	results  []*models.Result // [x][variant][replication]
}

// axisValues are the points a series is drawn at: its own points and the
// scenario's sweep of the same axis, so a series measured at one point is
// still drawn as a curve.
func axisValues(s *scenarios.Scenario, se *scenarios.Series, o Options) []float64 {
	if len(o.Xs) > 0 {
		return o.Xs
	}
	xs := slices.Clone(se.Points)
	for _, a := range s.Sweep {
		if a.Name == se.Axis {
			xs = append(xs, a.Values...)
		}
	}
	slices.Sort(xs)
	return slices.Compact(xs)
}

// simulate runs every variant of se at every x, o.Replications times.
func simulate(s *scenarios.Scenario, se *scenarios.Series, xs []float64, o Options) (*grid, error) {
	g := &grid{se: se, xs: xs, variants: se.Variants, reps: max(o.Replications, s.Run.Replications, 1)}
	var pts []scenarios.Point
	for _, x := range xs {
		for _, v := range g.variants {
			for r := range g.reps {
				pts = append(pts, scenarios.Point{Series: se, Variant: v, Axis: se.Axis, X: x, Seed: o.Seed + int64(r)})
			}
		}
	}
	res, err := o.Run(pts)
	g.results = res
	return g, err
}

// stats is a metric's mean over replications and its 95% interval
// (Student's t); with one replication the interval is the mean itself.
type stats struct{ mean, lo, hi float64 }

func (g *grid) metric(xi, vi int, metric, unit string) (stats, error) {
	vals := make([]float64, g.reps)
	for r := range g.reps {
		v, err := scenarios.Metric(g.results[(xi*len(g.variants)+vi)*g.reps+r], metric, unit)
		if err != nil {
			return stats{}, err
		}
		vals[r] = v
	}
	return ci95(vals), nil
}

// ci95 is the mean of vals and its 95% confidence interval, assuming
// normally distributed replications (Student's t with n-1 degrees of
// freedom).
func ci95(vals []float64) stats {
	mean, sd := stat.MeanStdDev(vals, nil)
	if len(vals) < 2 {
		return stats{mean, mean, mean}
	}
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(len(vals) - 1)}.Quantile(0.975)
	half := t * sd / math.Sqrt(float64(len(vals)))
	return stats{mean, mean - half, mean + half}
}

// curve says what one panel of curves shows.
type curve struct {
	metric, unit string
	ylabel       string
	logX, logY   bool
	autoLogY     bool // a log y axis when the values span over a decade
	refs         bool // draw the series' reference points of this metric
}

// y places a value on the panel's y axis. A log axis is drawn as a linear
// axis of log10 with decade ticks: gonum/plot's LogScale places the axis
// label by the linear midpoint of the range and leaves a blank band above
// the data.
func (c curve) y(v float64) float64 {
	if !c.logY {
		return v
	}
	return math.Log10(max(v, math.SmallestNonzeroFloat64))
}

// decades ticks a log10 axis: labelled powers of ten (and their doubles and
// halves with twoFive), unlabelled 2..9.
type decades struct{ twoFive bool }

func (d decades) Ticks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	for k := math.Floor(lo); k <= hi; k++ {
		for m := 1.0; m < 10; m++ {
			v := k + math.Log10(m)
			if v < lo || v > hi {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || d.twoFive && (m == 2 || m == 5) {
				t.Label = strconv.FormatFloat(m*math.Pow(10, k), 'g', -1, 64)
			}
			out = append(out, t)
		}
	}
	return out
}

var curveHeader = append([]string{"series", "variant", "axis", "x", "metric", "unit", "kind", "value", "ci95_low", "ci95_high", "replications", "source"}, bandHeader...)

// addCurves draws one panel of g: a line per variant with its 95% interval,
// and the measured points over it. On a panel of the metric the series'
// references give, each line lies in its error band (from bands, nil for
// none), shaded in its colour.
func (f *Figure) addCurves(s *scenarios.Scenario, g *grid, c curve, bands *bander) error {
	p := newPlot(axisLabel(g.se.Axis), c.ylabel)
	switch {
	case c.logX:
		p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, inRange{plot.LogTicks{Prec: -1}}
		if len(g.xs) <= 6 {
			p.X.Tick.Marker = atValues(g.xs)
		}
	case powersOfTwo(g.xs):
		// CPU counts 1, 2, 4, ... 16: equal steps, each point labelled.
		p.X.Scale = plot.LogScale{}
		fallthrough
	case len(g.xs) <= 12:
		p.X.Tick.Marker = atValues(g.xs)
	}
	if c.autoLogY {
		c.logY = spansDecade(g, c, s)
	}
	p.Y.Tick.Marker = plainTicks{}
	if c.logY {
		p.Y.Tick.Marker = decades{twoFive: c.autoLogY}
	}
	if !c.refs {
		bands = nil
	}
	// The bands go under every line, the lines under the measured points.
	var lines []curveLine
	for vi := range g.variants {
		l, err := f.predictions(s, g, c, vi, bands)
		if err != nil {
			return err
		}
		lines = append(lines, l)
	}
	leader, names := coincide(lines)
	banded := false
	for i, l := range lines {
		if leader[i] == i && l.shade != nil {
			p.Add(l.shade)
			banded = true
		}
	}
	for i, l := range lines {
		if leader[i] == i {
			if err := f.addLine(p, l.idx, names[i], l.xys, l.errs, g.reps > 1); err != nil {
				return err
			}
		}
	}
	if banded {
		f.addLegend("shaded: 90% error band", swatch(okabeIto[len(okabeIto)-1]))
	}
	if c.refs {
		// A measured point takes the colour of the line drawn for its variant.
		idx := map[string]int{}
		for i := range lines {
			idx[g.variants[i]] = lines[leader[i]].idx
		}
		f.addRefs(p, g.se, c, idx)
	}
	padEdges(p, g.se, c)
	if !c.logY {
		p.Y.Min = 0
	}
	f.panels = append(f.panels, p)
	return nil
}

// curveLine is one variant's predictions as a panel draws them.
type curveLine struct {
	idx   int // of the variant in the scenario: its colour and dashes
	name  string
	means []float64
	xys   plotter.XYs
	errs  plotter.YErrors
	shade plot.Plotter // its error band; nil for none
}

// predictions adds variant vi's predicted values of c to the table and
// returns its line with its shaded error band.
func (f *Figure) predictions(s *scenarios.Scenario, g *grid, c curve, vi int, bands *bander) (curveLine, error) {
	v := g.variants[vi]
	l := curveLine{idx: variantIndex(s, v), name: v, means: make([]float64, len(g.xs)), xys: make(plotter.XYs, len(g.xs)), errs: make(plotter.YErrors, len(g.xs))}
	low, high, has := make([]float64, len(g.xs)), make([]float64, len(g.xs)), make([]bool, len(g.xs))
	for xi, x := range g.xs {
		st, err := g.metric(xi, vi, c.metric, c.unit)
		if err != nil {
			return l, fmt.Errorf("%s: series %s: %w", s.Name, g.se.Name, err)
		}
		b, ok, err := bands.at(g.se, x, c.metric)
		if err != nil {
			return l, fmt.Errorf("%s: series %s: %w", s.Name, g.se.Name, err)
		}
		l.means[xi] = st.mean
		l.xys[xi] = plotter.XY{X: x, Y: c.y(st.mean)}
		l.errs[xi] = struct{ Low, High float64 }{c.y(st.mean) - c.y(st.lo), c.y(st.hi) - c.y(st.mean)}
		if has[xi] = ok; ok {
			lo, hi := b.Interval(st.mean)
			low[xi], high[xi] = c.y(lo), c.y(hi)
		}
		f.Rows = append(f.Rows, append([]string{g.se.Name, v, g.se.Axis, num(x), c.metric, c.unit, "prediction",
			num(st.mean), num(st.lo), num(st.hi), strconv.Itoa(g.reps), "contend"}, bandCells(b, ok, st.mean)...))
	}
	var err error
	l.shade, err = shade(g.xs, low, high, has, colorOf(l.idx))
	return l, err
}

func (f *Figure) addLine(p *plot.Plot, idx int, name string, xys plotter.XYs, errs plotter.YErrors, bars bool) error {
	l, err := plotter.NewLine(xys)
	if err != nil {
		return err
	}
	l.Color, l.Width, l.Dashes = colorOf(idx), vg.Points(1), dashOf(idx)
	p.Add(l)
	if bars {
		eb, err := plotter.NewYErrorBars(struct {
			plotter.XYs
			plotter.YErrors
		}{xys, errs})
		if err != nil {
			return err
		}
		eb.Color, eb.Width, eb.CapWidth = colorOf(idx), vg.Points(0.6), vg.Points(3)
		p.Add(eb)
	}
	f.addLegend(name, l)
	return nil
}

// addRefs marks the series' measured points of c.metric on its axis:
// filled for calibrate, outlined for validate, one shape per source.
// idx gives each variant's colour.
func (f *Figure) addRefs(p *plot.Plot, se *scenarios.Series, c curve, idx map[string]int) {
	for _, r := range se.Refs {
		if r.Metric != c.metric || r.Axis != se.Axis {
			continue
		}
		src := sourceName(r.Source)
		if !slices.Contains(f.sources, src) {
			f.sources = append(f.sources, src)
		}
		cal := r.Role == "calibrate"
		sc, _ := plotter.NewScatter(plotter.XYs{{X: r.X, Y: c.y(r.Value)}})
		sc.GlyphStyle = draw.GlyphStyle{Color: colorOf(idx[r.Variant]), Radius: vg.Points(2.2), Shape: glyphs[cal][slices.Index(f.sources, src)%3]}
		p.Add(sc)
		key, _ := plotter.NewScatter(plotter.XYs{{}})
		key.GlyphStyle = sc.GlyphStyle
		key.Color = okabeIto[len(okabeIto)-1]
		f.addLegend(fmt.Sprintf("%s (%s)", src, r.Role), key)
		f.Rows = append(f.Rows, []string{se.Name, r.Variant, r.Axis, num(r.X), r.Metric, r.Unit, r.Role,
			num(r.Value), "", "", "", r.Source, "", "", ""})
	}
}

func powersOfTwo(xs []float64) bool {
	for _, x := range xs {
		if x < 1 || x != math.Exp2(math.Round(math.Log2(x))) {
			return false
		}
	}
	return len(xs) >= 3
}

// plainTicks are gonum/plot's default ticks labelled without trailing
// zeros: a band that stretches the axis to 56 gives 25 and 50, not 25.00.
type plainTicks struct{}

func (plainTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(lo, hi)
	for i, t := range ticks {
		if t.Label != "" {
			ticks[i].Label = num(t.Value)
		}
	}
	return ticks
}

// inRange drops the ticks a Ticker returns outside the axis: LogTicks
// labels the next power of ten, and its label would push the data down.
type inRange struct{ plot.Ticker }

func (r inRange) Ticks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	for _, t := range r.Ticker.Ticks(lo, hi) {
		if t.Value >= lo && t.Value <= hi {
			out = append(out, t)
		}
	}
	return out
}

// atValues puts a labelled tick at each x.
func atValues(xs []float64) plot.ConstantTicks {
	ticks := make(plot.ConstantTicks, len(xs))
	for i, x := range xs {
		ticks[i] = plot.Tick{Value: x, Label: num(x)}
	}
	return ticks
}

// sourceName is the part of a reference's source before a colon or a
// parenthesis: the thread, commit or tool it comes from ("seed 003").
func sourceName(src string) string {
	if i := strings.IndexAny(src, ":("); i >= 0 {
		src = src[:i]
	}
	return strings.TrimSpace(src)
}

func variantIndex(s *scenarios.Scenario, v string) int {
	return slices.Index(s.VariantNames(), v)
}

func axisLabel(axis string) string {
	switch axis {
	case "cores":
		return "CPUs"
	case "rx_queues":
		return "RX queues (one CPU each)"
	case "threads":
		return "threads"
	case "filters":
		return "filters installed"
	}
	return axis
}

func num(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }

// scaled are the metrics a scaling figure can draw, with their axis label.
var scaled = map[string]string{
	"throughput_per_core": "throughput per CPU",
	"throughput":          "total throughput",
	"cost":                "cost per operation",
}

// scaledMetric is what a series' scaling figure draws: the throughput or
// cost its references quote on its axis, else the total throughput, whose
// rise and fall is what a prediction of contention shows.
func scaledMetric(se *scenarios.Series) (metric, unit string) {
	for _, r := range se.Refs {
		if _, ok := scaled[r.Metric]; ok && r.Axis == se.Axis {
			return r.Metric, r.Unit
		}
	}
	return "throughput", "Mpps"
}

func scaling(s *scenarios.Scenario, series []*scenarios.Series, o Options) (*Figure, error) {
	if s.Workload.Kind != scenarios.WorkloadFlood {
		return nil, fmt.Errorf("%s: scaling draws packet floods; its workload is %s (try --kind insertion or breakdown)", s.Name, s.Workload.Kind)
	}
	f := &Figure{Kind: "scaling", Header: curveHeader, panelH: 1.75 * vg.Inch}
	bands := newBander(s, o.Bands)
	for _, se := range series {
		g, err := simulate(s, se, axisValues(s, se, o), o)
		if err != nil {
			return nil, err
		}
		metric, unit := scaledMetric(se)
		if err := f.addCurves(s, g, curve{metric: metric, unit: unit, ylabel: fmt.Sprintf("%s (%s)", scaled[metric], unit), autoLogY: true, refs: true}, bands); err != nil {
			return nil, err
		}
		if len(series) > 1 {
			titled(f.panels[len(f.panels)-1], fmt.Sprintf("%s (%s)", se.Name, se.Profile))
		}
	}
	return f, nil
}

func insertion(s *scenarios.Scenario, series []*scenarios.Series, o Options) (*Figure, error) {
	if s.Workload.Kind == scenarios.WorkloadFlood {
		return nil, fmt.Errorf("%s: insertion draws a batch of control-plane operations; its workload is a flood (try --kind scaling)", s.Name)
	}
	f := &Figure{Kind: "insertion", Header: curveHeader, panelH: 1.5 * vg.Inch}
	bands := newBander(s, o.Bands)
	for _, se := range series {
		if s.AxisDrives(se.Axis) != scenarios.DrivesOps {
			return nil, fmt.Errorf("%s: series %s runs over %s; insertion draws a series over filters", s.Name, se.Name, se.Axis)
		}
		g, err := simulate(s, se, axisValues(s, se, o), o)
		if err != nil {
			return nil, err
		}
		if err := f.addCurves(s, g, curve{metric: "duration", unit: "s", ylabel: "insertion time (s)", logX: true, logY: true, refs: true}, bands); err != nil {
			return nil, err
		}
		if err := f.addCurves(s, g, curve{metric: "cpu_util", unit: "%", ylabel: "CPU utilisation (%)", logX: true}, nil); err != nil {
			return nil, err
		}
	}
	return f, nil
}
