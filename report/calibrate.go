package report

import (
	"bytes"
	"fmt"
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
