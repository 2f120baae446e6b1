package scenarios

import (
	"fmt"
	"maps"
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
		switch field {
		case "atomic_overlap":
			out[f] = pr.AtomicOverlap
			continue
		case "miss_overlap":
			out[f] = pr.MissOverlap
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

// Overlap reports whether free is one of the profile's overlaps
// (atomic_overlap, miss_overlap): a fraction in [0, 1], fitted on a linear
// scale, where every other profile value is a latency.
func Overlap(free string) bool {
	return free == "profile.atomic_overlap" || free == "profile.miss_overlap"
}

// Bounds returns the range a free parameter of se may take: an overlap is a
// fraction in [0, 1]; a latency is positive and below the profile's memory
// latency (a cache line does not cost more than DRAM), unless the file
// already gives more (a ping-pong between sockets, or in a guest, can);
// memory itself stays below 1 µs; a param is positive and at most 100 times
// its value as written (or 1 µs).
func (s *Scenario) Bounds(se *Series, free string) (lo, hi float64) {
	const least = 1e-3 // ns: positive, and far below any latency
	cur, _ := s.Current(&Series{Profile: se.Profile, Params: se.Params, Free: []string{free}})
	field, isProfile := strings.CutPrefix(free, "profile.")
	switch {
	case Overlap(free):
		return 0, 1
	case isProfile && field == "memory":
		return least, 1000
	case isProfile:
		return least, math.Max(s.Profiles[se.Profile].Memory.Nanoseconds(), cur[free])
	}
	return least, math.Max(100*cur[free], 1000)
}

// boundMap maps the real line onto [lo, hi] with a logistic function, of
// the logarithm when log is set.
type boundMap struct {
	lo, hi float64
	log    bool
}

func (b boundMap) scale(v float64) float64 {
	if b.log {
		return math.Log(v)
	}
	return v
}

// to returns the point of the real line for v, nudged inside the bounds.
func (b boundMap) to(v float64) float64 {
	lo, hi := b.scale(b.lo), b.scale(b.hi)
	p := (b.scale(min(max(v, b.lo), b.hi)) - lo) / (hi - lo)
	p = min(max(p, 1e-6), 1-1e-6)
	return math.Log(p / (1 - p))
}

// from returns the value at x.
func (b boundMap) from(x float64) float64 {
	lo, hi := b.scale(b.lo), b.scale(b.hi)
	v := lo + (hi-lo)/(1+math.Exp(-x))
	if b.log {
		return min(max(math.Exp(v), b.lo), b.hi)
	}
	return v
}

// Fit adjusts se's free parameters to its calibrate points (least squares on
// relative error, Nelder-Mead) and returns the fitted values and the rows at
// them. Validation points play no part.
func (s *Scenario) Fit(se *Series, seed int64, run Runner) (map[string]float64, []Row, error) {
	return s.FitWith(se, seed, nil, run)
}

// FitWith is Fit with the overrides of base held fixed: what a corpus fit
// of a constant shared by every series does at each value it tries.
func (s *Scenario) FitWith(se *Series, seed int64, base map[string]float64, run Runner) (map[string]float64, []Row, error) {
	start, err := s.Current(se)
	if err != nil {
		return nil, nil, err
	}
	cal := calibrateOnly(se)
	if len(cal.Refs) == 0 || len(se.Free) == 0 {
		return start, nil, fmt.Errorf("series %s: nothing to fit: it needs free parameters and calibrate points", se.Name)
	}
	// Search an unbounded space mapped onto each parameter's bounds, in
	// logarithms for the positive ones so that a step is a relative change
	// whatever the parameter's scale: the optimizer cannot leave the bounds.
	bms := make([]boundMap, len(se.Free))
	x0 := make([]float64, len(se.Free))
	for i, f := range se.Free {
		lo, hi := s.Bounds(se, f)
		bms[i] = boundMap{lo: lo, hi: hi, log: !Overlap(f)}
		x0[i] = bms[i].to(start[f])
	}
	over := func(x []float64) map[string]float64 {
		m := maps.Clone(base)
		if m == nil {
			m = map[string]float64{}
		}
		for i, f := range se.Free {
			m[f] = bms[i].from(x[i])
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

// calibrateOnly is se with its calibrate points alone.
func calibrateOnly(se *Series) *Series {
	cal := *se
	cal.Refs = nil
	for _, r := range se.Refs {
		if r.Role == "calibrate" {
			cal.Refs = append(cal.Refs, r)
		}
	}
	return &cal
}

// Other is a value of a free parameter, besides the fitted one, where the
// calibrate points' mean error changes sign: a second fit when the error
// there is near zero (Root), else a jump of the model's response from one
// regime to another (From and To are the errors on either side).
type Other struct {
	Value    float64
	Root     bool
	From, To float64 // mean error in percent just below and just above Value
}

// OtherFits looks, for a series with one free parameter, for values other
// than best where the mean error of the calibrate points changes sign
// between two of n values spread evenly (in logarithm) from a hundredth to
// a hundred times best, within the parameter's bounds, and bisects to each.
// A window narrower than the grid's step can slip through: the more points,
// the surer. A model whose response has regimes (a lock that the loop
// around it saturates or not) can meet a measurement twice, or jump across
// it, and the fit finds whichever solution is nearest where it started; the
// measurement's other figures, or what the benchmark does, say which is
// meant. A series with more or fewer than one free parameter has none.
func (s *Scenario) OtherFits(se *Series, seed int64, best map[string]float64, n int, run Runner) ([]Other, error) {
	if len(se.Free) != 1 || n < 2 {
		return nil, nil
	}
	free := se.Free[0]
	cal := calibrateOnly(se)
	if len(cal.Refs) == 0 || !(best[free] > 0) {
		return nil, nil
	}
	errAt := func(v float64) (float64, error) {
		rows, err := s.Predict(cal, seed, map[string]float64{free: v}, run)
		if err != nil {
			return 0, err
		}
		var sum float64
		for _, r := range rows {
			sum += r.ErrorPct
		}
		return sum / float64(len(rows)), nil
	}
	lo, hi := s.Bounds(se, free)
	lo, hi = max(lo, 1e-3, best[free]/scanSpan), min(hi, best[free]*scanSpan)
	if !(hi > lo) {
		return nil, nil
	}
	var out []Other
	prevV, prevE, prevOK := 0.0, 0.0, false
	var lastErr error
	ran := 0
	for i := range n {
		v := lo * math.Pow(hi/lo, float64(i)/float64(n-1))
		e, err := errAt(v)
		if err != nil {
			// A value the model cannot run (a run that never ends, a
			// zero duration) tells nothing: the scan goes on past it.
			prevOK, lastErr = false, err
			continue
		}
		ran++
		if prevOK && (prevE < 0) != (e < 0) {
			a, b, ea, eb := prevV, v, prevE, e
			for range 14 {
				m := math.Sqrt(a * b)
				em, err := errAt(m)
				if err != nil {
					break
				}
				if (em < 0) == (ea < 0) {
					a, ea = m, em
				} else {
					b, eb = m, em
				}
			}
			o := Other{Value: math.Sqrt(a * b), Root: min(math.Abs(ea), math.Abs(eb)) < rootPct, From: ea, To: eb}
			if math.Abs(o.Value/best[free]-1) > 0.05 {
				out = append(out, o)
			}
		}
		prevV, prevE, prevOK = v, e, true
	}
	if ran == 0 {
		return nil, fmt.Errorf("series %s: no value of %s from %.4g to %.4g could be simulated: %w", se.Name, free, lo, hi, lastErr)
	}
	return out, nil
}

const (
	// rootPct is how near zero, in percent, the error must come for a
	// change of sign to be a second fit rather than a jump.
	rootPct = 1.0
	// scanSpan is how far, as a factor either way of the fitted value and
	// within the parameter's bounds, OtherFits looks.
	scanSpan = 100
)
