package report

import (
	"bytes"
	"contend/band"
	"fmt"
	"strings"
	"text/tabwriter"

	"contend/sweep"
)

// RenderTables prints tables in format; sweep and merge share it, so that
// merged shards print the bytes one sweep would. The text of a table with
// bands (Plan.Bands) says what each band holds over the corpus f.
func RenderTables(buf *bytes.Buffer, format string, tables []sweep.Table, f *band.File) error {
	switch format {
	case "json":
		return WriteJSON(buf, tables)
	case "csv":
		w := NewCSV(buf)
		head := []string{"series", "profile", "variant", "axis", "x", "metric", "unit", "value"}
		sampled := len(tables) > 0 && tables[0].Intervals != nil
		if sampled {
			head = append(head, "median", "low_5pct", "high_95pct")
		}
		banded := len(tables) > 0 && tables[0].Bands != nil
		if banded {
			head = append(head, bandColumns...)
		}
		combined := sampled && banded
		if combined {
			head = append(head, combinedColumns...)
		}
		w.Write(append(head, "note"))
		for _, t := range tables {
			for i, x := range t.X {
				for j, v := range t.Variants {
					rec := []string{t.Series, t.Profile, v, t.Axis, Num(x), t.Metric, t.Unit, Num(t.Values[i][j])}
					if sampled {
						b := t.Intervals[i][j]
						rec = append(rec, Num(b.Median), Num(b.Low), Num(b.High))
					}
					if banded {
						rec = append(rec, cellCSV(t.Bands[i][j])...)
					}
					if combined {
						rec = append(rec, rangeCSV(t.Combined[i][j], t.Bands[i][j].Kind != "")...)
					}
					w.Write(append(rec, t.NoteAt(i, j)))
				}
			}
		}
		w.Flush()
		return w.Error()
	}
	for i, t := range tables {
		if i > 0 {
			buf.WriteString("\n")
		}
		writeTable(buf, t)
		if f != nil && t.Bands != nil {
			writeTableBands(buf, t, f)
		}
	}
	return nil
}

// writeTable lays a table out the way seed 004's commit message does.
func writeTable(buf *bytes.Buffer, t sweep.Table) {
	fmt.Fprintf(buf, "%s (profile %s): %s, %s\n", t.Series, t.Profile, t.Metric, t.Unit)
	tw := tabwriter.NewWriter(buf, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%s\t", t.Axis)
	for _, v := range t.Variants {
		fmt.Fprintf(tw, "%s\t", v)
	}
	// A change is against the first variant, named in its header; a
	// figure that is itself a percentage (a CPU's utilisation) changes by
	// points, not by a percentage of a small base.
	points := t.Unit == "%"
	for _, v := range t.Variants[min(1, len(t.Variants)):] {
		if points {
			fmt.Fprintf(tw, "%s Δpt vs %s\t", v, t.Variants[0])
		} else {
			fmt.Fprintf(tw, "%s Δ%% vs %s\t", v, t.Variants[0])
		}
	}
	fmt.Fprintln(tw)
	for i, x := range t.X {
		fmt.Fprintf(tw, "%s\t", Num(x))
		for _, v := range t.Values[i] {
			fmt.Fprintf(tw, "%s\t", Fixed(v))
		}
		for _, v := range t.Values[i][min(1, len(t.Values[i])):] {
			base := t.Values[i][0]
			switch {
			case points:
				fmt.Fprintf(tw, "%s\t", Signed(v-base, 1))
			case base == 0:
				fmt.Fprint(tw, "-\t")
			default:
				fmt.Fprintf(tw, "%s\t", Signed(100*(v-base)/base, 0))
			}
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	if t.Intervals != nil {
		writeIntervals(buf, t)
	}
	if t.Combined != nil {
		writeCombined(buf, t)
	}
	for i, x := range t.X {
		for j, v := range t.Variants {
			if n := t.NoteAt(i, j); n != "" {
				fmt.Fprintf(buf, "  %s=%s %s: %s\n", t.Axis, Num(x), v, n)
			}
		}
	}
	if len(t.Unmeasured) > 0 && len(t.Unmeasured) < len(t.Variants) {
		fmt.Fprintf(buf, "  no published %s for %s: predictions only\n", t.Metric, strings.Join(t.Unmeasured, ", "))
	}
}

// writeIntervals lays out a table's medians and 90% intervals as the table
// itself is laid out.
func writeIntervals(buf *bytes.Buffer, t sweep.Table) {
	writeGrid(buf, t, "median and 90% interval over the profile's spread", func(i, j int) string {
		b := t.Intervals[i][j]
		return fmt.Sprintf("%s (%s – %s)", Fixed(b.Median), Fixed(b.Low), Fixed(b.High))
	})
}

// writeCombined lays out each value's interval over the profile's spread
// widened by its error band (band.Band.Widen), as the table is laid out;
// "-" where a value has no band.
func writeCombined(buf *bytes.Buffer, t sweep.Table) {
	writeGrid(buf, t, "90% interval widened by the error band (the spread and the model's error combined)", func(i, j int) string {
		return rangeText(t.Combined[i][j], t.Bands[i][j].Kind != "")
	})
}

// writeGrid lays out cell(x, variant) of every value under a title, as the
// table is laid out.
func writeGrid(buf *bytes.Buffer, t sweep.Table, title string, cell func(i, j int) string) {
	fmt.Fprintf(buf, "  %s:\n", title)
	tw := tabwriter.NewWriter(buf, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%s\t", t.Axis)
	for _, v := range t.Variants {
		fmt.Fprintf(tw, "%s\t", v)
	}
	fmt.Fprintln(tw)
	for i, x := range t.X {
		fmt.Fprintf(tw, "%s\t", Num(x))
		for j := range t.Variants {
			fmt.Fprintf(tw, "%s\t", cell(i, j))
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}
