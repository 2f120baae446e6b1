package band

import (
	"fmt"
	"strings"

	"contend/scenarios"
)

// Figure is what a prediction is a figure of.
type Figure string

// The figures. A throughput is any rate or cost per operation; it is
// contended when its point runs on more than one CPU.
const (
	Uncontended Figure = "uncontended throughput"
	Contended   Figure = "contended throughput"
	Change      Figure = "change" // a variant against its series' base, in points
	RCU         Figure = "rcu latency"
	Duration    Figure = "duration" // a batch's time, on or off CPU
	Share       Figure = "share"    // a share of cycles, of packets dropped, of CPU
	// Any is every figure but changes: the pool of last resort.
	Any Figure = "any figure"
)

// Reach is how far a point lies from what its series was fitted to.
type Reach string

// The reaches, nearest first.
const (
	SameCPUs     Reach = "at a calibrated CPU count"
	OtherCPUs    Reach = "other CPU count"
	AcrossSocket Reach = "across sockets"
	Unfitted     Reach = "nothing fitted"
)

// Kind is what a band is learned for: a figure, at a reach. A kind with
// an empty reach pools every reach of its figure.
type Kind struct {
	Figure Figure `json:"figure"`
	Reach  Reach  `json:"reach,omitempty"`
}

func (k Kind) String() string {
	if k.Reach == "" {
		return string(k.Figure)
	}
	return string(k.Figure) + ", " + string(k.Reach)
}

// coarser is the kind k falls back on when too few points share it: its
// figure at every reach, then every figure. A change never pools with the
// others: its error is in points of the base, not in percent.
func (k Kind) coarser() (Kind, bool) {
	switch {
	case k.Reach != "":
		return Kind{Figure: k.Figure}, true
	case k.Figure != Any && k.Figure != Change:
		return Kind{Figure: Any}, true
	}
	return k, false
}

// FigureOf says what metric measures on a point that takes cpus CPUs.
func FigureOf(metric string, cpus int) Figure {
	switch {
	case metric == "throughput" || metric == "throughput_per_core" || metric == "cost" ||
		metric == "cycles_per_packet" || metric == "transfers_per_packet":
		if cpus > 1 {
			return Contended
		}
		return Uncontended
	case metric == "duration" || strings.HasPrefix(metric, "offcpu_in_"):
		return Duration
	case metric == "grace_periods" || strings.HasSuffix(metric, "grace_period") || strings.Contains(metric, "_latency_"):
		return RCU
	}
	return Share
}

// Classifier finds the kind of each prediction of a scenario: it lays out
// each point's CPUs once, and compares them with the calibrate points of
// its series (or, for a series with none, of the scenario's series on the
// same profile, whose fit it shares).
type Classifier struct {
	s     *scenarios.Scenario
	foot  map[string]scenarios.Footprint
	fixed map[string][]scenarios.Footprint // calibrate footprints by series
}

// NewClassifier returns a classifier of s's predictions.
func NewClassifier(s *scenarios.Scenario) *Classifier {
	return &Classifier{s: s, foot: map[string]scenarios.Footprint{}, fixed: map[string][]scenarios.Footprint{}}
}

func (c *Classifier) footprint(se *scenarios.Series, axis string, x float64) (scenarios.Footprint, error) {
	key := fmt.Sprintf("%s|%s|%v", se.Name, axis, x)
	if f, ok := c.foot[key]; ok {
		return f, nil
	}
	f, err := c.s.Footprint(scenarios.Point{Series: se, Variant: firstVariant(c.s, se), Axis: axis, X: x})
	if err != nil {
		return f, err
	}
	c.foot[key] = f
	return f, nil
}

func firstVariant(s *scenarios.Scenario, se *scenarios.Series) string {
	if len(se.Variants) > 0 {
		return se.Variants[0]
	}
	return s.VariantNames()[0]
}

// calibrated returns the footprints of the points se was fitted to.
func (c *Classifier) calibrated(se *scenarios.Series) ([]scenarios.Footprint, error) {
	if f, ok := c.fixed[se.Name]; ok {
		return f, nil
	}
	var out []scenarios.Footprint
	for _, from := range [][]*scenarios.Series{{se}, c.s.Series} {
		for _, o := range from {
			if o.Profile != se.Profile {
				continue
			}
			for _, r := range o.Refs {
				if r.Role != "calibrate" {
					continue
				}
				f, err := c.footprint(o, r.Axis, r.X)
				if err != nil {
					return nil, err
				}
				out = append(out, f)
			}
		}
		if len(out) > 0 {
			break
		}
	}
	c.fixed[se.Name] = out
	return out, nil
}

// Kind returns the kind of the prediction of metric at x on axis of
// series se.
func (c *Classifier) Kind(se *scenarios.Series, axis string, x float64, metric string) (Kind, error) {
	f, err := c.footprint(se, axis, x)
	if err != nil {
		return Kind{}, err
	}
	cal, err := c.calibrated(se)
	if err != nil {
		return Kind{}, err
	}
	return Kind{Figure: FigureOf(metric, f.CPUs), Reach: reachOf(f, cal)}, nil
}

// reachOf places f against the calibrate points' footprints cal.
func reachOf(f scenarios.Footprint, cal []scenarios.Footprint) Reach {
	if len(cal) == 0 {
		return Unfitted
	}
	sockets := 0
	for _, g := range cal {
		if g == f {
			return SameCPUs
		}
		sockets = max(sockets, g.Sockets)
	}
	if f.Sockets > sockets {
		return AcrossSocket
	}
	return OtherCPUs
}
