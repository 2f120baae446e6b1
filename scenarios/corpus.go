package scenarios

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"gonum.org/v1/gonum/optimize"

	"contend/internal/parallel"
)

// A corpus fit sets one constant that no calibrate loop measures and no
// published table gives, the same for every machine, from every published
// case together: each series with validate points whose profile does not set
// the constant itself is a case, its free parameters refitted to its own
// calibrate points at every value tried. Each case's error is also given at
// the value fitted without it (leave one case out), which is what the
// constant would predict for a case nobody fitted it to.
//
// A published case is one scenario file: the series of one (a table split
// per thread count, as cna-locktorture's x5-4-N) share its weight, so that
// each published case counts once in the fit, and leaving a case out
// leaves out every series of its scenario.

// Case is one series of the corpus.
type Case struct {
	Scenario *Scenario
	Series   *Series
}

// Name is how a case is named: scenario/series.
func (c Case) Name() string { return c.Scenario.Name + "/" + c.Series.Name }

// CorpusParams are the constants a corpus fit may set, with their bounds:
// profile.snoop, the fraction of a transfer an owner keeps the line it is
// losing, where a profile gives neither snoop nor snoop_window.
var CorpusParams = map[string][2]float64{
	"profile.snoop": {0.02, 1},
}

// DefaultGrid is the values a corpus fit tries when none are given.
var DefaultGrid = []float64{0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1}

// ParseGrid reads the values a corpus fit tries, separated by commas; an
// empty text is DefaultGrid.
func ParseGrid(text string) ([]float64, error) {
	if text == "" {
		return slices.Clone(DefaultGrid), nil
	}
	var grid []float64
	for _, f := range strings.Split(text, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil {
			return nil, fmt.Errorf("--grid %s: %q is not a number; give values separated by commas, e.g. --grid 0.1,0.3,0.5", text, f)
		}
		grid = append(grid, v)
	}
	return grid, nil
}

// CaseFit is one case's part of a corpus fit.
type CaseFit struct {
	Case   string    `json:"case"`
	Points int       `json:"points"`       // validate points judged
	Weight float64   `json:"weight"`       // 1 over the series its scenario has in the corpus
	Cost   []float64 `json:"cost"`         // mean squared log error of the points at each grid value
	Held   float64   `json:"held_out_fit"` // the value fitted on every other case
	// RMS error of the case's points, in percent (exp of the RMS log
	// error, less one), at the value as written, at the corpus fit and at
	// the value fitted without it.
	AtCurrent float64 `json:"rms_pct_current"`
	AtBest    float64 `json:"rms_pct_best"`
	AtHeld    float64 `json:"rms_pct_held_out"`
}

// CorpusFit is a fitted corpus constant.
type CorpusFit struct {
	Param   string    `json:"param"`
	Current float64   `json:"current"` // the value profiles take today
	Grid    []float64 `json:"grid"`
	Total   []float64 `json:"total"` // the summed cost at each grid value
	Best    float64   `json:"best"`
	Cases   []CaseFit `json:"cases"`
	Skipped []string  `json:"skipped,omitempty"` // cases whose profile sets the constant itself
}

// Corpus returns every series of the scenarios that has validate points.
func Corpus(ss []*Scenario) []Case {
	var out []Case
	for _, s := range ss {
		for _, se := range s.Series {
			if slices.ContainsFunc(se.Refs, func(r Reference) bool { return r.Role == "validate" }) {
				out = append(out, Case{s, se})
			}
		}
	}
	return out
}

