package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"sync"

	"contend/models"
	"contend/scenarios"
)

// sweepPlan is what run and sweep simulate and print: a group per scenario,
// series and axis, each giving a table per metric over the same points.
// Every point of every group is numbered in one list, so that a sweep can
// be cut into shards and put back together in order.
type sweepPlan struct {
	Scenarios []planScenario `json:"scenarios"`
	Groups    []sweepGroup   `json:"groups"`
	scens     []*scenarios.Scenario
	points    []planPoint
}

// planScenario says which scenario a group simulates: its content hash
// covers everything loaded (includes, --profile, --max-events), not the
// path it was read from.
type planScenario struct {
	Name string `json:"name"`
	Hash string `json:"hash"`
	Seed int64  `json:"seed"`
}

// sweepGroup is one series on one axis. Its points run x by x, variant by
// variant, replication by replication.
type sweepGroup struct {
	Scenario     int           `json:"scenario"`
	Series       string        `json:"series"`
	Profile      string        `json:"profile"`
	Axis         string        `json:"axis"`
	X            []float64     `json:"x"`
	Variants     []string      `json:"variants"`
	Replications int           `json:"replications"`
	Metrics      []groupMetric `json:"metrics"`
	first        int           // index of its first point in sweepPlan.points
}

type groupMetric struct {
	Metric     string   `json:"metric"`
	Unit       string   `json:"unit"`
	Unmeasured []string `json:"unmeasured"`
}

type planPoint struct {
	group int
	scenarios.Point
}

// planTables loads the scenarios args name and lays out their points.
func planTables(args []string, seriesName string, sweep bool, o *options) (*sweepPlan, error) {
	p := &sweepPlan{}
	for _, arg := range args {
		s, err := load(arg, o)
		if err != nil {
			return nil, err
		}
		hash, err := contentHash(s)
		if err != nil {
			return nil, err
		}
		p.Scenarios = append(p.Scenarios, planScenario{Name: s.Name, Hash: hash, Seed: seedOf(o, s)})
		p.scens = append(p.scens, s)
		for _, se := range defaultSeries(s) {
			if seriesName != "" && se.Name != seriesName {
				continue
			}
			for _, ax := range axesOf(s, se, sweep) {
				p.add(len(p.scens)-1, se, ax)
			}
		}
		if seriesName != "" && len(p.Groups) == 0 {
			return nil, fmt.Errorf("no series %q in %s", seriesName, s.Name)
		}
	}
	return p, nil
}

