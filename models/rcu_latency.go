package models

import (
	"math/bits"

	"contend/sim"
)

// RCUCallResult is the latency distribution of one kind of RCU call.
type RCUCallResult struct {
	Call string `json:"call"`
	Latency
}

// Latency is a distribution of latencies, µs: its extremes, mean and
// percentiles, and a histogram in power-of-two buckets (bpftrace's hist()).
type Latency struct {
	Count     uint64          `json:"count"`
	MinUs     float64         `json:"min_us"`
	MeanUs    float64         `json:"mean_us"`
	P10Us     float64         `json:"p10_us"`
	P50Us     float64         `json:"p50_us"`
	P90Us     float64         `json:"p90_us"`
	P99Us     float64         `json:"p99_us"`
	MaxUs     float64         `json:"max_us"`
	Histogram []LatencyBucket `json:"histogram"`
}

// LatencyBucket counts the latencies in [LoUs, HiUs).
type LatencyBucket struct {
	LoUs  float64 `json:"lo_us"`
	HiUs  float64 `json:"hi_us"`
	Count uint64  `json:"count"`
}

// Stat returns one statistic of l by name (min, mean, p10, p50, p90, p99,
// max), µs.
func (l *Latency) Stat(name string) (float64, bool) {
	v, ok := map[string]float64{"min": l.MinUs, "mean": l.MeanUs, "p10": l.P10Us, "p50": l.P50Us,
		"p90": l.P90Us, "p99": l.P99Us, "max": l.MaxUs}[name]
	return v, ok
}

// LatencyStats are the statistics Stat knows, in the order tables print them.
var LatencyStats = []string{"min", "mean", "p10", "p50", "p90", "p99", "max"}

// latencyRecord is a histogram of latencies with exact counts in
// power-of-two buckets of µs and of ms, the edges bpftrace's hist() uses.
type latencyRecord struct {
	sim.Histogram
	pow2 [2][64]uint64 // [0]: by floor(log2(µs)), [1]: by floor(log2(ms)); under one unit in 0
}

func (l *latencyRecord) Record(v int64) {
	l.Histogram.Record(v)
	for i, unit := range []int64{int64(sim.Microsecond), int64(sim.Millisecond)} {
		l.pow2[i][bits.Len64(uint64(max(v/unit, 1)))-1]++
	}
}

func (l *latencyRecord) Reset() {
	l.Histogram.Reset()
	l.pow2 = [2][64]uint64{}
}

func latencyOf(h *latencyRecord) Latency {
	us := func(v float64) float64 { return v / float64(sim.Microsecond) }
	l := Latency{Count: h.Count(), Histogram: []LatencyBucket{}}
	if l.Count == 0 {
		return l
	}
	l.MinUs, l.MeanUs, l.MaxUs = us(float64(h.Min())), us(h.Mean()), us(float64(h.Max()))
	l.P10Us, l.P50Us, l.P90Us, l.P99Us = us(h.Quantile(0.1)), us(h.Quantile(0.5)), us(h.Quantile(0.9)), us(h.Quantile(0.99))
	// Buckets in ms, or µs when every latency is under a millisecond, from
	// the one holding the minimum to the one holding the maximum.
	u, unit := 0, 1.0
	if l.MaxUs >= 1000 {
		u, unit = 1, 1000
	}
	first, last := -1, 0
	for k, n := range h.pow2[u] {
		if n > 0 && first < 0 {
			first = k
		}
		if n > 0 {
			last = k
		}
	}
	for k := first; k <= last; k++ {
		lo := unit * float64(uint64(1)<<k)
		if k == 0 {
			lo = 0
		}
		l.Histogram = append(l.Histogram, LatencyBucket{LoUs: lo, HiUs: unit * float64(uint64(2)<<k), Count: h.pow2[u][k]})
	}
	return l
}

// RCUPhase is the mean time one phase of a synchronize_rcu took, µs.
type RCUPhase struct {
	Phase  string  `json:"phase"`
	MeanUs float64 `json:"mean_us"`
}
