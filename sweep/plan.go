package sweep

import (
	"contend/band"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"contend/scenarios"
)

// Plan is what run and sweep simulate and print: a group per scenario,
// series and axis, each giving a table per metric over the same points.
// Every point of every group is numbered in one list, so that a sweep can
// be cut into shards and put back together in order.
type Plan struct {
	Scenarios []PlanScenario `json:"scenarios"`
	Groups    []Group        `json:"groups"`
	scens     []*scenarios.Scenario
	points    []planPoint
}

// PlanScenario says which scenario a group simulates: its content hash
// covers everything loaded (includes, --profile, --max-events), not the
// path it was read from.
type PlanScenario struct {
	Name string `json:"name"`
	Hash string `json:"hash"`
	Seed int64  `json:"seed"`
}

// Group is one series on one axis. Its points run x by x, variant by
// variant, replication by replication.
type Group struct {
	Scenario     int           `json:"scenario"`
	Series       string        `json:"series"`
	Profile      string        `json:"profile"`
	Axis         string        `json:"axis"`
	X            []float64     `json:"x"`
	Variants     []string      `json:"variants"`
	Replications int           `json:"replications"`
	Metrics      []GroupMetric `json:"metrics"`
	first        int           // index of its first point in Plan.points
}

// GroupMetric is one table of a group: its metric and unit, and the
// variants that no reference measured in it.
type GroupMetric struct {
	Metric     string   `json:"metric"`
	Unit       string   `json:"unit"`
	Unmeasured []string `json:"unmeasured"`
	// Kinds is the kind of prediction at each x, which finds its error
	// band; empty where the point does not lay out (its simulation says
	// why).
	Kinds []band.Kind `json:"kinds"`
}

type planPoint struct {
	group int
	scenarios.Point
}

// Add lays out the points of scenario s, simulated from seed: every series
// (only the one named seriesName, if it is not empty) on its own points, or
// with sweep on every [sweep] axis of s.
func (p *Plan) Add(s *scenarios.Scenario, seed int64, seriesName string, sweep bool) error {
	hash, err := contentHash(s)
	if err != nil {
		return err
	}
	p.Scenarios = append(p.Scenarios, PlanScenario{Name: s.Name, Hash: hash, Seed: seed})
	p.scens = append(p.scens, s)
	cl := band.NewClassifier(s)
	for _, se := range DefaultSeries(s) {
		if seriesName != "" && se.Name != seriesName {
			continue
		}
		for _, ax := range axesOf(s, se, sweep) {
			p.add(len(p.scens)-1, se, ax, cl)
		}
	}
	if seriesName != "" && len(p.Groups) == 0 {
		return fmt.Errorf("no series %q in %s", seriesName, s.Name)
	}
	return nil
}

// add appends the group of series se on axis ax of scenario si.
func (p *Plan) add(si int, se *scenarios.Series, ax scenarios.Axis, cl *band.Classifier) {
	s := p.scens[si]
	g := Group{Scenario: si, Series: se.Name, Profile: se.Profile, Axis: ax.Name, X: ax.Values,
		Variants: se.Variants, Replications: max(s.Run.Replications, 1), first: len(p.points)}
	for _, mu := range metricsOf(s, se) {
		g.Metrics = append(g.Metrics, GroupMetric{mu.metric, mu.unit, unmeasured(se, mu.metric), kindsOf(cl, se, ax, mu.metric)})
	}
	var pts []scenarios.Point
	for _, x := range ax.Values {
		for _, v := range se.Variants {
			pts = append(pts, scenarios.Point{Series: se, Variant: v, Axis: ax.Name, X: x, Seed: p.Scenarios[si].Seed})
		}
	}
	for _, pt := range s.Replicate(pts) {
		p.points = append(p.points, planPoint{len(p.Groups), pt})
	}
	p.Groups = append(p.Groups, g)
}

// contentHash identifies a loaded scenario by what it simulates.
func contentHash(s *scenarios.Scenario) (string, error) {
	c := *s
	c.File = "" // the same file read by another path is the same scenario
	b, err := json.Marshal(&c)
	if err != nil {
		return "", fmt.Errorf("%s: cannot hash the scenario: %v", s.Name, err)
	}
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

type metricUnit struct{ metric, unit string }

// metricsOf picks what a series' table shows: the throughput or duration
// metrics of its references, else the workload's natural ones.
func metricsOf(s *scenarios.Scenario, se *scenarios.Series) []metricUnit {
	var out []metricUnit
	seen := map[metricUnit]bool{}
	for _, r := range se.Refs {
		mu := metricUnit{r.Metric, r.Unit}
		if seen[mu] || r.Metric == "cost" || strings.HasPrefix(r.Metric, "share_of_cycles_") {
			continue
		}
		seen[mu] = true
		out = append(out, mu)
	}
	if len(out) == 0 {
		switch s.Workload.Kind {
		case scenarios.WorkloadBatch:
			return []metricUnit{{"duration", "s"}, {"cpu_util", "%"}}
		case scenarios.WorkloadBoth:
			return []metricUnit{{"duration", "s"}, {"cpu_util", "%"}, {"grace_period", "ms"}, {"throughput_per_core", s.RateUnit()}}
		}
		if s.Workload.Rate > 0 {
			return []metricUnit{{"throughput_per_core", s.RateUnit()}, {"throughput", s.RateUnit()}, {"drops", "%"}}
		}
		return []metricUnit{{"throughput_per_core", s.RateUnit()}, {"throughput", s.RateUnit()}}
	}
	return out
}

// unmeasured returns the variants of se with no reference for metric.
func unmeasured(se *scenarios.Series, metric string) []string {
	out := []string{}
	for _, v := range se.Variants {
		found := false
		for _, r := range se.Refs {
			found = found || (r.Variant == v && r.Metric == metric)
		}
		if !found {
			out = append(out, v)
		}
	}
	return out
}

// DefaultSeries stands in for a scenario without series.
func DefaultSeries(s *scenarios.Scenario) []*scenarios.Series {
	if len(s.Series) > 0 {
		return s.Series
	}
	names := s.ProfileNames()
	prof := ""
	if len(names) > 0 {
		prof = names[0]
	}
	return []*scenarios.Series{{Name: s.Name, Profile: prof, Variants: s.VariantNames(), Axis: "cores"}}
}

// axesOf returns the axes a table runs over: for sweep, every [sweep] axis of
// the scenario; for run, the series' own points.
func axesOf(s *scenarios.Scenario, se *scenarios.Series, sweep bool) []scenarios.Axis {
	if sweep && len(s.Sweep) > 0 {
		return s.Sweep
	}
	if len(se.Points) > 0 {
		return []scenarios.Axis{{Name: se.Axis, Values: se.Points}}
	}
	if len(s.Sweep) > 0 {
		return s.Sweep[:1]
	}
	return []scenarios.Axis{{Name: "cores", Values: []float64{float64(s.Workload.Cores)}}}
}

// SeriesRunning returns the first series of s (of DefaultSeries) that runs
// variant, only the one named name if name is not empty; nil if none does.
func SeriesRunning(s *scenarios.Scenario, variant, name string) *scenarios.Series {
	for _, se := range DefaultSeries(s) {
		if (name == "" || se.Name == name) && slices.Contains(se.Variants, variant) {
			return se
		}
	}
	return nil
}