// add appends the group of series se on axis ax of scenario si.
func (p *sweepPlan) add(si int, se *scenarios.Series, ax scenarios.Axis) {
	s := p.scens[si]
	g := sweepGroup{Scenario: si, Series: se.Name, Profile: se.Profile, Axis: ax.Name, X: ax.Values,
		Variants: se.Variants, Replications: max(s.Run.Replications, 1), first: len(p.points)}
	for _, mu := range metricsOf(s, se) {
		g.Metrics = append(g.Metrics, groupMetric{mu.metric, mu.unit, unmeasured(se, mu.metric)})
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

// simulate runs the points of slice (all of them when slice is nil) on jobs
// workers drawing from one queue over every group, so that no worker waits
// for a group to finish. It returns each point's metrics, nil for a point
// outside the slice.
func (p *sweepPlan) simulate(slice *shardSlice, jobs int, progress func(done, total int)) ([][]float64, error) {
	var todo []int
	for i := range p.points {
		if slice == nil || slice.has(i) {
			todo = append(todo, i)
		}
	}
	return p.run(p.points, todo, jobs, progress)
}

// run simulates pts[i] for every i of todo and returns each one's metrics,
// nil for the points not in todo.
func (p *sweepPlan) run(pts []planPoint, todo []int, jobs int, progress func(done, total int)) ([][]float64, error) {
	values := make([][]float64, len(pts))
	err := parallel(len(todo), jobs, progress, func(k int) error {
		i := todo[k]
		pt := pts[i]
		g := &p.Groups[pt.group]
		s := p.scens[g.Scenario]
		r, err := s.Simulate(pt.Point)
		if err != nil {
			return err
		}
		vs := make([]float64, len(g.Metrics), len(g.Metrics)+1)
		for m, mu := range g.Metrics {
			if vs[m], err = scenarios.Metric(r, mu.Metric, mu.Unit); err != nil {
				return err
			}
		}
		values[i] = append(vs, float64(noteOf(r)))
		return nil
	})
	return values, err
}

// intervals simulates the plan n more times, each time with one draw of
// every series' profile (see draws), and returns, for each cell of each of
// tables' tables, the median and 90% interval of its value.
func (p *sweepPlan) intervals(n, jobs int, progress func(done, total int)) ([][][]bounds, error) {
	drawn := map[*scenarios.Series][]draw{}
	var pts []planPoint
	var todo []int
	for k := range n {
		for _, pt := range p.points {
			base := p.Scenarios[p.Groups[pt.group].Scenario].Seed
			if drawn[pt.Series] == nil {
				drawn[pt.Series] = draws(p.scens[p.Groups[pt.group].Scenario], pt.Series, base, n)
			}
			d := drawn[pt.Series][k]
			pt.Overrides, pt.Seed = d.over, d.seed+pt.Seed-base // the replication keeps its offset
			todo = append(todo, len(pts))
			pts = append(pts, pt)
		}
	}
	values, err := p.run(pts, todo, jobs, progress)
	if err != nil {
		return nil, err
	}
	samples := make([][]table, n)
	for k := range samples {
		samples[k] = p.tables(values[k*len(p.points) : (k+1)*len(p.points)])
	}
	out := make([][][]bounds, len(samples[0]))
	for ti, t := range samples[0] {
		out[ti] = make([][]bounds, len(t.X))
		for i := range t.X {
			out[ti][i] = make([]bounds, len(t.Variants))
			for j := range t.Variants {
				cell := make([]float64, n)
				for k := range samples {
					cell[k] = samples[k][ti].Values[i][j]
				}
				out[ti][i][j] = summarize(cell)
			}
		}
	}
	return out, nil
}

// tables averages each point's metrics over its replications, in the order
// and with the arithmetic of Scenario.MeanMetric. A cell where a
// replication completed no packet carries its note.
func (p *sweepPlan) tables(values [][]float64) []table {
	var out []table
	for _, g := range p.Groups {
		for m, mu := range g.Metrics {
			t := table{Series: g.Series, Profile: g.Profile, Metric: mu.Metric, Unit: mu.Unit, Axis: g.Axis,
				Variants: g.Variants, X: g.X, Values: make([][]float64, len(g.X)), Unmeasured: mu.Unmeasured}
			notes := make([][]string, len(g.X))
			noted := false
			for i := range g.X {
				t.Values[i] = make([]float64, len(g.Variants))
				notes[i] = make([]string, len(g.Variants))
				for j := range g.Variants {
					at := g.first + (i*len(g.Variants)+j)*g.Replications
					var sum float64
					var n note
					for _, vs := range values[at : at+g.Replications] {
						sum += vs[m]
						n = max(n, note(vs[len(g.Metrics)]))
					}
					t.Values[i][j] = sum / float64(g.Replications)
					notes[i][j] = n.String()
					noted = noted || n != noteNone
				}
			}
			if noted {
				t.Notes = notes
			}
			out = append(out, t)
		}
	}
	return out
}

// note says why a point's figures are zero: no packet completed in its
// measured interval. It travels in shards as the last value of a point.
type note int

const (
	noteNone     note = iota
	noteTooShort      // the CPUs worked, but no packet finished
	noteWaiting       // the CPUs waited (spun or slept) most of the time
)

func (n note) String() string {
	switch n {
	case noteTooShort:
		return scenarios.NoteTooShort
	case noteWaiting:
		return scenarios.NoteWaiting
	}
	return ""
}

// noteOf returns the note of a result: none if a packet completed or the
// workload has no flood CPUs.
func noteOf(r *models.Result) note {
	switch idle, waiting := r.Idle(); {
	case waiting:
		return noteWaiting
	case idle:
		return noteTooShort
	}
	return noteNone
}

// parallel calls f(0..n-1) on jobs goroutines and returns the error of the
// lowest index that failed, so that the error does not depend on jobs.
func parallel(n, jobs int, progress func(done, total int), f func(i int) error) error {
	errs := make([]error, n)
	next := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for range min(jobs, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				errs[i] = f(i)
				if progress != nil {
					mu.Lock()
					done++
					progress(done, n)
					mu.Unlock()
				}
			}
		}()
	}
	if progress != nil {
		progress(0, n)
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// exact is a float64 that survives JSON bit for bit, NaN and infinities
// included (as the strings "NaN", "+Inf", "-Inf").
type exact float64

func (x exact) MarshalJSON() ([]byte, error) {
	v := float64(x)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return json.Marshal(strconv.FormatFloat(v, 'g', -1, 64))
	}
	return []byte(strconv.FormatFloat(v, 'g', -1, 64)), nil
}

func (x *exact) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || !(math.IsNaN(v) || math.IsInf(v, 0)) {
			return fmt.Errorf("value %s: a number, or \"NaN\", \"+Inf\" or \"-Inf\"", b)
		}
		*x = exact(v)
		return nil
	}
	var v float64
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("value %s: a number, or \"NaN\", \"+Inf\" or \"-Inf\"", b)
	}
	*x = exact(v)
	return nil
}
