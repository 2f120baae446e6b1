package report

import (
	"bytes"
	"fmt"
	"strings"
	"text/tabwriter"
)

// Compared is one measured figure beside the simulated one (explain
// --compare): a symbol's share of cycles, a line's HITMs, a lock's
// contentions. Either side may be missing: a symbol the simulation does not
// run, a line the measurement did not match.
type Compared struct {
	Metric    string   `json:"metric"`
	Unit      string   `json:"unit"`
	Measured  *float64 `json:"measured,omitempty"`
	Simulated *float64 `json:"simulated,omitempty"`
	Source    string   `json:"source,omitempty"`
	Note      string   `json:"note,omitempty"`
}

// WriteCompare writes the measured figures of file beside the simulated
// ones, in the order given.
func WriteCompare(buf *bytes.Buffer, file string, rows []Compared) {
	fmt.Fprintf(buf, "\nmeasured (%s) beside simulated:\n", file)
	var table bytes.Buffer
	tw := tabwriter.NewWriter(&table, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  metric\tmeasured\tsimulated\terror\t")
	for _, r := range rows {
		fig := func(v *float64) string {
			if v == nil {
				return "-"
			}
			return Fixed(*v) + r.Unit
		}
		e := "-"
		if r.Measured != nil && r.Simulated != nil && *r.Measured != 0 {
			e = Signed(100*(*r.Simulated / *r.Measured - 1), 1) + "%"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", r.Metric, fig(r.Measured), fig(r.Simulated), e, r.Note)
	}
	tw.Flush()
	for _, line := range strings.SplitAfter(table.String(), "\n") {
		buf.WriteString(strings.TrimRight(line, " \n"))
		if line != "" {
			buf.WriteString("\n")
		}
	}
}
