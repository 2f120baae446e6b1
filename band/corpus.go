package band

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"contend/scenarios"
)

// Regenerate is the command that rewrites band.json from today's model.
const Regenerate = "go generate ./band"

// CaseOf names the case a series belongs to: the machine it was measured
// on, its hardware profile. One published table split into a series per
// writer count (x5-4-*), or one commit measured in two files (rwsem's
// readers and writers), is then one case, counted once.
func CaseOf(se *scenarios.Series) string { return se.Profile }

// Corpus gathers the published points of validated series.
type Corpus struct {
	Points []Point
}

// Add classifies the rows of series se of s (the rows Predict returned)
// and adds each validate row with a figure, and each change (in the order
// of scenarios.Changes) that is not between two calibrate points, to the
// corpus. It returns the tag of each row and of each change.
func (c *Corpus) Add(cl *Classifier, s *scenarios.Scenario, se *scenarios.Series, rows []scenarios.Row) (rowTags, changeTags []Tag, err error) {
	kinds := map[string]Kind{}
	roles := map[string]string{}
	for _, r := range rows {
		k, err := cl.Kind(se, r.Axis, r.X, r.Metric)
		if err != nil {
			return nil, nil, err
		}
		key := rowKey(r.Variant, r.Axis, r.X, r.Metric)
		kinds[key], roles[key] = k, r.Role
		rowTags = append(rowTags, Tag{Kind: k, Case: CaseOf(se)})
		if r.Role != "validate" || r.Note == scenarios.NoteTooShort || r.Note == scenarios.NoteWaiting || !(r.Predicted > 0) {
			continue
		}
		c.Points = append(c.Points, Point{Case: CaseOf(se), Scenario: s.Name, Series: se.Name, Variant: r.Variant,
			Axis: r.Axis, X: r.X, Metric: r.Metric, Kind: k, Measured: r.Measured, Predicted: r.Predicted,
			Error: 100 * math.Abs(r.Measured-r.Predicted) / r.Predicted})
	}
	for _, ch := range scenarios.Changes(se, rows) {
		key := rowKey(ch.Variant, ch.Axis, ch.X, ch.Metric)
		k := Kind{Figure: Change, Reach: kinds[key].Reach}
		changeTags = append(changeTags, Tag{Kind: k, Case: CaseOf(se)})
		if roles[key] != "validate" && roles[rowKey(ch.Base, ch.Axis, ch.X, ch.Metric)] != "validate" {
			continue
		}
		c.Points = append(c.Points, Point{Case: CaseOf(se), Scenario: s.Name, Series: se.Name, Variant: ch.Variant, Base: ch.Base,
			Axis: ch.Axis, X: ch.X, Metric: ch.Metric, Kind: k,
			Measured: ch.MeasuredPct, Predicted: ch.PredictedPct, Error: math.Abs(ch.MeasuredPct - ch.PredictedPct)})
	}
	return rowTags, changeTags, nil
}

// Tag is what finds a prediction's band: its kind and its case.
type Tag struct {
	Kind Kind   `json:"kind"`
	Case string `json:"case"`
}

func rowKey(variant, axis string, x float64, metric string) string {
	return fmt.Sprintf("%s|%s|%v|%s", variant, axis, x, metric)
}

// Entry is a band with how many of its pool's points fell within the band
// each got when it was learned without their case.
type Entry struct {
	Band
	Within int `json:"within"`
}

// CaseSet is the bands learned without one case.
type CaseSet struct {
	Case  string `json:"case"`
	Bands Set    `json:"bands"`
}

// File is band.json: the bands learned from the whole corpus, those each
// case gets learned without it, and the corpus.
type File struct {
	Regenerate string    `json:"regenerate"`
	Level      float64   `json:"level"`
	MinPoints  int       `json:"min_points"`
	Bands      []Entry   `json:"bands"`
	HeldOut    []CaseSet `json:"held_out"`
	Corpus     []Point   `json:"corpus"`
}

