package figures

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"contend/models"
	"contend/scenarios"
)

// transfersShown is how many line transfers a transfers figure draws: a
// few hand-overs, each still readable at a column's width.
const transfersShown = 48

// transfers draws the first line transfers of a point's measured interval
// as a swimlane per line: each transfer a bar from the moment the line's
// home took the request up to the moment the line came, in the colour of
// the CPU that asked, after a thin grey stretch for the time it queued.
// It is contend explain --trace as a picture: the chain of a hand-over.
// Colours repeat past seven CPUs; the default point is the smallest with
// two or more.
func transfers(s *scenarios.Scenario, series []*scenarios.Series, o Options) (*Figure, error) {
	se := series[0]
	x := o.X
	if x == 0 {
		// The smallest point where two CPUs can share a line: few CPUs,
		// few colours, a chain one can follow.
		xs := axisValues(s, se, o) // sorted
		i := slices.IndexFunc(xs, func(v float64) bool { return v >= 2 })
		if i < 0 {
			i = len(xs) - 1
		}
		x = xs[i]
	}
	g, vi, err := onePoint(s, se, x, o, func(r *models.Result) float64 { return float64(totalTransfers(r)) })
	if err != nil {
		return nil, err
	}
	v := g.variants[vi]
	w, spec, err := s.Build(scenarios.Point{Series: se, Variant: v, Axis: se.Axis, X: x, Seed: o.Seed})
	if err != nil {
		return nil, err
	}
	got := w.RecordTransfers(spec, 0, transfersShown)
	if _, err := w.Run(spec); err != nil {
		return nil, err
	}
	trace := got()
	if len(trace) == 0 {
		return nil, fmt.Errorf("%s: variant %s moves no shared line at %s=%s; a transfers figure needs some (try another --variant or --x)", s.Name, v, se.Axis, num(x))
	}
	f := &Figure{Kind: "transfers", Header: []string{"series", "variant", "axis", "x", "asked_ns", "queued_ns", "transfer_ns", "cpu", "symbol", "line", "op", "from", "hitm"}}
	// Lanes top to bottom in the order the lines first move.
	var lanes []string
	for _, t := range trace {
		if !slices.Contains(lanes, t.Line) {
			lanes = append(lanes, t.Line)
		}
	}
	lane := func(name string) float64 { return float64(len(lanes) - 1 - slices.Index(lanes, name)) }
	var cpus []int
	for _, t := range trace {
		if !slices.Contains(cpus, t.CPU) {
			cpus = append(cpus, t.CPU)
		}
	}
	slices.Sort(cpus)
	bars := make([]*plotter.Line, len(cpus))
	p := titled(newPlot("ns from the start of the measured interval", ""), fmt.Sprintf("%s, %s, %s = %s: the first %d line transfers", se.Name, v, se.Axis, num(x), len(trace)))
	for _, t := range trace {
		y := lane(t.Line)
		start := t.AskedNs + t.QueuedNs
		if t.QueuedNs > 0 {
			q, err := plotter.NewLine(plotter.XYs{{X: t.AskedNs, Y: y}, {X: start, Y: y}})
			if err != nil {
				return nil, err
			}
			q.Color, q.Width = midGrey, vg.Points(0.6)
			p.Add(q)
			f.addLegend("queued at the line's home", q)
		}
		bar, err := plotter.NewLine(plotter.XYs{{X: start, Y: y}, {X: start + t.TransferNs, Y: y}})
		if err != nil {
			return nil, err
		}
		ci := slices.Index(cpus, t.CPU)
		bar.Color, bar.Width = colorOf(ci), vg.Points(4)
		p.Add(bar)
		bars[ci] = bar
		f.Rows = append(f.Rows, []string{se.Name, v, se.Axis, num(x), num(t.AskedNs), num(t.QueuedNs), num(t.TransferNs),
			strconv.Itoa(t.CPU), t.Symbol, t.Line, t.Op, t.From, strconv.FormatBool(t.HITM)})
	}
	for i, id := range cpus {
		f.addLegend("cpu "+strconv.Itoa(id), bars[i])
	}
	names := slices.Clone(lanes)
	slices.Reverse(names)
	p.NominalY(names...)
	p.Y.Min, p.Y.Max = -0.5, float64(len(lanes))-0.5
	p.X.Tick.Marker = wholeNs{}
	f.panelH = vg.Points(float64(max(90, 50+18*len(lanes))))
	f.panels = append(f.panels, p)
	return f, nil
}

// wholeNs labels a time axis in whole nanoseconds: the default ticks of a
// span of a few hundred ns print two decimals no transfer has.
type wholeNs struct{}

func (wholeNs) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(lo, hi)
	for i, t := range ticks {
		if t.Label != "" {
			ticks[i].Label = strconv.FormatFloat(math.Round(t.Value), 'f', -1, 64)
		}
	}
	return ticks
}
