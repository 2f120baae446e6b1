package sweep

import (
	"contend/internal/parallel"
	"contend/models"
	"contend/scenarios"
)

// Simulate runs the points of slice (all of them when slice is nil) on jobs
// workers drawing from one queue over every group, so that no worker waits
// for a group to finish. It returns each point's metrics, nil for a point
// outside the slice.
func (p *Plan) Simulate(slice *Slice, jobs int, progress func(done, total int)) ([][]float64, error) {
	var todo []int
	for i := range p.points {
		if slice == nil || slice.has(i) {
			todo = append(todo, i)
		}
	}
	return p.run(p.points, todo, jobs, progress)
}

// run simulates pts[i] for every i of todo and returns each one's metrics,
// nil for the points not in todo.
func (p *Plan) run(pts []planPoint, todo []int, jobs int, progress func(done, total int)) ([][]float64, error) {
	values := make([][]float64, len(pts))
	err := parallel.Each(len(todo), jobs, progress, func(k int) error {
		i := todo[k]
		pt := pts[i]
		g := &p.Groups[pt.group]
		s := p.scens[g.Scenario]
		r, err := s.Simulate(pt.Point)
		if err != nil {
			return err
		}
		vs := make([]float64, len(g.Metrics), len(g.Metrics)+1)
		for m, mu := range g.Metrics {
			if vs[m], err = scenarios.Metric(r, mu.Metric, mu.Unit); err != nil {
				return err
			}
		}
		values[i] = append(vs, float64(noteOf(r)))
		return nil
	})
	return values, err
}

// Intervals simulates the plan n more times, each time with one draw of
// every series' profile (see draws), and returns, for each cell of each of
// tables' tables, the median and 90% interval of its value.
func (p *Plan) Intervals(n, jobs int, progress func(done, total int)) ([][][]Bounds, error) {
	drawn := map[*scenarios.Series][]Draw{}
	var pts []planPoint
	var todo []int
	for k := range n {
		for _, pt := range p.points {
			base := p.Scenarios[p.Groups[pt.group].Scenario].Seed
			if drawn[pt.Series] == nil {
				drawn[pt.Series] = Draws(p.scens[p.Groups[pt.group].Scenario], pt.Series, base, n)
			}
			d := drawn[pt.Series][k]
			pt.Overrides, pt.Seed = d.Over, d.Seed+pt.Seed-base // the replication keeps its offset
			todo = append(todo, len(pts))
			pts = append(pts, pt)
		}
	}
	values, err := p.run(pts, todo, jobs, progress)
	if err != nil {
		return nil, err
	}
	samples := make([][]Table, n)
	for k := range samples {
		samples[k] = p.Tables(values[k*len(p.points) : (k+1)*len(p.points)])
	}
	out := make([][][]Bounds, len(samples[0]))
	for ti, t := range samples[0] {
		out[ti] = make([][]Bounds, len(t.X))
		for i := range t.X {
			out[ti][i] = make([]Bounds, len(t.Variants))
			for j := range t.Variants {
				cell := make([]float64, n)
				for k := range samples {
					cell[k] = samples[k][ti].Values[i][j]
				}
				out[ti][i][j] = Summarize(cell)
			}
		}
	}
	return out, nil
}

// Runner returns a Runner that simulates points on jobs goroutines; results
// come back in input order, so output does not depend on jobs.
func Runner(s *scenarios.Scenario, jobs int, progress func(done, total int)) scenarios.Runner {
	return func(pts []scenarios.Point) ([]*models.Result, error) {
		out := make([]*models.Result, len(pts))
		err := parallel.Each(len(pts), jobs, progress, func(i int) error {
			var err error
			out[i], err = s.Simulate(pts[i])
			return err
		})
		if err != nil {
			return nil, err
		}
		return out, nil
	}
}