// File learns the bands of the corpus, each case's held out, and counts
// how many of each pool's points fell within their held-out band.
func (c *Corpus) File() *File {
	points := c.Points
	if points == nil {
		points = []Point{}
	}
	held := HeldOut(points)
	f := &File{Regenerate: Regenerate, Level: Level, MinPoints: MinPoints, Corpus: points, HeldOut: []CaseSet{}}
	for _, b := range Learn(points) {
		e := Entry{Band: b}
		for _, p := range points {
			if inPool(p.Kind, b.Pool) {
				if hb, ok := held[p.Case].For(p.Kind); ok && hb.Contains(p.Error) {
					e.Within++
				}
			}
		}
		f.Bands = append(f.Bands, e)
	}
	if f.Bands == nil {
		f.Bands = []Entry{}
	}
	for _, name := range slices.Sorted(maps.Keys(held)) {
		f.HeldOut = append(f.HeldOut, CaseSet{Case: name, Bands: held[name]})
	}
	return f
}

// inPool says whether a point of kind k is among pool's points.
func inPool(k, pool Kind) bool {
	for more := true; more; k, more = k.coarser() {
		if k == pool {
			return true
		}
	}
	return false
}

// Encode writes f as band.json is written.
func (f *File) Encode() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(f); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

//go:embed band.json
var committed []byte

// Committed returns the bands in band.json, learned from the built-in
// scenarios' published points by the model as it was when it was last
// regenerated.
func Committed() *File {
	var f File
	if err := json.Unmarshal(committed, &f); err != nil {
		panic("band: band.json: " + err.Error() + "; run " + Regenerate)
	}
	return &f
}

// Set is the bands of the whole corpus.
func (f *File) Set() Set {
	out := make(Set, len(f.Bands))
	for i, e := range f.Bands {
		out[i] = e.Band
	}
	return out
}

// For returns the band a prediction of kind k in case gets: the one
// learned without case when case is in the corpus, else the whole
// corpus's.
func (f *File) For(k Kind, caseName string) (Band, bool) {
	for _, h := range f.HeldOut {
		if h.Case == caseName {
			return h.Bands.For(k)
		}
	}
	return f.Set().For(k)
}

// Cell is the whole corpus's band of kind k around prediction v, or no
// band (an empty Kind) when the corpus has none for it.
func (f *File) Cell(k Kind, v float64) Cell {
	b, ok := f.Set().For(k)
	if !ok {
		return Cell{}
	}
	return b.Cell(v)
}

// Describe says what a band holds: "±12% (90%: 41 of 46 published
// predictions of this kind fell within it)", naming the pool when its kind
// had too few points of its own. The count is the whole corpus's, each
// point judged by the band learned without its case.
func (f *File) Describe(b Band) string { return f.describe(b.Kind.String(), Width(b)) }

// DescribeCell is Describe for a band as csv and json carry it.
func (f *File) DescribeCell(c Cell) string {
	return f.describe(c.Kind, width(c.Width, strings.HasPrefix(c.Kind, string(Change))))
}

func (f *File) describe(kind, width string) string {
	i := slices.IndexFunc(f.Bands, func(e Entry) bool { return e.Kind.String() == kind })
	if i < 0 {
		return width
	}
	e := f.Bands[i]
	pooled := ""
	if e.Pooled() {
		pooled = fmt.Sprintf("; pooled with %s, this kind having fewer than %d points or %d cases", e.Pool, MinPoints, MinCases)
	}
	return fmt.Sprintf("%s (90%%: %d of %d published predictions of this kind fell within it%s)", width, e.Within, e.Points, pooled)
}

// Width prints a band's half-width: "±12%", "±8.5 points".
func Width(b Band) string { return width(b.Width, b.Kind.Figure == Change) }

func width(w float64, points bool) string {
	prec := 0
	if w < 10 {
		prec = 1
	}
	unit := "%"
	if points {
		unit = " points"
	}
	return "±" + strings.TrimSuffix(fmt.Sprintf("%.*f", prec, w), ".0") + unit
}
