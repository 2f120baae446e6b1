package sweep

import (
	"contend/band"
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
