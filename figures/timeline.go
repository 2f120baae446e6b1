package figures

import (
	"fmt"
	"strconv"

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
	o.Replications = 1
	g, err := simulate(s, se, []float64{x}, o)
	if err != nil {
		return nil, err
	}
	vi, err := pickVariant(s, g, o.Variant, func(r *models.Result) float64 {
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
	if g.results[vi].RCU.GracePeriods == 0 {
		return nil, fmt.Errorf("%s: no grace period ends in the run of variant %s at %s=%s; a timeline needs a variant that calls synchronize_rcu, call_rcu or queue_rcu_work and a run longer than a grace period (try --variant or a larger --x)", s.Name, v, se.Axis, num(x))
	}
	samples, err := observe(s, scenarios.Point{Series: se, Variant: v, Axis: se.Axis, X: x, Seed: o.Seed}, o.Window)
	if err != nil {
		return nil, err
	}
	f := &Figure{Kind: "timeline", Header: []string{"series", "variant", "axis", "x", "time_ms", "pending_bytes", "grace_periods"}, panelH: 1.4 * vg.Inch, sharedX: true}
	pending, gps := make(plotter.XYs, len(samples)), make(plotter.XYs, len(samples))
	maxPending := 0.0
	for i, sm := range samples {
		ms := float64(sm.Now) / float64(sim.Millisecond)
		pending[i] = plotter.XY{X: ms, Y: sm.Pending / 1024}
		gps[i] = plotter.XY{X: ms, Y: float64(sm.RCUGPs)}
		maxPending = max(maxPending, sm.Pending)
		f.Rows = append(f.Rows, []string{se.Name, v, se.Axis, num(x), num(ms), num(sm.Pending), strconv.FormatUint(sm.RCUGPs, 10)})
	}
	title := fmt.Sprintf("%s, %s, %s = %s", se.Name, v, se.Axis, num(x))
	if maxPending > 0 {
		if err := f.addStep(pending, "to be freed (KiB)", 1); err != nil {
			return nil, err
		}
	}
	if err := f.addStep(gps, "grace periods", 0); err != nil {
		return nil, err
	}
	titled(f.panels[0], title)
	return f, nil
}

// observe runs p and keeps the samples of its first window of time.
func observe(s *scenarios.Scenario, p scenarios.Point, window sim.Time) ([]models.Sample, error) {
	w, spec, err := s.Build(p)
	if err != nil {
		return nil, err
	}
	var out []models.Sample
	spec.SampleEvery = max(window/samplesPerWindow, 1)
	spec.Observe = func(sm models.Sample) {
		if sm.Now <= window {
			sm.Packets = nil // not drawn; the sample's slice is the run's
			out = append(out, sm)
		}
	}
	if _, err := w.Run(spec); err != nil {
		return nil, fmt.Errorf("%s: variant %s: %w", s.Name, p.Variant, err)
	}
	return out, nil
}

// addStep adds a panel with one step line over time; its y label says what
// it is, so it needs no legend.
func (f *Figure) addStep(xys plotter.XYs, ylabel string, idx int) error {
	l, err := plotter.NewLine(xys)
	if err != nil {
		return err
	}
	l.StepStyle = plotter.PostStep
	l.Color, l.Width = colorOf(idx), vg.Points(1)
	p := newPlot("time (ms)", ylabel)
	p.Add(l)
	p.Y.Min = 0
	f.panels = append(f.panels, p)
	return nil
}
