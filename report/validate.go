package report

import (
	"bytes"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"contend/band"
	"contend/scenarios"
	"contend/sweep"
)

// WriteSeriesHeader says what a series fits and to which points.
func WriteSeriesHeader(buf *bytes.Buffer, scenario string, se *scenarios.Series) {
	cal := []string{}
	for _, r := range se.Refs {
		if r.Role == "calibrate" {
			cal = append(cal, fmt.Sprintf("%s %s=%v %s", r.Variant, r.Axis, r.X, r.Metric))
		}
	}
	fmt.Fprintf(buf, "series %s (%s, profile %s)\n  free parameters (%d): %s\n  calibrate points (%d): %s\n",
		se.Name, scenario, se.Profile, len(se.Free), strings.Join(se.Free, ", "), len(cal), strings.Join(cal, "; "))
}

// WriteRows prints reference points against predictions, and the largest
// error of each role. With bands (one per row, nil for a row without), each
// row also shows its error band; with intervals too, the interval widened
// by the band, and how many measured figures fall inside it.
func WriteRows(buf *bytes.Buffer, rows []scenarios.Row, ivs []sweep.Interval, bands []*band.Band) {
	tw := tabwriter.NewWriter(buf, 0, 4, 2, ' ', 0)
	fmt.Fprint(tw, "SCENARIO\tVARIANT\tAXIS\tX\tMETRIC\tMEASURED\tPREDICTED\tERROR\tROLE")
	if bands != nil {
		fmt.Fprint(tw, "\tBAND")
	}
	if ivs != nil {
		fmt.Fprint(tw, "\tMEDIAN\t90% INTERVAL\tINSIDE")
	}
	if bands != nil && ivs != nil {
		fmt.Fprint(tw, "\tWITH BAND\tINSIDE")
	}
	fmt.Fprintln(tw)
	worst := map[string]float64{}
	inside, banded, insideBand := 0, 0, 0
	for i, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s %s\t%s %s\t%s%%\t%s", r.Scenario, r.Variant, r.Axis, Num(r.X), r.Metric,
			Fixed(r.Measured), r.Unit, Fixed(r.Predicted), r.Unit, Signed(r.ErrorPct, 1), r.Role)
		if bands != nil {
			fmt.Fprintf(tw, "\t%s", bandText(bands[i]))
		}
		if ivs != nil {
			iv := ivs[i]
			fmt.Fprintf(tw, "\t%s %s\t%s – %s %s\t%s", Fixed(iv.Median), r.Unit, Fixed(iv.Low), Fixed(iv.High), r.Unit, map[bool]string{true: "yes", false: "no"}[iv.Inside])
			if iv.Inside {
				inside++
			}
		}
		if bands != nil && ivs != nil {
			c, ok := combinedAt(bands, ivs, i)
			with, in := "-", "-"
			if ok {
				banded++
				with, in = rangeText(c, ok)+" "+r.Unit, "no"
				if c.Contains(r.Measured) {
					in = "yes"
					insideBand++
				}
			}
			fmt.Fprintf(tw, "\t%s\t%s", with, in)
		}
		fmt.Fprintln(tw)
		worst[r.Role] = math.Max(worst[r.Role], math.Abs(r.ErrorPct))
	}

	tw.Flush()
	roles := make([]string, 0, len(worst))
	for k := range worst {
		roles = append(roles, k)
	}
	sort.Strings(roles)
	for _, role := range roles {
		fmt.Fprintf(buf, "largest %s error: %.1f%%\n", role, worst[role])
	}
	if ivs != nil {
		fmt.Fprintf(buf, "measured figures inside their 90%% interval: %d of %d\n", inside, len(rows))
	}
	if banded > 0 {
		fmt.Fprintf(buf, "measured figures inside their interval widened by the error band: %d of %d validate points\n", insideBand, banded)
	}
	for _, r := range rows {
		if r.Note != "" {
			fmt.Fprintf(buf, "note: %s %s %s=%s %s: %s\n", r.Scenario, r.Variant, r.Axis, Num(r.X), r.Metric, r.Note)
		}
	}
}

// WriteRowsCSV writes reference points and predictions with validate's columns.
// With bands, each row also has its error band (empty for a calibrate row);
// with intervals (validate --uncertainty), its median, its 90% interval and
// whether the measured figure falls inside; with both, the interval widened
// by the band.
func WriteRowsCSV(buf *bytes.Buffer, rows []scenarios.Row, ivs []sweep.Interval, bands []*band.Band) {
	w := NewCSV(buf)
	head := []string{"scenario", "variant", "axis", "x", "metric", "unit", "measured", "predicted", "error_pct", "role"}
	if bands != nil {
		head = append(head, bandColumns...)
	}
	if ivs != nil {
		head = append(head, "median", "low_5pct", "high_95pct", "inside")
	}
	if bands != nil && ivs != nil {
		head = append(head, combinedColumns...)
	}
	w.Write(head)
	for i, r := range rows {
		rec := []string{r.Scenario, r.Variant, r.Axis, Num(r.X), r.Metric, r.Unit, Num(r.Measured),
			f4(r.Predicted), strconv.FormatFloat(r.ErrorPct, 'f', 2, 64), r.Role}
		if bands != nil {
			rec = append(rec, bandCSV(bands[i], r.Predicted)...)
		}
		if ivs != nil {
			rec = append(rec, f4(ivs[i].Median), f4(ivs[i].Low), f4(ivs[i].High), strconv.FormatBool(ivs[i].Inside))
		}
		if bands != nil && ivs != nil {
			rec = append(rec, rangeCSV(combinedAt(bands, ivs, i))...)
		}
		w.Write(rec)
	}
	w.Flush()
}

