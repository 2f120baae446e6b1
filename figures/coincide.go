package figures

import (
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"

	"contend/scenarios"
)

// coincideTol is how close two variants' predictions must be, relative to
// the larger, at every point for one line to stand for both: closer than
// a line's width on any axis a figure draws.
const coincideTol = 0.01

// coincide finds the lines drawn on top of each other: leader[i] is the
// first line whose predictions are line i's within coincideTol at every
// point (i itself if none), and names[i] a leader's legend entry, naming
// every variant it stands for: "a = b (identical predictions)" when the
// values are the same, "a ≈ b (predictions within 1%)" when close.
func coincide(lines []curveLine) (leader []int, names []string) {
	leader, names = make([]int, len(lines)), make([]string, len(lines))
	exact := make([]bool, len(lines))
	for i, l := range lines {
		leader[i], names[i], exact[i] = i, l.name, true
		for j := range i {
			if leader[j] == j && near(lines[j].means, l.means) {
				leader[i] = j
				break
			}
		}
		if j := leader[i]; j != i {
			op := " ≈ "
			if slices.Equal(lines[j].means, l.means) {
				op = " = "
			} else {
				exact[j] = false
			}
			names[j] += op + l.name
		}
	}
	for i := range lines {
		if leader[i] != i || !strings.ContainsAny(names[i], "=≈") {
			continue
		}
		if exact[i] {
			names[i] += " (identical predictions)"
		} else {
			names[i] += " (predictions within 1%)"
		}
	}
	return leader, names
}

func near(a, b []float64) bool {
	for k := range a {
		if math.Abs(a[k]-b[k]) > coincideTol*math.Max(math.Abs(a[k]), math.Abs(b[k])) {
			return false
		}
	}
	return true
}

// spansDecade says whether c's predictions of g and the series' measured
// points span over a factor of ten: then a log axis shows the small values
// (a collapse to a tenth) that a linear one flattens onto zero.
func spansDecade(g *grid, c curve, s *scenarios.Scenario) bool {
	lo, hi := math.Inf(1), 0.0
	for xi := range g.xs {
		for vi := range g.variants {
			st, err := g.metric(xi, vi, c.metric, c.unit)
			if err != nil {
				return false // predictions reports it
			}
			lo, hi = math.Min(lo, st.mean), math.Max(hi, st.mean)
		}
	}
	for _, r := range g.se.Refs {
		if r.Metric == c.metric && r.Axis == g.se.Axis {
			lo, hi = math.Min(lo, r.Value), math.Max(hi, r.Value)
		}
	}
	return lo > 0 && hi > 10*lo
}

// edgeMargin is how far, as a share of an axis's range, the axis runs on
// past a measured point at its end, so that the point's glyph sits whole
// inside the frame.
const edgeMargin = 0.04

// padEdges widens p's x axis past the series' measured points at its ends
// (of any metric, so that panels of one series keep one x axis), raises
// its y axis past those of c's metric, and on a log y axis lowers it past
// the smallest value: a curve that falls to the bottom stays in sight.
func padEdges(p *plot.Plot, se *scenarios.Series, c curve) {
	logX := c.logX || isLog(p.X.Scale)
	lo, hi := p.X.Min, p.X.Max
	for _, r := range se.Refs {
		if r.Axis != se.Axis {
			continue
		}
		if r.X >= hi {
			p.X.Max = past(lo, hi, logX)
		}
		if r.X <= lo {
			p.X.Min = past(hi, lo, logX)
		}
		if c.refs && r.Metric == c.metric && c.y(r.Value) >= p.Y.Max {
			p.Y.Max = past(p.Y.Min, p.Y.Max, false)
		}
	}
	if c.logY {
		p.Y.Min = past(p.Y.Max, p.Y.Min, false)
	}
}

// past is end moved edgeMargin of the range from other further out, in
// logarithm on a log axis.
func past(other, end float64, log bool) float64 {
	if log {
		return end * math.Pow(end/other, edgeMargin)
	}
	return end + (end-other)*edgeMargin
}

func isLog(s plot.Normalizer) bool {
	_, ok := s.(plot.LogScale)
	return ok
}