// FitCorpus fits param (one of CorpusParams) over the cases: it evaluates
// every case at each value of grid (its free parameters refitted there), takes
// the grid's best and refines it between its neighbours (gonum's
// Nelder-Mead on the summed cost), and for each case the grid value that
// fits the others best. current is the value profiles take today. The
// cases at the grid's values and at current, each a fit and its
// predictions, are worked out by jobs goroutines at once; the result does
// not depend on jobs.
func FitCorpus(cases []Case, param string, current float64, grid []float64, jobs int, seed func(*Scenario) int64, run func(*Scenario) Runner) (*CorpusFit, error) {
	bounds, ok := CorpusParams[param]
	if !ok {
		names := make([]string, 0, len(CorpusParams))
		for k := range CorpusParams {
			names = append(names, k)
		}
		slices.Sort(names)
		return nil, fmt.Errorf("fit --corpus: %q is not a corpus constant; use one of %s", param, strings.Join(names, ", "))
	}
	if len(grid) < 3 {
		return nil, fmt.Errorf("fit --corpus: a grid of %d values; give at least 3", len(grid))
	}
	for _, v := range grid {
		if !(v >= bounds[0] && v <= bounds[1]) {
			return nil, fmt.Errorf("fit --corpus: %s = %v is out of its bounds [%v, %v]", param, v, bounds[0], bounds[1])
		}
	}
	grid = slices.Clone(grid)
	slices.Sort(grid)
	grid = slices.Compact(grid)
	out := &CorpusFit{Param: param, Current: current, Grid: grid, Total: make([]float64, len(grid))}
	var judged []Case
	for _, c := range cases {
		if pr := c.Scenario.Profiles[c.Series.Profile]; pr != nil && pr.SnoopGiven && param == "profile.snoop" {
			out.Skipped = append(out.Skipped, c.Name())
			continue
		}
		judged = append(judged, c)
	}
	perScenario := map[string]int{} // a scenario's series in the corpus share its weight
	for _, c := range judged {
		perScenario[c.Scenario.Name]++
	}
	if len(perScenario) < 2 {
		return nil, fmt.Errorf("fit --corpus: %d published case(s) (scenarios) leave %s to the corpus; leaving one out needs at least 2", len(perScenario), param)
	}
	// Each case at each value is simulated once: the grid, today's value
	// and the refined best may coincide, and a run is deterministic.
	type at struct {
		c int
		v float64
	}
	memo := map[at][2]float64{}
	var mu sync.Mutex
	costAt := func(i int, v float64) (float64, int, error) {
		mu.Lock()
		m, ok := memo[at{i, v}]
		mu.Unlock()
		if ok {
			return m[0], int(m[1]), nil
		}
		c := judged[i]
		cost, n, err := caseCost(c, param, v, seed(c.Scenario), run(c.Scenario))
		if err == nil {
			mu.Lock()
			memo[at{i, v}] = [2]float64{cost, float64(n)}
			mu.Unlock()
		}
		return cost, n, err
	}
	// Every case at every value of the grid and at current first, jobs at
	// a time: the loop below then finds them worked out, in its own order,
	// and meets a failure (which is not kept) where it would have alone.
	values := grid
	if !slices.Contains(grid, current) {
		values = append(slices.Clone(grid), current)
	}
	var cells []at
	for ci := range judged {
		for _, v := range values {
			cells = append(cells, at{ci, v})
		}
	}
	_ = parallel.Each(len(cells), jobs, nil, func(k int) error {
		_, _, _ = costAt(cells[k].c, cells[k].v) // a failure is met again below, in order
		return nil
	})
	weight := func(ci int) float64 { return 1 / float64(perScenario[judged[ci].Scenario.Name]) }
	for ci, c := range judged {
		cf := CaseFit{Case: c.Name(), Cost: make([]float64, len(grid)), Weight: weight(ci)}
		for i, v := range grid {
			cost, n, err := costAt(ci, v)
			if err != nil {
				return nil, err
			}
			cf.Cost[i], cf.Points = cost, n
			out.Total[i] += cf.Weight * cost
		}
		cur, _, err := costAt(ci, current)
		if err != nil {
			return nil, err
		}
		cf.AtCurrent = rmsPct(cur)
		out.Cases = append(out.Cases, cf)
	}
	// The grid's best, refined between its neighbours.
	bi := argmin(out.Total)
	lo, hi := grid[max(bi-1, 0)], grid[min(bi+1, len(grid)-1)]
	var fitErr error
	total := func(x []float64) float64 {
		v := min(max(x[0], lo), hi)
		var sum float64
		for ci := range judged {
			cost, _, err := costAt(ci, v)
			if err != nil {
				fitErr = err
				return math.Inf(1)
			}
			sum += weight(ci) * cost
		}
		return sum
	}
	out.Best = grid[bi]
	if hi > lo {
		res, _ := optimize.Minimize(optimize.Problem{Func: total}, []float64{grid[bi]},
			&optimize.Settings{FuncEvaluations: 12, Converger: &optimize.FunctionConverge{Absolute: 1e-6, Iterations: 6}},
			&optimize.NelderMead{SimplexSize: (hi - lo) / 2})
		if fitErr != nil {
			return nil, fitErr
		}
		if res != nil && res.F < out.Total[bi] {
			out.Best = min(max(res.X[0], lo), hi)
		}
	}
	for i := range out.Cases {
		best, _, err := costAt(i, out.Best)
		if err != nil {
			return nil, err
		}
		out.Cases[i].AtBest = rmsPct(best)
		rest := slices.Clone(out.Total)
		for j, o := range out.Cases {
			if judged[j].Scenario.Name != judged[i].Scenario.Name {
				continue
			}
			for g := range grid {
				rest[g] -= o.Weight * o.Cost[g]
			}
		}
		// Of values the rest fit equally well, the nearest the corpus's
		// own: a model of discrete regimes is flat across each.
		h := argmin(rest)
		for g := range grid {
			if rest[g] == rest[h] && math.Abs(grid[g]-out.Best) < math.Abs(grid[h]-out.Best) {
				h = g
			}
		}
		out.Cases[i].Held = grid[h]
		out.Cases[i].AtHeld = rmsPct(out.Cases[i].Cost[h])
	}
	return out, nil
}