// WriteChanges writes what each variant changes against its series' base:
// the change measured, the change predicted, and the difference in points;
// with bands (one per change), each change's error band in points.
func WriteChanges(buf *bytes.Buffer, format string, changes []scenarios.Change, bands []*band.Band) error {
	switch format {
	case "json":
		out := make([]ChangeJSON, len(changes))
		for i, c := range changes {
			out[i] = ChangeJSON{Change: c, Cell: cellAt(bands, i, c.PredictedPct)}
		}
		return WriteJSON(buf, out)
	case "csv":
		w := NewCSV(buf)
		head := []string{"scenario", "series", "variant", "base", "axis", "x", "metric", "measured_pct", "predicted_pct"}
		if bands != nil {
			head = append(head, bandColumns...)
		}
		w.Write(head)
		f2 := func(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }
		for i, c := range changes {
			rec := []string{c.Scenario, c.Series, c.Variant, c.Base, c.Axis, Num(c.X), c.Metric, f2(c.MeasuredPct), f2(c.PredictedPct)}
			if bands != nil {
				rec = append(rec, bandCSV(bands[i], c.PredictedPct)...)
			}
			w.Write(rec)
		}
		w.Flush()
		return nil
	}
	tw := tabwriter.NewWriter(buf, 0, 4, 2, ' ', 0)
	fmt.Fprint(tw, "CHANGE\tAGAINST\tSERIES\tAXIS\tX\tMETRIC\tMEASURED\tPREDICTED\tMISSED BY")
	if bands != nil {
		fmt.Fprint(tw, "\tBAND")
	}
	fmt.Fprintln(tw)
	for i, c := range changes {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s%%\t%s%%\t%s points", c.Variant, c.Base, c.Series, c.Axis, Num(c.X), c.Metric,
			Signed(c.MeasuredPct, 1), Signed(c.PredictedPct, 1), Signed(c.PredictedPct-c.MeasuredPct, 1))
		if bands != nil {
			fmt.Fprintf(tw, "\t%s", bandText(bands[i]))
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

// RowJSON is a validate row for --format json: with its error band, unless
// it is a calibrate point, and its interval under --uncertainty.
type RowJSON struct {
	scenarios.Row
	*band.Cell
	Interval *sweep.Interval `json:"interval,omitempty"`
	// Combined is the interval widened by the band, with both.
	Combined *band.Range `json:"combined,omitempty"`
}

// ChangeJSON is a change with its error band, for --format json.
type ChangeJSON struct {
	scenarios.Change
	*band.Cell
}

// RenderValidation prints v in format: in text, what each series fits,
// the rows with the largest error of each role and their bands, then the
// changes; in csv and json, the rows. Each validate row's band is from f
// (nil: none), the one its case gets (band.File.For).
func RenderValidation(buf *bytes.Buffer, format string, v sweep.Validation, f *band.File) error {
	rowBands, changeBands := BandsOf(f, v.Tags), BandsOf(f, v.ChangeTags)
	for i, r := range v.Rows {
		if r.Role != "validate" {
			rowBands[i] = nil
		}
	}
	switch format {
	case "json":
		out := make([]RowJSON, len(v.Rows))
		for i, r := range v.Rows {
			out[i] = RowJSON{Row: r, Cell: cellAt(rowBands, i, r.Predicted)}
			if v.Intervals != nil {
				out[i].Interval = &v.Intervals[i]
				if c, ok := combinedAt(rowBands, v.Intervals, i); ok {
					out[i].Combined = &c
				}
			}
		}
		return WriteJSON(buf, out)
	case "csv":
		WriteRowsCSV(buf, v.Rows, v.Intervals, rowBands)
		return nil
	}
	for _, in := range v.Series {
		WriteSeriesHeader(buf, in.Scenario, in.Series)
	}
	buf.WriteString("\n")
	WriteRows(buf, v.Rows, v.Intervals, rowBands)
	writeBandSummary(buf, f, v.Rows, rowBands)
	if len(v.Changes) > 0 {
		buf.WriteString("\n")
		return WriteChanges(buf, "text", v.Changes, changeBands)
	}
	return nil
}

// RenderValidationAs prints what validate found: the rows, only the
// changes, or the corpus and the bands it teaches; each with its error band
// from f.
func RenderValidationAs(buf *bytes.Buffer, format string, changes, corpus bool, v sweep.Validation, f *band.File) error {
	switch {
	case changes:
		return WriteChanges(buf, format, v.Changes, BandsOf(f, v.ChangeTags))
	case corpus:
		return RenderCorpus(buf, format, v.Corpus.File())
	}
	return RenderValidation(buf, format, v, f)
}
