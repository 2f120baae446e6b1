package report

import (
	"bytes"
	"fmt"
	"math"
	"text/tabwriter"

	"contend/hostbench"
)

// WriteFigures lays out calibrate's measured figures: median, quartiles and
// the loop behind each.
func WriteFigures(buf *bytes.Buffer, figs []hostbench.Figure) {
	tw := tabwriter.NewWriter(buf, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "FIGURE\tMEDIAN\tQ1\tQ3\tIQR\tSAMPLES\tLOOP")
	for _, f := range figs {
		s := f.Stat
		fmt.Fprintf(tw, "%s\t%s ns\t%s\t%s\t%.1f%%\t%d\t%s\n", f.Name, Fixed(s.Median), Fixed(s.Q1), Fixed(s.Q3), s.IQRPct(), s.N, f.Bench)
	}
	tw.Flush()
}

// WriteFiguresCSV is WriteFigures as CSV.
func WriteFiguresCSV(buf *bytes.Buffer, figs []hostbench.Figure) {
	buf.WriteString("figure,median_ns,q1_ns,q3_ns,samples,loop\n")
	for _, f := range figs {
		s := f.Stat
		fmt.Fprintf(buf, "%s,%s,%s,%s,%d,%q\n", f.Name, Num(s.Median), Num(s.Q1), Num(s.Q3), s.N, f.Bench)
	}
}

// Calibration is what calibrate measured and fitted, and what it prints.
type Calibration struct {
	Figures    []hostbench.Figure
	Result     *hostbench.Calibration
	Provenance hostbench.Provenance
	Check      bool // --check: the measured figures against the simulated
	Profile    bool // the profile follows the text (no -o took it)
}

// RenderCalibration prints c in format: json is the record the archive
// keeps; csv the check's rows or else the figures; text the figures, the
// check with its notes and warnings, and the profile.
func RenderCalibration(buf *bytes.Buffer, format string, c Calibration) error {
	cal := c.Result
	switch {
	case format == "json":
		return WriteJSON(buf, hostbench.NewRecord(cal, c.Provenance, c.Check))
	case format == "csv" && c.Check:
		WriteRowsCSV(buf, cal.Rows, nil, nil)
		return nil
	case format == "csv":
		WriteFiguresCSV(buf, c.Figures)
		return nil
	}
	WriteFigures(buf, c.Figures)
	if c.Check {
		buf.WriteString("\n")
		WriteSeriesHeader(buf, hostbench.Scenario, cal.Series)
		buf.WriteString("\n")
		WriteRows(buf, cal.Rows, nil, nil)
		for _, n := range cal.Notes {
			fmt.Fprintf(buf, "note: %s\n", n)
		}
		if cal.Timed != "" {
			fmt.Fprintf(buf, "note: %s\n", cal.Timed)
		}
		for _, f := range cal.Unsteady() {
			fmt.Fprintf(buf, "warning: %s, which the profile is fitted to, spread over %.0f%% of its median (Q1 %s ns, Q3 %s ns): the machine changed while it was measured (a guest whose vCPUs moved?), and the profile describes neither state: calibrate again\n", f.Name, f.Stat.IQRPct(), Fixed(f.Stat.Q1), Fixed(f.Stat.Q3))
		}
		if d, ok := cal.Drift(); ok && math.Abs(d) > hostbench.MaxDrift {
			fmt.Fprintf(buf, "warning: the ping-pong measured again after the contended loops is %+.0f%% off the first: the machine changed while it was measured (a guest whose vCPUs moved between physical cores?); the contended figures may not match one profile: calibrate again\n", 100*d)
		}
	}
	if c.Profile {
		buf.WriteString("\n" + cal.Profile)
	}
	return nil
}
