package sim_test

import (
	"math"
	"math/rand"
	"slices"
	"testing"
	"testing/quick"

	"contend/sim"
)

// histogramSample returns n seeded values spread log-uniformly over nine
// decades, 1 to 1e9, so every bucket width from 1 to 2^24 is used.
func histogramSample(n int) []int64 {
	r := sim.NewRand(42, 0)
	vs := make([]int64, n)
	for i := range vs {
		vs[i] = int64(math.Pow(10, 9*r.Float64()))
	}
	return vs
}

func TestHistogramQuantile(t *testing.T) {
	const n = 100_000
	vs := histogramSample(n)
	var h sim.Histogram
	for _, v := range vs {
		h.Record(v)
	}
	sorted := slices.Sorted(slices.Values(vs))
	// The exact q-quantile of the sample is its ceil(q·n)-th smallest value
	// (the first for q = 0). A bucket spans 1/32 of its lower bound, so the
	// bucket's middle is within 1/64 of any value in it; 1/32 leaves margin.
	for i := 0; i <= 1000; i++ {
		q := float64(i) / 1000
		rank := max(int(math.Ceil(q*n)), 1)
		exact := float64(sorted[rank-1])
		if got := h.Quantile(q); math.Abs(got-exact) > exact/32 {
			t.Errorf("Quantile(%v) = %v, exact %v: off by %.3g relative, want <= 1/32",
				q, got, exact, math.Abs(got-exact)/exact)
		}
	}
}

// Values below 32 have a bucket each, so on a small sample the estimate is
// exact and the rank rule shows: Quantile(q) of 5, 10, 15, 20 is the
// ceil(4q)-th smallest, so 0.25 is still 5 and 0.3 already 10.
func TestHistogramQuantileRank(t *testing.T) {
	var h sim.Histogram
	for _, v := range []int64{20, 5, 15, 10} {
		h.Record(v)
	}
	for _, c := range []struct{ q, want float64 }{
		{0, 5}, {0.25, 5}, {0.3, 10}, {0.5, 10}, {0.51, 15}, {0.75, 15}, {0.76, 20}, {1, 20},
	} {
		if got := h.Quantile(c.q); got != c.want {
			t.Errorf("Quantile(%v) = %v, want %v", c.q, got, c.want)
		}
	}
}

// Quantiles are clamped to the recorded range. 1007 falls in the bucket
// [992, 1008) whose middle, 1000, is below the minimum; 1010 falls in
// [1008, 1024) whose middle, 1016, is above the maximum.
func TestHistogramQuantileClamped(t *testing.T) {
	var h sim.Histogram
	h.Record(1007)
	h.Record(1010)
	if lo, hi := h.Quantile(0), h.Quantile(1); lo != 1007 || hi != 1010 {
		t.Errorf("Quantile(0), Quantile(1) = %v, %v; want 1007, 1010", lo, hi)
	}
}

// The 0- and 1-quantiles are the exact extremes, not a bucket's middle:
// 993 and 1006 share the bucket [992, 1008), whose middle, 1000, lies
// between them. So the minimum never exceeds the mean.
func TestHistogramExtremesExact(t *testing.T) {
	var h sim.Histogram
	for range 3 {
		h.Record(993)
	}
	h.Record(1006)
	if lo, hi := h.Quantile(0), h.Quantile(1); lo != 993 || hi != 1006 {
		t.Errorf("Quantile(0), Quantile(1) = %v, %v; want 993, 1006", lo, hi)
	}
	if h.Min() != 993 || float64(h.Min()) > h.Mean() {
		t.Errorf("Min() = %d, Mean() = %v; want 993, and the minimum at most the mean", h.Min(), h.Mean())
	}
}

func TestHistogramCountMeanMax(t *testing.T) {
	vs := histogramSample(100_000)
	var h sim.Histogram
	var sum int64
	for _, v := range vs {
		h.Record(v)
		sum += v
	}
	// The sum is below 1e5·1e9 = 1e14 < 2^53, so every partial float sum is an
	// exact integer and the mean must equal the integer sum over n, bit for bit.
	if want := float64(sum) / float64(len(vs)); h.Mean() != want {
		t.Errorf("Mean = %v, want %v", h.Mean(), want)
	}
	if h.Count() != uint64(len(vs)) {
		t.Errorf("Count = %d, want %d", h.Count(), len(vs))
	}
	if want := slices.Max(vs); h.Max() != want {
		t.Errorf("Max = %d, want %d", h.Max(), want)
	}

	// A negative value counts as zero; Reset forgets everything.
	h.Reset()
	h.Record(-5)
	h.Record(10)
	if h.Count() != 2 || h.Mean() != 5 || h.Quantile(0) != 0 || h.Quantile(1) != 10 {
		t.Errorf("after Reset, Record(-5), Record(10): Count %d Mean %v Quantile(0) %v Quantile(1) %v; want 2 5 0 10",
			h.Count(), h.Mean(), h.Quantile(0), h.Quantile(1))
	}
	var empty sim.Histogram
	if empty.Quantile(0.5) != 0 || empty.Mean() != 0 {
		t.Errorf("empty histogram: Quantile(0.5) %v Mean %v, want 0 0", empty.Quantile(0.5), empty.Mean())
	}
}

