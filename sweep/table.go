package sweep

import (
	"contend/band"
	"contend/models"
	"contend/scenarios"
)

// Table is one printed table: rows are axis values, columns variants.
type Table struct {
	Series   string      `json:"series"`
	Profile  string      `json:"profile"`
	Metric   string      `json:"metric"`
	Unit     string      `json:"unit"`
	Axis     string      `json:"axis"`
	Variants []string    `json:"variants"`
	X        []float64   `json:"x"`
	Values   [][]float64 `json:"values"` // [x][variant]
	// Unmeasured lists the variants with no reference point for this
	// metric: their columns are predictions only.
	Unmeasured []string `json:"unmeasured"`
	// Intervals holds each value's median and 90% interval ([x][variant])
	// when the profile's spread was sampled (--uncertainty).
	Intervals [][]Bounds `json:"intervals,omitempty"`
	// Notes says, for each value ([x][variant]), why it is zero when no
	// packet completed ("" where one did); absent when every point had
	// packets.
	Notes [][]string `json:"notes,omitempty"`
	// Bands holds each value's error band ([x][variant]), ChangeBands
	// each Δ% column's ([x][variant after the first], where the first is
	// not zero), when Plan.Bands set them.
	Bands       [][]band.Cell `json:"bands,omitempty"`
	ChangeBands [][]band.Cell `json:"change_bands,omitempty"`
	// Combined holds each banded value's interval over the profile's
	// spread widened by its band ([x][variant]; zero where the value has
	// no band), when the table has both.
	Combined [][]band.Range `json:"combined,omitempty"`
}

// NoteAt is the note of value [i][j], "" if it has none.
func (t Table) NoteAt(i, j int) string {
	if t.Notes == nil {
		return ""
	}
	return t.Notes[i][j]
}

// Tables averages each point's metrics over its replications, in the order
// and with the arithmetic of Scenario.MeanMetric. A cell where a
// replication completed no packet carries its note.
func (p *Plan) Tables(values [][]float64) []Table {
	var out []Table
	for _, g := range p.Groups {
		for m, mu := range g.Metrics {
			t := Table{Series: g.Series, Profile: g.Profile, Metric: mu.Metric, Unit: mu.Unit, Axis: g.Axis,
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
						n = graver(n, note(vs[len(g.Metrics)]))
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

// note says why a point's figures are zero (no packet completed in its
// measured interval), or that they had not settled. It travels in shards as
// the last value of a point (so a value keeps its number); a point's
// replications keep the gravest (graver).
type note int

const (
	noteNone     note = iota
	noteTooShort      // the CPUs worked, but no packet finished
	noteWaiting       // the CPUs waited (spun or slept) most of the time
	noteUnsteady      // the rate had not settled (models.Result.Unsteady)
)

// graver returns the graver of two notes: no figure is graver than an
// unsettled one.
func graver(a, b note) note {
	rank := func(n note) int {
		if n == noteUnsteady {
			return 1
		}
		return 2 * int(n)
	}
	if rank(b) > rank(a) {
		return b
	}
	return a
}

// NoteUnsteady is what a sweep's table notes a point whose rate had not
// settled with; contend explain and validate say why in figures.
const NoteUnsteady = "the rate had not settled in the measured interval (too few packets a CPU, or its two halves apart): lengthen [run] warmup and duration; contend validate and explain say by how much"

func (n note) String() string {
	switch n {
	case noteUnsteady:
		return NoteUnsteady
	case noteTooShort:
		return scenarios.NoteTooShort
	case noteWaiting:
		return scenarios.NoteWaiting
	}
	return ""
}

// noteOf returns the note of a result: none if a packet completed and the
// rate settled, or the workload has no flood CPUs.
func noteOf(r *models.Result) note {
	switch idle, waiting := r.Idle(); {
	case waiting:
		return noteWaiting
	case idle:
		return noteTooShort
	}
	if r.Unsteady() != "" {
		return noteUnsteady
	}
	return noteNone
}
