package report

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"contend/band"
	"contend/scenarios"
	"contend/sweep"
)

// bandColumns are the csv columns of a prediction's error band, and
// combinedColumns those of its spread's interval widened by the band.
var (
	bandColumns     = []string{"band_kind", "band_low", "band_high"}
	combinedColumns = []string{"combined_low", "combined_high"}
)

// combinedAt is row i's interval over the profile's spread widened by its
// band (band.Band.Widen), and whether it has a band.
func combinedAt(bands []*band.Band, ivs []sweep.Interval, i int) (band.Range, bool) {
	if i >= len(bands) || bands[i] == nil {
		return band.Range{}, false
	}
	return bands[i].Widen(ivs[i].Low, ivs[i].High), true
}

// rangeText is a combined range as the text tables print it, "-" for none.
func rangeText(r band.Range, ok bool) string {
	if !ok {
		return "-"
	}
	return Fixed(r.Low) + " – " + Fixed(r.High)
}

// rangeCSV is a combined range's csv cells, empty for none.
func rangeCSV(r band.Range, ok bool) []string {
	if !ok {
		return []string{"", ""}
	}
	return []string{f4(r.Low), f4(r.High)}
}

func f4(v float64) string { return strconv.FormatFloat(v, 'f', 4, 64) }

// BandsOf returns the band of each tag from f: nil for a tag no published
// point sets, all nil without f.
func BandsOf(f *band.File, tags []band.Tag) []*band.Band {
	out := make([]*band.Band, len(tags))
	if f == nil {
		return out
	}
	for i, t := range tags {
		if b, ok := f.For(t.Kind, t.Case); ok {
			out[i] = &b
		}
	}
	return out
}

// cellAt is band i around prediction v, or nil.
func cellAt(bands []*band.Band, i int, v float64) *band.Cell {
	if i >= len(bands) || bands[i] == nil {
		return nil
	}
	c := bands[i].Cell(v)
	return &c
}

func bandText(b *band.Band) string {
	if b == nil {
		return "-"
	}
	return band.Width(*b)
}

func bandCSV(b *band.Band, v float64) []string {
	if b == nil {
		return cellCSV(band.Cell{})
	}
	return cellCSV(b.Cell(v))
}

// cellCSV is a band's csv cells, empty for no band.
func cellCSV(c band.Cell) []string {
	if c.Kind == "" {
		return []string{"", "", ""}
	}
	return []string{c.Kind, f4(c.Low), f4(c.High)}
}

// writeTableBands says, under a table, which band each of its values and
// Δ% columns has: by kind, at which axis values.
func writeTableBands(buf *bytes.Buffer, t sweep.Table, f *band.File) {
	type at struct {
		cell   band.Cell
		xs     []string
		change bool
	}
	var kinds []*at
	note := func(c band.Cell, x float64, change bool) {
		if c.Kind == "" {
			return
		}
		i := slices.IndexFunc(kinds, func(a *at) bool { return a.cell.Kind == c.Kind && a.cell.Width == c.Width })
		if i < 0 {
			kinds = append(kinds, &at{cell: c, change: change})
			i = len(kinds) - 1
		}
		if xs := kinds[i].xs; len(xs) == 0 || xs[len(xs)-1] != Num(x) {
			kinds[i].xs = append(kinds[i].xs, Num(x))
		}
	}
	for i, x := range t.X {
		for _, c := range t.Bands[i] {
			note(c, x, false)
		}
	}
	for i, x := range t.X {
		for _, c := range t.ChangeBands[i] {
			note(c, x, true)
		}
	}
	fmt.Fprintf(buf, "  error bands (how far the measured figure may lie from the prediction):\n")
	for _, k := range kinds {
		what := "values"
		if k.change {
			what = "Δ%"
		}
		fmt.Fprintf(buf, "    %s at %s=%s: %s, %s\n", what, t.Axis, strings.Join(k.xs, ","), k.cell.Kind, f.DescribeCell(k.cell))
	}
}

