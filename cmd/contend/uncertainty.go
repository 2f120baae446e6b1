package main

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/stat"

	"contend/scenarios"
)

// bounds is the spread of one prediction over the samples of the profile.
type bounds struct {
	Median float64 `json:"median"`
	Low    float64 `json:"low"`  // 5th percentile
	High   float64 `json:"high"` // 95th percentile
}

// interval is a reference's bounds and whether the measured figure is
// inside them.
type interval struct {
	bounds
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
type draw struct {
	over map[string]float64
	seed int64
}

// draws returns n draws of se's profile; a draw's replications take the
// seeds after its own.
func draws(s *scenarios.Scenario, se *scenarios.Series, seed int64, n int) []draw {
	unc := s.Uncertain(se)
	rng := rand.New(rand.NewPCG(uint64(seed), uint64(len(unc))))
	out := make([]draw, n)
	for k, u := range latinHypercube(rng, n, len(unc)) {
		over := map[string]float64{}
		for j, x := range unc {
			over[x.Key] = math.Max(0, x.Value+x.SD*math.Sqrt2*math.Erfinv(2*u[j]-1))
		}
		out[k] = draw{over, seed + int64(k*max(s.Run.Replications, 1))}
	}
	return out
}

// summarize returns the median and 90% interval of samples (empirical
// quantiles: each bound is one of the samples). It sorts samples.
func summarize(samples []float64) bounds {
	slices.Sort(samples)
	return bounds{Median: stat.Quantile(0.5, stat.Empirical, samples, nil),
		Low: stat.Quantile(0.05, stat.Empirical, samples, nil), High: stat.Quantile(0.95, stat.Empirical, samples, nil)}
}

// samplesFlag declares --uncertainty for a command that predicts what, and
// then says what else it does with the samples.
func samplesFlag(fs *flag.FlagSet, what, then string) *int {
	return fs.Int("uncertainty", 0, "also predict "+what+" `N` times over the spread of the profile's values (\"45ns ± 4ns\") and the seed, by Latin hypercube: its median and 90% interval"+then)
}

// checkSamples refuses a sample count that gives no interval.
func checkSamples(n int) error {
	if n == 1 {
		return fmt.Errorf("--uncertainty %d: give at least 2 samples (20 or more for a useful 90%% interval), or 0 for none", n)
	}
	return nil
}

// intervals predicts the references of se n times, one per draw, and
// returns for each row of Predict the median and 90% interval of its
// prediction and whether the measured figure falls inside.
func intervals(s *scenarios.Scenario, se *scenarios.Series, seed int64, n int, run scenarios.Runner) ([]interval, error) {
	var preds [][]float64 // [row][sample]
	var measured []float64
	for _, d := range draws(s, se, seed, n) {
		rows, err := s.Predict(se, d.seed, d.over, run)
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
	out := make([]interval, len(preds))
	for i, p := range preds {
		b := summarize(p)
		out[i] = interval{b, b.Low <= measured[i] && measured[i] <= b.High}
	}
	return out, nil
}

// rowInterval is a validate row with its interval, for --format json.
type rowInterval struct {
	scenarios.Row
	Interval interval `json:"interval"`
}

func withIntervals(rows []scenarios.Row, ivs []interval) []rowInterval {
	out := make([]rowInterval, len(rows))
	for i, r := range rows {
		out[i] = rowInterval{r, ivs[i]}
	}
	return out
}
