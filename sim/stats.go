package sim

import (
	"math"
	"math/bits"
)

// TimeWeighted is the time-weighted mean of a piecewise-constant value, such
// as a queue length or the bytes waiting for a grace period.
type TimeWeighted struct {
	start, last Time
	value       float64
	area        float64
	max         float64
}

// Reset starts a new measurement at now, keeping the current value.
func (w *TimeWeighted) Reset(now Time) {
	w.start, w.last, w.area, w.max = now, now, 0, w.value
}

// Set records that the value becomes v at now.
func (w *TimeWeighted) Set(now Time, v float64) {
	w.area += w.value * float64(now-w.last)
	w.last = now
	w.value = v
	if v > w.max {
		w.max = v
	}
}

// Add changes the value by d at now.
func (w *TimeWeighted) Add(now Time, d float64) { w.Set(now, w.value+d) }

// Value returns the current value.
func (w *TimeWeighted) Value() float64 { return w.value }

// Max returns the largest value since the last Reset.
func (w *TimeWeighted) Max() float64 { return w.max }

// Mean returns the time-weighted mean from the last Reset up to now.
func (w *TimeWeighted) Mean(now Time) float64 {
	span := float64(now - w.start)
	if span <= 0 {
		return w.value
	}
	return (w.area + w.value*float64(now-w.last)) / span
}

// Histogram counts non-negative values in log-linear buckets: each power of two
// is split into 2^subBits buckets, so a quantile is within 1/2^subBits (3%) of
// the true value. Recording costs O(1); the buckets (16 KiB) are allocated at
// the first value, so that the many histograms a run never fills (RCU's, in a
// run without RCU) cost neither memory nor the time to clear it.
type Histogram struct {
	counts *[64 << subBits]uint64
	n      uint64
	sum    float64
	min    int64
	max    int64
}

const subBits = 5

// Reset forgets every value, keeping the buckets for the next.
func (h *Histogram) Reset() {
	if h.n == 0 {
		return
	}
	counts := h.counts
	clear(counts[:])
	*h = Histogram{counts: counts}
}

func bucketOf(v int64) int {
	if v < 1<<subBits {
		return int(v)
	}
	exp := bits.Len64(uint64(v)) - 1 - subBits
	return (exp+1)<<subBits | int(v>>uint(exp))&(1<<subBits-1)
}

// bucketMid returns the middle of bucket b's value range.
func bucketMid(b int) float64 {
	if b < 1<<subBits {
		return float64(b)
	}
	exp := b>>subBits - 1
	lo := int64(1<<subBits|b&(1<<subBits-1)) << uint(exp)
	return float64(lo) + float64(int64(1)<<uint(exp))/2
}

// Record adds one value; negative values count as zero.
func (h *Histogram) Record(v int64) {
	if v < 0 {
		v = 0
	}
	if h.n == 0 || v < h.min {
		h.min = v
	}
	if v > h.max {
		h.max = v
	}
	if h.counts == nil {
		h.counts = new([64 << subBits]uint64)
	}
	h.counts[bucketOf(v)]++
	h.n++
	h.sum += float64(v)
}

// Count returns how many values were recorded.
func (h *Histogram) Count() uint64 { return h.n }

// Mean returns the exact mean of the recorded values.
func (h *Histogram) Mean() float64 {
	if h.n == 0 {
		return 0
	}
	return h.sum / float64(h.n)
}

// Max returns the largest recorded value.
func (h *Histogram) Max() int64 { return h.max }

// Min returns the smallest recorded value.
func (h *Histogram) Min() int64 { return h.min }

// Quantile returns an estimate of the q-quantile (0 ≤ q ≤ 1), clamped to the
// recorded range; the 0- and 1-quantiles are the exact minimum and maximum.
func (h *Histogram) Quantile(q float64) float64 {
	switch {
	case h.n == 0:
		return 0
	case q <= 0:
		return float64(h.min)
	case q >= 1:
		return float64(h.max)
	}
	rank := uint64(math.Ceil(q * float64(h.n)))
	if rank < 1 {
		rank = 1
	}
	var seen uint64
	for b, c := range h.counts[:] {
		seen += c
		if seen >= rank {
			return math.Min(math.Max(bucketMid(b), float64(h.min)), float64(h.max))
		}
	}
	return float64(h.max)
}

// Rate counts occurrences in consecutive intervals of simulated time, for
// per-interval throughput series.
type Rate struct {
	Interval Time
	start    Time
	counts   []uint64
}

// Reset starts the series at now.
func (r *Rate) Reset(now Time) { r.start, r.counts = now, r.counts[:0] }

// Add counts n occurrences at now.
func (r *Rate) Add(now Time, n uint64) {
	if r.Interval <= 0 || now < r.start {
		return
	}
	i := int((now - r.start) / r.Interval)
	for len(r.counts) <= i {
		r.counts = append(r.counts, 0)
	}
	r.counts[i] += n
}

// PerSecond returns the rate of each complete interval up to now, per second.
func (r *Rate) PerSecond(now Time) []float64 {
	full := 0
	if r.Interval > 0 && now > r.start {
		full = int((now - r.start) / r.Interval)
	}
	out := make([]float64, full)
	for i := range out {
		if i < len(r.counts) {
			out[i] = float64(r.counts[i]) / r.Interval.Seconds()
		}
	}
	return out
}
