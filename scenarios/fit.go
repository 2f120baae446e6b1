package scenarios

import (
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/optimize"

	"contend/models"
)

// Runner simulates points (possibly in parallel) and returns their results in
// order.
type Runner func([]Point) ([]*models.Result, error)

// Serial runs points one after another.
func (s *Scenario) Serial(pts []Point) ([]*models.Result, error) {
	out := make([]*models.Result, len(pts))
	for i, p := range pts {
		r, err := s.Simulate(p)
		if err != nil {
			return nil, err
		}
		out[i] = r
	}
	return out, nil
}

// Current returns the value of each free parameter of se as written, in the
// units Overrides take (ns, or the fraction for atomic_overlap).
func (s *Scenario) Current(se *Series) (map[string]float64, error) {
	out := map[string]float64{}
	pr := s.Profiles[se.Profile]
	for _, f := range se.Free {
		if name, ok := strings.CutPrefix(f, "params."); ok {
			v, known := se.Params[name]
			if !known {
				v = s.Params[name]
			}
			if v.IsTime {
				out[f] = v.Dur.Time(pr.GHz).Nanoseconds()
			} else {
				out[f] = v.Num
			}
			continue
		}
		field := strings.TrimPrefix(f, "profile.")
		if field == "atomic_overlap" {
			out[f] = pr.AtomicOverlap
			continue
		}
		p := pr.field(field)
		if p == nil {
			return nil, fmt.Errorf("series %s: unknown free parameter %q", se.Name, f)
		}
		out[f] = p.Nanoseconds()
	}
	return out, nil
}

// Bounds returns the range a free parameter of se may take: an overlap is a
// fraction in [0, 1]; a latency is positive and below the profile's memory
// latency (a cache line never costs more than DRAM; memory itself is
// bounded at 1 µs); a param is positive and at most 100 times its value as
// written (or 1 µs).
func (s *Scenario) Bounds(se *Series, free string) (lo, hi float64) {
	pr := s.Profiles[se.Profile]
	field, isProfile := strings.CutPrefix(free, "profile.")
	switch {
	case free == "profile.atomic_overlap":
		return 0, 1
	case isProfile && field == "memory":
		return 1e-3, 1000
	case isProfile:
		return 1e-3, math.Max(pr.Memory.Nanoseconds(), 1e-3)
	}
	cur, _ := s.Current(&Series{Profile: se.Profile, Params: se.Params, Free: []string{free}})
	return 1e-3, math.Max(100*cur[free], 1000)
}

// Fit adjusts se's free parameters to its calibrate points (least squares on
// relative error, Nelder-Mead) and returns the fitted values and the rows at
// them. Validation points play no part.
func (s *Scenario) Fit(se *Series, seed int64, run Runner) (map[string]float64, []Row, error) {
	start, err := s.Current(se)
	if err != nil {
		return nil, nil, err
	}
	cal := &Series{}
	*cal = *se
	cal.Refs = nil
	for _, r := range se.Refs {
		if r.Role == "calibrate" {
			cal.Refs = append(cal.Refs, r)
		}
	}
	if len(cal.Refs) == 0 || len(se.Free) == 0 {
		return start, nil, fmt.Errorf("series %s: nothing to fit: it needs free parameters and calibrate points", se.Name)
	}
	// Search in log space: every parameter is positive, and a step is then a
	// relative change whatever the parameter's scale.
	x0 := make([]float64, len(se.Free))
	for i, f := range se.Free {
		x0[i] = math.Log(math.Max(start[f], 1e-6))
	}
	over := func(x []float64) map[string]float64 {
		m := map[string]float64{}
		for i, f := range se.Free {
			v := math.Exp(x[i])
			if f == "profile.atomic_overlap" {
				v = math.Min(v, 1)
			}
			m[f] = v
		}
		return m
	}
	var fitErr error
	cost := func(x []float64) float64 {
		rows, err := s.Predict(cal, seed, over(x), run)
		if err != nil {
			fitErr = err
			return math.Inf(1)
		}
		var sum float64
		for _, r := range rows {
			sum += r.ErrorPct * r.ErrorPct
		}
		return sum
	}
	res, err := optimize.Minimize(optimize.Problem{Func: cost}, x0,
		&optimize.Settings{FuncEvaluations: 400, Converger: &optimize.FunctionConverge{Absolute: 1e-4, Iterations: 40}},
		&optimize.NelderMead{SimplexSize: 0.2})
	if fitErr != nil {
		return nil, nil, fitErr
	}
	if err != nil && res == nil {
		return nil, nil, err
	}
	best := over(res.X)
	rows, err := s.Predict(se, seed, best, run)
	return best, rows, err
}
