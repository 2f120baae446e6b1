package figures

import (
	"fmt"
	"image/color"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"contend/models"
	"contend/scenarios"
	"contend/sim"
)

// samplesPerWindow sets how finely a timeline samples the run: fine enough
// to show each jiffy (4 ms at HZ=250) in a 100 ms window.
const samplesPerWindow = 400

func timeline(s *scenarios.Scenario, series []*scenarios.Series, o Options) (*Figure, error) {
	se := series[0]
	x := o.X
	if x == 0 {
		// The smallest point: a timeline shows the first grace periods,
		// not a long run.
		x = axisValues(s, se, o)[0]
	}
	g, vi, err := onePoint(s, se, x, o, func(r *models.Result) float64 {
		if r.RCU.GracePeriods == 0 {
			return 0
		}
		// Memory waiting to be freed is the richer picture.
		return 1 + 1e6*r.RCU.PendingBytesMax + float64(r.RCU.GracePeriods)
	})
	if err != nil {
		return nil, err
	}
	v := g.variants[vi]
	if g.results[vi*g.reps].RCU.GracePeriods == 0 {
		return nil, fmt.Errorf("%s: no grace period ends in the run of variant %s at %s=%s; a timeline needs a variant that calls synchronize_rcu, call_rcu or queue_rcu_work and a run longer than a grace period (try --variant or a larger --x)", s.Name, v, se.Axis, num(x))
	}
	samples, err := observe(s, scenarios.Point{Series: se, Variant: v, Axis: se.Axis, X: x, Seed: o.Seed}, o.Window)
	if err != nil {
		return nil, err
	}
	f := &Figure{Kind: "timeline", Header: []string{"series", "variant", "axis", "x", "time_ms", "pending_bytes", "grace_periods", "gp_active", "gp_start_ms"},
		panelH: 1.4 * vg.Inch}
	pending, gps := make(plotter.XYs, len(samples)), make(plotter.XYs, len(samples))
	maxPending := 0.0
	for i, sm := range samples {
		pending[i] = plotter.XY{X: sm.ms, Y: sm.pending}
		gps[i] = plotter.XY{X: sm.ms, Y: float64(sm.gps)}
		maxPending = max(maxPending, sm.pending)
		start := ""
		if sm.active {
			start = num(sm.startMs)
		}
		f.Rows = append(f.Rows, []string{se.Name, v, se.Axis, num(x), num(sm.ms), num(sm.pending), strconv.FormatUint(sm.gps, 10), strconv.FormatBool(sm.active), start})
	}
	spans := gracePeriods(samples)
	if maxPending > 0 {
		// KiB up to 10 MiB, then MiB: tick labels stay short.
		unit, scale := "KiB", 1024.0
		if maxPending >= 10<<20 {
			unit, scale = "MiB", 1<<20
		}
		for i := range pending {
			pending[i].Y /= scale
		}
		if err := f.addStep(pending, spans, "to be freed ("+unit+")", 1); err != nil {
			return nil, err
		}
	}
	if err := f.addStep(gps, spans, "grace periods ended", 0); err != nil {
		return nil, err
	}
	titled(f.panels[0], fmt.Sprintf("%s, %s, %s = %s", se.Name, v, se.Axis, num(x)))
	return f, nil
}

// sample is what a timeline keeps of a models.Sample.
type sample struct {
	ms, pending float64
	gps         uint64
	active      bool
	startMs     float64 // of the grace period in progress
}

func ms(t sim.Time) float64 { return float64(t) / float64(sim.Millisecond) }

// observe runs p and keeps the samples of its first window of time.
func observe(s *scenarios.Scenario, p scenarios.Point, window sim.Time) ([]sample, error) {
	w, spec, err := s.Build(p)
	if err != nil {
		return nil, err
	}
	var out []sample
	spec.SampleEvery = max(window/samplesPerWindow, 1)
	spec.Observe = func(sm models.Sample) {
		if sm.Now <= window {
			out = append(out, sample{ms: ms(sm.Now), pending: sm.Pending, gps: sm.RCUGPs, active: sm.GPActive, startMs: ms(sm.GPStart)})
		}
	}
	if _, err := w.Run(spec); err != nil {
		return nil, fmt.Errorf("%s: variant %s: %w", s.Name, p.Variant, err)
	}
	return out, nil
}

// span is a grace period, from its start to the last sample that saw it in
// progress (so it ends up to one sampling interval early).
type span struct{ from, to float64 }

func gracePeriods(samples []sample) []span {
	var out []span
	for _, sm := range samples {
		switch {
		case !sm.active:
		case len(out) > 0 && out[len(out)-1].from == sm.startMs:
			out[len(out)-1].to = sm.ms
		default:
			out = append(out, span{sm.startMs, sm.ms})
		}
	}
	return out
}

// shade draws grace periods as bands behind a panel's data, in two
// alternating greys: under load they follow each other without a gap.
func (f *Figure) shade(p *plot.Plot, spans []span, top float64) error {
	for i, sp := range spans {
		band, err := plotter.NewPolygon(plotter.XYs{{X: sp.from, Y: 0}, {X: sp.to, Y: 0}, {X: sp.to, Y: top}, {X: sp.from, Y: top}})
		if err != nil {
			return err
		}
		band.Color, band.LineStyle.Width = []color.Color{lightGrey, paleGrey}[i%2], 0
		p.Add(band)
		f.addLegend("grace period in progress (alternate shades)", band)
	}
	return nil
}

// addStep adds a panel with one step line over time, over the grace
// periods; its y label says what the line is.
func (f *Figure) addStep(xys plotter.XYs, spans []span, ylabel string, idx int) error {
	l, err := plotter.NewLine(xys)
	if err != nil {
		return err
	}
	l.StepStyle = plotter.PostStep
	l.Color, l.Width = colorOf(idx), vg.Points(1)
	p := newPlot("time (ms)", ylabel)
	top := 0.0
	for _, xy := range xys {
		top = max(top, xy.Y)
	}
	if err := f.shade(p, spans, top); err != nil {
		return err
	}
	p.Add(l)
	p.Y.Min = 0
	f.panels = append(f.panels, p)
	return nil
}