func TestTimeWeighted(t *testing.T) {
	var w sim.TimeWeighted
	w.Set(0, 2)
	w.Set(10, 5)
	w.Add(15, -1)
	// 2 over [0,10), 5 over [10,15), 4 over [15,20): (20 + 25 + 20) / 20 = 3.25.
	if got := w.Mean(20); got != 3.25 {
		t.Errorf("Mean(20) = %v, want 3.25", got)
	}
	if w.Max() != 5 || w.Value() != 4 {
		t.Errorf("Max %v Value %v, want 5 4", w.Max(), w.Value())
	}
	// Reset keeps the value 4: 4 over [20,25), 0 over [25,30) averages to 2,
	// and the max restarts from the value at the reset.
	w.Reset(20)
	w.Set(25, 0)
	if got := w.Mean(30); got != 2 {
		t.Errorf("after Reset(20), Set(25, 0): Mean(30) = %v, want 2", got)
	}
	if w.Max() != 4 {
		t.Errorf("after Reset(20): Max %v, want 4", w.Max())
	}
	if got := w.Mean(20); got != 0 {
		t.Errorf("Mean over an empty span = %v, want the current value 0", got)
	}
}

func TestRatePerSecond(t *testing.T) {
	r := sim.Rate{Interval: sim.Millisecond}
	start := 5 * sim.Millisecond
	r.Reset(start)
	r.Add(start-1, 100) // before the start: ignored
	r.Add(start, 1)
	r.Add(start+sim.Millisecond-1, 2) // last picosecond of interval 0
	r.Add(start+2*sim.Millisecond, 7) // first picosecond of interval 2
	r.Add(start+3*sim.Millisecond+1, 9)
	// At start+3.5 ms three intervals are complete; interval 3 is not reported.
	// 3, 0 and 7 occurrences per 1 ms are 3000, 0 and 7000 per second.
	got := r.PerSecond(start + 3*sim.Millisecond + sim.Millisecond/2)
	if want := []float64{3000, 0, 7000}; !slices.Equal(got, want) {
		t.Errorf("PerSecond = %v, want %v", got, want)
	}
	// Reset reuses storage but must not leak old counts.
	r.Reset(start)
	r.Add(start+sim.Millisecond, 4)
	if got, want := r.PerSecond(start+3*sim.Millisecond), []float64{0, 4000, 0}; !slices.Equal(got, want) {
		t.Errorf("after Reset: PerSecond = %v, want %v", got, want)
	}
}

func TestTimeString(t *testing.T) {
	for _, c := range []struct {
		t    sim.Time
		want string
	}{
		{0, "0ps"},
		{999, "999ps"},
		{1500, "1.5ns"},
		{sim.Microsecond, "1µs"},
		{-2500 * sim.Microsecond, "-2.5ms"},
		{90 * sim.Second, "90s"},
		{1234567 * sim.Picosecond, "1.23457µs"},
	} {
		if got := c.t.String(); got != c.want {
			t.Errorf("Time(%d).String() = %q, want %q", int64(c.t), got, c.want)
		}
	}
}

// FromNanoseconds(t.Nanoseconds()) divides by 1000 and multiplies back, each
// rounding by at most 2^-53 relative, so the result is within t·2^-52 of t.
// Below 2^50 ps (about 19 minutes) that is under 1/4 ps, and rounding to the
// nearest picosecond must return t exactly.
func TestTimeNanosecondsRoundTrip(t *testing.T) {
	f := func(x int64) bool {
		tm := sim.Time(x % (1 << 50))
		return sim.FromNanoseconds(tm.Nanoseconds()) == tm && sim.FromSeconds(tm.Seconds()) == tm
	}
	cfg := &quick.Config{MaxCount: 10_000, Rand: rand.New(rand.NewSource(1))}
	if err := quick.Check(f, cfg); err != nil {
		t.Error(err)
	}
}

func TestRandExp(t *testing.T) {
	const n, mean = 200_000, sim.Microsecond
	r := sim.NewRand(1, 0)
	var sum float64
	var above int
	for range n {
		x := r.Exp(mean)
		sum += float64(x)
		if x > mean {
			above++
		}
	}
	// The sample mean has standard error mean/sqrt(n) = 0.22%, so 2% is 9 sigma.
	if got := sum / n; math.Abs(got-float64(mean)) > 0.02*float64(mean) {
		t.Errorf("mean of %d samples = %v ps, want %v ± 2%%", n, got, float64(mean))
	}
	// P(X > mean) = e^-1 = 0.368, standard error sqrt(p(1-p)/n) = 0.0011.
	if got := float64(above) / n; math.Abs(got-math.Exp(-1)) > 0.01 {
		t.Errorf("fraction above the mean = %.4f, want e^-1 = %.4f ± 0.01", got, math.Exp(-1))
	}
	if got := r.Exp(0); got != 0 {
		t.Errorf("Exp(0) = %v, want 0", got)
	}
}

func TestRandSeeds(t *testing.T) {
	draw := func(seed, stream uint64) []float64 {
		r := sim.NewRand(seed, stream)
		out := make([]float64, 100)
		for i := range out {
			out[i] = r.Float64()
		}
		return out
	}
	if a, b := draw(1, 0), draw(1, 0); !slices.Equal(a, b) {
		t.Error("seed 1 gave two different sequences")
	}
	if slices.Equal(draw(1, 0), draw(2, 0)) {
		t.Error("seeds 1 and 2 gave the same sequence")
	}
	if slices.Equal(draw(1, 0), draw(1, 1)) {
		t.Error("streams 0 and 1 of seed 1 gave the same sequence")
	}
}
