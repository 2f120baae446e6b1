package sweep

import (
	"errors"
	"fmt"

	"contend/band"
	"contend/internal/parallel"
	"contend/models"
	"contend/scenarios"
)

// Validation is what validate found: the series it predicted, every
// reference point against its prediction (with its interval under
// --uncertainty, and its kind and case, which find its error band), what
// each variant changes against its series' base, and the corpus of
// published points the rows make.
type Validation struct {
	Series    []ValidatedSeries
	Rows      []scenarios.Row
	Intervals []Interval // one per row, or nil
	Tags      []band.Tag // one per row
	Changes   []scenarios.Change
	// ChangeTags holds one per change.
	ChangeTags []band.Tag
	Corpus     band.Corpus
}

// ValidatedSeries is a series and the name of its scenario.
type ValidatedSeries struct {
	Scenario string
	Series   *scenarios.Series
}

// Add predicts every reference point of every series of s from seed, and
// with samples draws of its profile's spread each one's interval, and adds
// them to v.
func (v *Validation) Add(s *scenarios.Scenario, seed int64, samples int, run scenarios.Runner) error {
	cl := band.NewClassifier(s)
	for _, se := range s.Series {
		r, err := s.Predict(se, seed, nil, run)
		if err != nil {
			return err
		}
		rt, ct, err := v.Corpus.Add(cl, s, se, r)
		if err != nil {
			return err
		}
		v.Tags = append(v.Tags, rt...)
		v.ChangeTags = append(v.ChangeTags, ct...)
		v.Rows = append(v.Rows, r...)
		v.Changes = append(v.Changes, scenarios.Changes(se, r)...)
		v.Series = append(v.Series, ValidatedSeries{Scenario: s.Name, Series: se})
		if samples > 0 {
			iv, err := Intervals(s, se, seed, samples, run)
			if err != nil {
				return err
			}
			v.Intervals = append(v.Intervals, iv...)
		}
	}
	return nil
}

// AddAll is Add, without intervals, for every scenario of scens from its
// seed of seeds: every point of every series of every scenario is
// simulated by jobs workers drawing from one queue, so that none waits for a
// series or a scenario to end (a series of one point, or a scenario whose
// few points are long, no longer leaves a worker idle), and v ends as Add,
// one scenario after another, leaves it: results do not depend on jobs, and
// a point that fails fails the run with the error Add would have met first.
func (v *Validation) AddAll(scens []*scenarios.Scenario, seeds []int64, jobs int, progress func(done, total int)) error {
	// The points Predict asks for, series by series, are known before any
	// is simulated: a first pass over the series records them.
	type batch struct{ scen, from, n int }
	var batches []batch
	var scenOf []int
	var pts []scenarios.Point
	errRecorded := errors.New("recorded")
	for i, s := range scens {
		for _, se := range s.Series {
			_, err := s.Predict(se, seeds[i], nil, func(ps []scenarios.Point) ([]*models.Result, error) {
				batches = append(batches, batch{i, len(pts), len(ps)})
				for _, p := range ps {
					pts, scenOf = append(pts, p), append(scenOf, i)
				}
				return nil, errRecorded
			})
			if !errors.Is(err, errRecorded) {
				if err == nil {
					err = fmt.Errorf("%s: series %s: predicted without simulating", s.Name, se.Name)
				}
				return err
			}
		}
	}
	results := make([]*models.Result, len(pts))
	if err := parallel.Each(len(pts), jobs, progress, func(k int) error {
		var err error
		results[k], err = scens[scenOf[k]].Simulate(pts[k])
		return err
	}); err != nil {
		return err
	}
	next := 0
	for i, s := range scens {
		replay := func(ps []scenarios.Point) ([]*models.Result, error) {
			if next == len(batches) || batches[next].scen != i || batches[next].n != len(ps) {
				return nil, fmt.Errorf("%s: a series asked for other points than it did before", s.Name)
			}
			b := batches[next]
			next++
			return results[b.from : b.from+b.n], nil
		}
		if err := v.Add(s, seeds[i], 0, replay); err != nil {
			return err
		}
	}
	return nil
}
