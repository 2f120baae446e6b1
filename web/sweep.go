package web

import (
	"fmt"

	"contend/band"
	"contend/models"
	"contend/scenarios"
)

// sweep simulates a series at every point of its axis and sends the table
// with its reference points, as contend run and validate would print them.
func (s *Server) sweep(c *client, req *Request) error {
	sc, err := s.load(req.Scenario, req.Text)
	if err != nil {
		return err
	}
	se, err := series(sc, req.Series)
	if err != nil {
		return err
	}
	if se == nil {
		return fmt.Errorf("%s has no series to sweep; add a [[series]] with an axis and points", sc.Name)
	}
	r, err := s.hub.begin(c)
	if err != nil {
		return err
	}
	seed := req.Seed
	if seed == 0 {
		seed = sc.Run.Seed
	}
	go s.hub.sweep(r, sc, se, seed, s.opts.Bands)
	return nil
}

func (h *hub) sweep(r *run, sc *scenarios.Scenario, se *scenarios.Series, seed int64, bands *band.File) {
	defer h.end(r)
	if !h.wait(r) {
		return
	}
	xs := se.Points
	if len(xs) == 0 && len(sc.Sweep) > 0 {
		xs = sc.Sweep[0].Values
	}
	mu := sweepMetric(sc, se)
	metric, unit := mu.metric, mu.unit
	var pts []scenarios.Point
	for _, v := range se.Variants {
		for _, x := range xs {
			pts = append(pts, scenarios.Point{Series: se, Variant: v, Axis: se.Axis, X: x, Seed: seed})
		}
	}
	pts = sc.Replicate(pts)
	total := len(pts) + refPoints(sc, se)
	done := 0
	run := func(pts []scenarios.Point) ([]*models.Result, error) {
		out := make([]*models.Result, len(pts))
		for i, p := range pts {
			w, spec, err := sc.Build(p)
			if err != nil {
				return nil, err
			}
			if !r.attach(w.M) {
				return nil, errStopped
			}
			if out[i], err = w.Run(spec); err != nil {
				return nil, err
			}
			done++
			r.broadcast(Progress{Type: "progress", Done: done, Total: total})
		}
		return out, nil
	}
	results, err := run(pts)
	var res SweepDone
	if err == nil {
		res, err = sweepTable(sc, se, xs, metric, unit, results, bands)
	}
	var rows []scenarios.Row
	if err == nil {
		rows, err = sc.Predict(se, seed, nil, run)
	}
	if err == nil {
		res.Refs, res.Changes, err = withBands(bands, sc, se, rows)
	}
	if err != nil {
		if err != errStopped {
			r.broadcast(errorMsg(r.id, err))
		}
		return
	}
	r.broadcast(res)
}

var errStopped = fmt.Errorf("stopped")

// sweepTable is the sweep's values of metric, each with the error band
// run and sweep give it.
func sweepTable(sc *scenarios.Scenario, se *scenarios.Series, xs []float64, metric, unit string, results []*models.Result, bands *band.File) (SweepDone, error) {
	res := SweepDone{Type: "sweep_done", Scenario: sc.Name, Series: se.Name, Axis: se.Axis, Metric: metric, Unit: unit,
		AxisCounts: countingAxis(sc, se.Axis), X: nonNil(xs), Variants: se.Variants, Values: make([][]float64, len(se.Variants)),
		Bands: make([][]Band, len(se.Variants))}
	cl := band.NewClassifier(sc)
	for i := range se.Variants {
		res.Values[i], res.Bands[i] = make([]float64, len(xs)), make([]Band, len(xs))
		for k, x := range xs {
			v, err := sc.MeanMetric(results, i*len(xs)+k, metric, unit)
			if err != nil {
				return res, err
			}
			res.Values[i][k] = v
			res.Bands[i][k] = predictionBand(bands, cl, se, se.Axis, x, metric, v)
		}
	}
	return res, nil
}

// refPoints counts the simulations Predict makes for se's references.
func refPoints(sc *scenarios.Scenario, se *scenarios.Series) int {
	seen := map[string]bool{}
	for _, r := range se.Refs {
		seen[fmt.Sprintf("%s|%s|%v", r.Variant, r.Axis, r.X)] = true
	}
	return len(seen) * max(sc.Run.Replications, 1)
}
