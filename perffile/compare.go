package perffile

import (
	"fmt"
	"slices"
	"strings"

	"contend/models"
	"contend/report"
	"contend/scenarios"
)

// Compare reads a measured file as Import does and puts each figure of one
// of its blocks beside what res, a simulation of variant, gives for it: the
// block that starts at line at, or the only one. The symbols res simulates
// that the block lacks, and the shared lines a perf c2c report matched to
// none of its cachelines, follow with no measured figure.
func Compare(name string, src []byte, o Options, variant string, at int, res *models.Result) ([]report.Compared, error) {
	blocks, err := read(name, src, o)
	if err != nil {
		return nil, err
	}
	var found []string
	k := -1
	for j := range blocks {
		if !blocks[j].measures() {
			continue
		}
		found = append(found, fmt.Sprintf("line %d (%s)", blocks[j].line, blocks[j].kind))
		if at == 0 || blocks[j].line == at {
			k = j
		}
	}
	if len(found) == 0 || k < 0 || at == 0 && len(found) > 1 {
		return nil, fmt.Errorf("%s: --compare-line %d: name the line a block starts at; the file's blocks start at %s", name, at, strings.Join(found, ", "))
	}
	b := blocks[k]
	b.variant = variant
	o.keepAll = true
	one := []block{b}
	if err := figures(name, one, o); err != nil {
		return nil, err
	}
	b = one[0]
	var out []report.Compared
	have := map[string]bool{}
	var labels []string
	if o.Scenario != nil {
		labels = o.Scenario.Labels(variant)
	}
	for _, p := range b.points {
		sim, err := scenarios.Metric(res, p.metric, p.unit)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", p.source, err)
		}
		c := report.Compared{Metric: p.metric, Unit: p.unit, Measured: &p.value, Simulated: &sim, Source: p.source}
		if sym, ok := strings.CutPrefix(p.metric, "share_of_cycles_"); ok && labels != nil && !slices.Contains(labels, sym) {
			c.Note = "no step is labelled " + sym
		}
		have[p.metric] = true
		out = append(out, c)
	}
	switch b.kind {
	case "perf report":
		for _, l := range res.Profile {
			if m := "share_of_cycles_" + l.Label; !have[m] && l.CyclesPct >= o.MinShare {
				out = append(out, report.Compared{Metric: m, Unit: "%", Simulated: &l.CyclesPct, Note: "not in the report"})
			}
		}
	case "perf c2c":
		for _, l := range res.Lines {
			m := scenarios.HITMShare + l.Name
			if sim, _ := scenarios.Metric(res, m, "%"); !have[m] && !l.PerCPU && l.HITM > 0 {
				out = append(out, report.Compared{Metric: m, Unit: "%", Simulated: &sim, Note: "matched no cacheline"})
			}
		}
	}
	return out, nil
}
