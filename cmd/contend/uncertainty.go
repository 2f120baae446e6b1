package main

import (
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/stat"

	"contend/scenarios"
)

// interval is the spread of one prediction over the samples of the profile.
type interval struct {
	Median float64 `json:"median"`
	Low    float64 `json:"low"`  // 5th percentile
	High   float64 `json:"high"` // 95th percentile
	Inside bool    `json:"inside"`
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

// intervals predicts the references of se n times, each with the profile's
// spread values drawn by Latin hypercube (normal, their spread one standard
// deviation, never below 0) and its own seed, and returns for each row of
// Predict the median and 90% interval of its prediction (empirical
// quantiles: each bound is one of the predictions).
func intervals(s *scenarios.Scenario, se *scenarios.Series, seed int64, n int, run scenarios.Runner) ([]interval, error) {
	unc := s.Uncertain(se)
	rng := rand.New(rand.NewPCG(uint64(seed), uint64(len(unc))))
	var preds [][]float64 // [row][sample]
	var measured []float64
	for k, u := range latinHypercube(rng, n, len(unc)) {
		over := map[string]float64{}
		for j, x := range unc {
			over[x.Key] = math.Max(0, x.Value+x.SD*math.Sqrt2*math.Erfinv(2*u[j]-1))
		}
		rows, err := s.Predict(se, seed+int64(k*max(s.Run.Replications, 1)), over, run)
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
		slices.Sort(p)
		iv := interval{Median: stat.Quantile(0.5, stat.Empirical, p, nil),
			Low: stat.Quantile(0.05, stat.Empirical, p, nil), High: stat.Quantile(0.95, stat.Empirical, p, nil)}
		iv.Inside = iv.Low <= measured[i] && measured[i] <= iv.High
		out[i] = iv
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
