package sweep

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"contend/scenarios"

	"gonum.org/v1/gonum/stat"
)

// Bounds is the spread of one prediction over the samples of the profile.
type Bounds struct {
	Median float64 `json:"median"`
	Low    float64 `json:"low"`  // 5th percentile
	High   float64 `json:"high"` // 95th percentile
}

// interval is a reference's Bounds and whether the measured figure is
// inside them.
type Interval struct {
	Bounds
	Inside bool `json:"inside"`
}

// latinHypercube draws n samples of d values in [0, 1): each value's n
// draws fall one in each of n equal strata, in an order shuffled per value,
// so that few samples still cover every value's range.
func latinHypercube(rng *rand.Rand, n, d int) [][]float64 {
	out := make([][]float64, n)
	for i := range out {
		out[i] = make([]float64, d)
	}
	for j := range d {
		for i, stratum := range rng.Perm(n) {
			out[i][j] = (float64(stratum) + rng.Float64()) / float64(n)
		}
	}
	return out
}

// draw is one sample of a series' profile: its values with a spread, drawn
// by Latin hypercube (normal, the spread one standard deviation, never below
// 0), as Overrides, and a seed of its own.
type Draw struct {
	Over map[string]float64
	Seed int64
}

// draws returns n draws of se's profile; a draw's replications take the
// seeds after its own.
func Draws(s *scenarios.Scenario, se *scenarios.Series, seed int64, n int) []Draw {
	unc := s.Uncertain(se)
	rng := rand.New(rand.NewPCG(uint64(seed), uint64(len(unc))))
	out := make([]Draw, n)
	for k, u := range latinHypercube(rng, n, len(unc)) {
		over := map[string]float64{}
		for j, x := range unc {
			over[x.Key] = math.Max(0, x.Value+x.SD*math.Sqrt2*math.Erfinv(2*u[j]-1))
		}
		out[k] = Draw{over, seed + int64(k*max(s.Run.Replications, 1))}
	}
	return out
}

// summarize returns the median and 90% interval of samples (empirical
// quantiles: each bound is one of the samples). It sorts samples.
func Summarize(samples []float64) Bounds {
	slices.Sort(samples)
	return Bounds{Median: stat.Quantile(0.5, stat.Empirical, samples, nil),
		Low: stat.Quantile(0.05, stat.Empirical, samples, nil), High: stat.Quantile(0.95, stat.Empirical, samples, nil)}
}

// Intervals predicts the references of se n times, one per draw, and
// returns for each row of Predict the median and 90% interval of its
// prediction and whether the measured figure falls inside.
func Intervals(s *scenarios.Scenario, se *scenarios.Series, seed int64, n int, run scenarios.Runner) ([]Interval, error) {
	var preds [][]float64 // [row][sample]
	var measured []float64
	for _, d := range Draws(s, se, seed, n) {
		rows, err := s.Predict(se, d.Seed, d.Over, run)
		if err != nil {
			return nil, err
		}
		if preds == nil {
			preds = make([][]float64, len(rows))
			for _, r := range rows {
				measured = append(measured, r.Measured)
			}
		}
		for i, r := range rows {
			preds[i] = append(preds[i], r.Predicted)
		}
	}
	out := make([]Interval, len(preds))
	for i, p := range preds {
		b := Summarize(p)
		out[i] = Interval{b, b.Low <= measured[i] && measured[i] <= b.High}
	}
	return out, nil
}

// CheckSamples refuses a sample count that gives no interval.
func CheckSamples(n int) error {
	if n == 1 {
		return fmt.Errorf("--uncertainty %d: give at least 2 samples (20 or more for a useful 90%% interval), or 0 for none", n)
	}
	return nil
}
