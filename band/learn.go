package band

import (
	"cmp"
	"math"
	"slices"
	"strings"
)

// Level is the share of predictions a band is to hold.
const Level = 0.9

// A kind learns its own band from at least MinPoints points of at least
// MinCases cases; with fewer, it pools with its coarser kind, since a band
// learned from one or two machines is theirs, not the kind's.
const (
	MinPoints = 9
	MinCases  = 3
)

// Point is one published figure in the corpus and its prediction.
type Point struct {
	Case     string  `json:"case"`
	Scenario string  `json:"scenario"`
	Series   string  `json:"series"`
	Variant  string  `json:"variant"`
	Base     string  `json:"base,omitempty"` // a change's before
	Axis     string  `json:"axis"`
	X        float64 `json:"x"`
	Metric   string  `json:"metric"`
	Kind     Kind    `json:"kind"`
	// The figure measured and predicted, in its unit; for a change, in
	// percent of the base.
	Measured  float64 `json:"measured"`
	Predicted float64 `json:"predicted"`
	// Error is how far the measured figure lies from the prediction: in
	// percent of the prediction, for a change in points.
	Error float64 `json:"error"`
}

// Band is the 90% error band of one kind of prediction.
type Band struct {
	Kind Kind `json:"kind"`
	// Pool is the kind whose points set the band: Kind itself, or a
	// coarser kind when Kind has fewer than MinPoints.
	Pool   Kind `json:"pool"`
	Points int  `json:"points"` // in Pool
	// Width is the band's half-width: in percent of the prediction, for
	// a change in points.
	Width float64 `json:"width"`
}

// Pooled says whether the band was learned from a coarser kind.
func (b Band) Pooled() bool { return b.Pool != b.Kind }

// Interval is the band around prediction v: a figure's band never goes
// below zero, a change's is in points either side.
func (b Band) Interval(v float64) (low, high float64) {
	if b.Kind.Figure == Change {
		return v - b.Width, v + b.Width
	}
	return math.Max(0, v*(1-b.Width/100)), v * (1 + b.Width/100)
}

// Range is a low and a high end of what a prediction may be.
type Range struct {
	Low  float64 `json:"low"`
	High float64 `json:"high"`
}

// Contains says whether v lies in r.
func (r Range) Contains(v float64) bool { return r.Low <= v && v <= r.High }

// Widen combines a prediction's spread over the profile's values (its 90%
// interval low..high under --uncertainty) with the model's own error: the
// interval widened at each end by the band, from the band's low end around
// low to its high end around high. The two are not added in quadrature:
// the spread says what the machine may be, the band how far the model has
// missed on machines it knew, and a prediction is trusted only within both.
func (b Band) Widen(low, high float64) Range {
	lo, _ := b.Interval(low)
	_, hi := b.Interval(high)
	return Range{Low: lo, High: hi}
}

// Contains says whether an error falls within the band.
func (b Band) Contains(err float64) bool { return err <= b.Width }

// Set is the bands of every kind learned from one corpus, sorted by kind.
type Set []Band

// For returns the band of kind k: its own, or, for a kind the corpus has
// no point of, its coarser kind's. ok is false when the corpus has no point
// to set it (a change, from a corpus without changes).
func (s Set) For(k Kind) (b Band, ok bool) {
	for {
		if i, found := slices.BinarySearchFunc(s, k.String(), func(b Band, key string) int { return strings.Compare(b.Kind.String(), key) }); found {
			return s[i], true
		}
		var more bool
		if k, more = k.coarser(); !more {
			return Band{}, false
		}
	}
}

// Learn returns the bands of every kind of points and of their coarser
// kinds: each the split-conformal 90% quantile of its pool's errors, each
// case weighing one however many points it has (Quantile).
func Learn(points []Point) Set {
	pools := map[Kind][]Point{}
	for _, p := range points {
		for k, more := p.Kind, true; more; k, more = k.coarser() {
			pools[k] = append(pools[k], p)
		}
	}
	out := make(Set, 0, len(pools))
	for k := range pools {
		pool := k
		for distinct(pools[pool]) < MinPoints || cases(pools[pool]) < MinCases {
			coarser, more := pool.coarser()
			if !more {
				break
			}
			pool = coarser
		}
		out = append(out, Band{Kind: k, Pool: pool, Points: distinct(pools[pool]), Width: Quantile(pools[pool])})
	}
	slices.SortFunc(out, func(a, b Band) int { return strings.Compare(a.Kind.String(), b.Kind.String()) })
	return out
}

// distinct counts the points that are different figures: a figure a case
// published twice over is one, as its weight is (Quantile).
func distinct(points []Point) int {
	seen := map[Point]bool{}
	for _, p := range points {
		seen[p] = true
	}
	return len(seen)
}

func cases(points []Point) int {
	seen := map[string]bool{}
	for _, p := range points {
		seen[p.Case] = true
	}
	return len(seen)
}

// Quantile is the split-conformal 90% quantile of the points' errors with
// the case as the unit: each of the K cases weighs one, shared among its
// points, and the band is the smallest error at or below which the cases'
// weight reaches Level·(K+1), which a new case's point stays under with
// probability at least Level when cases are alike; the largest error when
// K is under 9 and no error reaches it. With one point a case, it is the
// ⌈(n+1)·0.9⌉-th smallest error.
func Quantile(points []Point) float64 {
	count := map[string]int{}
	for _, p := range points {
		count[p.Case]++
	}
	type weighted struct{ err, w float64 }
	ws := make([]weighted, len(points))
	for i, p := range points {
		ws[i] = weighted{p.Error, 1 / float64(count[p.Case])}
	}
	slices.SortFunc(ws, func(a, b weighted) int { return cmp.Compare(a.err, b.err) })
	need := Level * float64(len(count)+1)
	var sum float64
	for _, w := range ws {
		if sum += w.w; sum >= need-1e-9 {
			return w.err
		}
	}
	return ws[len(ws)-1].err
}

// HeldOut returns, for each case, the bands learned without its points,
// by case name.
func HeldOut(points []Point) map[string]Set {
	out := map[string]Set{}
	for _, p := range points {
		if _, done := out[p.Case]; done {
			continue
		}
		out[p.Case] = Learn(slices.DeleteFunc(slices.Clone(points), func(q Point) bool { return q.Case == p.Case }))
	}
	return out
}

// Cell is a prediction's band as csv and json carry it.
type Cell struct {
	Kind  string  `json:"band_kind"`
	Width float64 `json:"band_width"` // percent of the prediction, or points
	Low   float64 `json:"band_low"`
	High  float64 `json:"band_high"`
}

// Cell returns the band around prediction v.
func (b Band) Cell(v float64) Cell {
	low, high := b.Interval(v)
	return Cell{Kind: b.Kind.String(), Width: b.Width, Low: low, High: high}
}