// writeBandSummary says how many measured figures fell within their band,
// and what each kind's band holds over the published cases.
func writeBandSummary(buf *bytes.Buffer, f *band.File, rows []scenarios.Row, bands []*band.Band) {
	if f == nil {
		return
	}
	var kinds []band.Band
	within, judged := 0, 0
	for i, r := range rows {
		b := bands[i]
		if b == nil {
			continue
		}
		judged++
		if r.Predicted > 0 && b.Contains(100*math.Abs(r.Measured-r.Predicted)/r.Predicted) {
			within++
		}
		if full, ok := f.Set().For(b.Kind); ok && !slices.Contains(kinds, full) {
			kinds = append(kinds, full)
		}
	}
	if judged == 0 {
		return
	}
	fmt.Fprintf(buf, "measured figures within their band: %d of %d validate points\n", within, judged)
	writeBandKinds(buf, f, kinds)
}

// writeBandKinds describes each band, in the order given.
func writeBandKinds(buf *bytes.Buffer, f *band.File, bands []band.Band) {
	fmt.Fprintf(buf, "error bands (how far the measured figure may lie from the prediction, in %% of it; a built-in case's band is learned without its own points):\n")
	for _, b := range bands {
		fmt.Fprintf(buf, "  %s: %s\n", b.Kind, f.Describe(b))
	}
}

// RenderCorpus prints what validate --corpus learned: in json, band.json
// itself; in csv, every published point with its kind, its error and the
// band its case got held out; in text, the bands of every kind, then the
// points.
func RenderCorpus(buf *bytes.Buffer, format string, f *band.File) error {
	if format == "json" {
		data, err := f.Encode()
		buf.Write(data)
		return err
	}
	if format == "csv" {
		w := NewCSV(buf)
		w.Write([]string{"case", "scenario", "series", "variant", "base", "axis", "x", "metric", "figure", "reach", "measured", "predicted", "error", "held_out_width", "within"})
		for _, p := range f.Corpus {
			b, ok := f.For(p.Kind, p.Case)
			width := ""
			if ok {
				width = strconv.FormatFloat(b.Width, 'f', 2, 64)
			}
			w.Write([]string{p.Case, p.Scenario, p.Series, p.Variant, p.Base, p.Axis, Num(p.X), p.Metric, string(p.Kind.Figure), string(p.Kind.Reach),
				Num(p.Measured), Num(p.Predicted), strconv.FormatFloat(p.Error, 'f', 2, 64), width, strconv.FormatBool(ok && b.Contains(p.Error))})
		}
		w.Flush()
		return w.Error()
	}
	tw := tabwriter.NewWriter(buf, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KIND\tPOOLED FROM\tPOINTS\tBAND (90%)\tWITHIN, HELD OUT")
	for _, e := range f.Bands {
		pool := "-"
		if e.Pooled() {
			pool = e.Pool.String()
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%d of %d\n", e.Kind, pool, e.Points, band.Width(e.Band), e.Within, e.Points)
	}
	tw.Flush()
	fmt.Fprintf(buf, "%d published points in %d cases; a case is one machine's measurements, and each point is judged by the band learned without its case\n\n", len(f.Corpus), len(f.HeldOut))
	tw = tabwriter.NewWriter(buf, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CASE\tSERIES\tVARIANT\tAXIS\tX\tMETRIC\tKIND\tERROR\tHELD-OUT BAND\tWITHIN")
	for _, p := range f.Corpus {
		b, ok := f.For(p.Kind, p.Case)
		name := p.Variant
		if p.Base != "" {
			name += " vs " + p.Base
		}
		unit := "%"
		if p.Kind.Figure == band.Change {
			unit = " points"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.1f%s\t%s\t%s\n", p.Case, p.Series, name, p.Axis, Num(p.X), p.Metric, p.Kind,
			p.Error, unit, bandText(map[bool]*band.Band{true: &b}[ok]), map[bool]string{true: "yes", false: "no"}[ok && b.Contains(p.Error)])
	}
	return tw.Flush()
}
