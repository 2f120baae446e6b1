package report

import (
	"bytes"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

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
// error of each role.
func WriteRows(buf *bytes.Buffer, rows []scenarios.Row, ivs []sweep.Interval) {
	tw := tabwriter.NewWriter(buf, 0, 4, 2, ' ', 0)
	fmt.Fprint(tw, "SCENARIO\tVARIANT\tAXIS\tX\tMETRIC\tMEASURED\tPREDICTED\tERROR\tROLE")
	if ivs != nil {
		fmt.Fprint(tw, "\tMEDIAN\t90% INTERVAL\tINSIDE")
	}
	fmt.Fprintln(tw)
	worst := map[string]float64{}
	inside := 0
	for i, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s %s\t%s %s\t%s%%\t%s", r.Scenario, r.Variant, r.Axis, Num(r.X), r.Metric,
			Fixed(r.Measured), r.Unit, Fixed(r.Predicted), r.Unit, Signed(r.ErrorPct, 1), r.Role)
		if ivs != nil {
			iv := ivs[i]
			fmt.Fprintf(tw, "\t%s %s\t%s – %s %s\t%s", Fixed(iv.Median), r.Unit, Fixed(iv.Low), Fixed(iv.High), r.Unit, map[bool]string{true: "yes", false: "no"}[iv.Inside])
			if iv.Inside {
				inside++
			}
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
	for _, r := range rows {
		if r.Note != "" {
			fmt.Fprintf(buf, "note: %s %s %s=%s %s: %s\n", r.Scenario, r.Variant, r.Axis, Num(r.X), r.Metric, r.Note)
		}
	}
}

// WriteRowsCSV writes reference points and predictions with validate's columns.
// With intervals (validate --uncertainty), each row also has its median, its
// 90% interval and whether the measured figure falls inside.
func WriteRowsCSV(buf *bytes.Buffer, rows []scenarios.Row, ivs []sweep.Interval) {
	w := NewCSV(buf)
	head := []string{"scenario", "variant", "axis", "x", "metric", "unit", "measured", "predicted", "error_pct", "role"}
	if ivs != nil {
		head = append(head, "median", "low_5pct", "high_95pct", "inside")
	}
	w.Write(head)
	f4 := func(v float64) string { return strconv.FormatFloat(v, 'f', 4, 64) }
	for i, r := range rows {
		rec := []string{r.Scenario, r.Variant, r.Axis, Num(r.X), r.Metric, r.Unit, Num(r.Measured),
			f4(r.Predicted), strconv.FormatFloat(r.ErrorPct, 'f', 2, 64), r.Role}
		if ivs != nil {
			rec = append(rec, f4(ivs[i].Median), f4(ivs[i].Low), f4(ivs[i].High), strconv.FormatBool(ivs[i].Inside))
		}
		w.Write(rec)
	}
	w.Flush()
}

// WriteChanges writes what each variant changes against its series' base:
// the change measured, the change predicted, and the difference in points.
func WriteChanges(buf *bytes.Buffer, format string, changes []scenarios.Change) error {
	switch format {
	case "json":
		if changes == nil {
			changes = []scenarios.Change{}
		}
		return WriteJSON(buf, changes)
	case "csv":
		w := NewCSV(buf)
		w.Write([]string{"scenario", "series", "variant", "base", "axis", "x", "metric", "measured_pct", "predicted_pct"})
		f2 := func(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }
		for _, c := range changes {
			w.Write([]string{c.Scenario, c.Series, c.Variant, c.Base, c.Axis, Num(c.X), c.Metric, f2(c.MeasuredPct), f2(c.PredictedPct)})
		}
		w.Flush()
		return nil
	}
	tw := tabwriter.NewWriter(buf, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CHANGE\tAGAINST\tSERIES\tAXIS\tX\tMETRIC\tMEASURED\tPREDICTED\tMISSED BY")
	for _, c := range changes {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s%%\t%s%%\t%s points\n", c.Variant, c.Base, c.Series, c.Axis, Num(c.X), c.Metric,
			Signed(c.MeasuredPct, 1), Signed(c.PredictedPct, 1), Signed(c.PredictedPct-c.MeasuredPct, 1))
	}
	return tw.Flush()
}

// RowInterval is a validate row with its interval, for --format json.
type RowInterval struct {
	scenarios.Row
	Interval sweep.Interval `json:"interval"`
}

// WithIntervals pairs each row with its interval.
func WithIntervals(rows []scenarios.Row, ivs []sweep.Interval) []RowInterval {
	out := make([]RowInterval, len(rows))
	for i, r := range rows {
		out[i] = RowInterval{r, ivs[i]}
	}
	return out
}

// RenderValidation prints v in format: in text, what each series fits,
// the rows with the largest error of each role, then the changes; in csv
// and json, the rows.
func RenderValidation(buf *bytes.Buffer, format string, v sweep.Validation) error {
	switch format {
	case "json":
		rows := v.Rows
		if rows == nil {
			rows = []scenarios.Row{}
		}
		var out any = rows
		if v.Intervals != nil {
			out = WithIntervals(rows, v.Intervals)
		}
		return WriteJSON(buf, out)
	case "csv":
		WriteRowsCSV(buf, v.Rows, v.Intervals)
		return nil
	}
	for _, in := range v.Series {
		WriteSeriesHeader(buf, in.Scenario, in.Series)
	}
	buf.WriteString("\n")
	WriteRows(buf, v.Rows, v.Intervals)
	if len(v.Changes) > 0 {
		buf.WriteString("\n")
		return WriteChanges(buf, "text", v.Changes)
	}
	return nil
}