// caseCost simulates a case's validate points with param at v, its free
// parameters refitted to its calibrate points first, and returns their mean
// squared log error and how many there are.
func caseCost(c Case, param string, v float64, seed int64, run Runner) (float64, int, error) {
	s, se := c.Scenario, c.Series
	over := map[string]float64{param: v}
	if len(se.Free) > 0 && slices.ContainsFunc(se.Refs, func(r Reference) bool { return r.Role == "calibrate" }) {
		// Refit only when v moves the calibrate points: most are of one
		// CPU, where no line changes hands.
		cal, err := s.Predict(calibrateOnly(se), seed, over, run)
		if err != nil {
			return 0, 0, err
		}
		if slices.ContainsFunc(cal, func(r Row) bool { return math.Abs(r.ErrorPct) > 1 }) {
			best, _, err := s.FitWith(se, seed, over, run)
			if err != nil {
				return 0, 0, fmt.Errorf("%s: %w", c.Name(), err)
			}
			over = best
			over[param] = v
		}
	}
	rows, err := s.Predict(se, seed, over, run)
	if err != nil {
		return 0, 0, err
	}
	var sum float64
	var n int
	for _, r := range rows {
		if r.Role != "validate" || !(r.Measured > 0) || !(r.Predicted > 0) {
			continue
		}
		l := math.Log(r.Predicted / r.Measured)
		sum += l * l
		n++
	}
	if n == 0 {
		return 0, 0, nil
	}
	return sum / float64(n), n, nil
}

// rmsPct turns a mean squared log error into the RMS error in percent.
func rmsPct(msl float64) float64 { return 100 * (math.Exp(math.Sqrt(msl)) - 1) }

func argmin(xs []float64) int {
	best := 0
	for i, x := range xs {
		if x < xs[best] {
			best = i
		}
	}
	return best
}
