package perffile

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"contend/report"
	"contend/scenarios"
)

var (
	// reportSamples is the line perf report opens each event with: alone
	// in the TUI's header and in a --stdio file ("# Samples: ..."), where
	// the event count follows on a line of its own.
	reportSamples = regexp.MustCompile(`^\s*(#\s*)?Samples: (\S+)\s+of events? '([^']+)'(?:.*, Event count \(approx\.\): (\d+))?`)
	reportCount   = regexp.MustCompile(`^#\s*Event count \(approx\.\): (\d+)`)
	// reportRow is one entry: its overhead (or children and self) first,
	// then the columns of the sort order, the symbol's after its level
	// ([k] kernel, [.] user, [g] guest kernel, [u] guest user, [H]
	// hypervisor) as ui/stdio/hist.c and util/sort.c print them.
	reportRow = regexp.MustCompile(`^\s*[+-]?\s*([0-9]+(?:\.[0-9]+)?)%(?:\s+([0-9]+(?:\.[0-9]+)?)%)?\s.*?\[[k.guH]\] (.+)$`)
)

// cyclesEvents are the events whose samples are shares of the CPU's
// cycles (or of its time), which is what a share_of_cycles_ reference
// compares with the simulation.
var cyclesEvents = map[string]bool{"cycles": true, "cpu-cycles": true, "ref-cycles": true, "cpu-clock": true, "task-clock": true}

// isReportStart says whether a line opens a perf report: its samples
// line, or the first entry of a profile quoted without its header.
func isReportStart(text string) bool {
	return reportSamples.MatchString(text) || reportRow.MatchString(text)
}

// reportEntry parses an entry: its symbol and its own share of the
// samples (a report with children gives children, then self).
func reportEntry(text string) (symbol, share string, ok bool) {
	m := reportRow.FindStringSubmatch(text)
	if m == nil {
		return "", "", false
	}
	symbol, _, _ = strings.Cut(strings.TrimSpace(m[3]), "  ")
	share = m[1]
	if m[2] != "" {
		share = m[2]
	}
	return symbol, share, true
}

// readReport reads a perf report: in the TUI's layout (a "Samples:" line,
// the entries, a blank line), as perf report --stdio writes it ("#"
// comment lines, entries with their call chains between blank lines, up to
// the end or the next event), or the entries alone as a mail quotes them.
// Each symbol's share becomes share_of_cycles_<symbol>; the same symbol
// under several commands or objects is summed, as the simulation has none.
func readReport(name string, lines []textLine, o Options) (block, int, error) {
	b := block{kind: "perf report"}
	stdio, header := false, false
	event, count := "", ""
	if m := reportSamples.FindStringSubmatch(lines[0].text); m != nil {
		stdio, header, event, count = m[1] != "", true, m[3], m[4]
	}
	shares := map[string]*point{}
	var order []string
	i := 0
	if header {
		i = 1
	}
	for ; i < len(lines); i++ {
		text, n := lines[i].text, lines[i].n
		if i > 0 && reportSamples.MatchString(text) {
			break // the next event
		}
		if m := reportCount.FindStringSubmatch(text); m != nil && stdio {
			count = m[1]
			continue
		}
		sym, share, ok := reportEntry(text)
		switch {
		case ok:
			v, err := number(share)
			if err != nil {
				return b, i, fmt.Errorf("%s:%d: perf report: %v", name, n, err)
			}
			if p := shares[sym]; p != nil {
				p.value += v
				p.source += fmt.Sprintf(" + %d: %s%%", n, share)
				continue
			}
			shares[sym] = &point{line: n, metric: "share_of_cycles_" + sym, unit: "%", value: v,
				source: fmt.Sprintf("%s:%d: perf report, %s %s%%", name, n, sym, share)}
			order = append(order, sym)
		case strings.TrimSpace(text) == "":
			if !stdio && len(order) > 0 {
				return reportPoints(name, b, lines[0].n, event, count, shares, order, o), i, nil
			}
		case stdio && !strings.HasPrefix(text, "#") && !strings.HasPrefix(text, " ") && !strings.HasPrefix(text, "\t"):
			// Call chains are indented: a line that is not ends the file's
			// report (text after it in a mail).
			return reportPoints(name, b, lines[0].n, event, count, shares, order, o), i, nil
		case !header && len(order) > 0:
			return reportPoints(name, b, lines[0].n, event, count, shares, order, o), i, nil
		}
	}
	return reportPoints(name, b, lines[0].n, event, count, shares, order, o), i, nil
}

// reportPoints makes the figures of a report: its symbols' shares of at
// least o.MinShare, and the cycles per packet its event count estimates.
// A report of another event (instructions, cache-misses) is noted and
// skipped: its shares are not shares of cycles.
func reportPoints(name string, b block, line int, event, count string, shares map[string]*point, order []string, o Options) block {
	base, _, _ := strings.Cut(event, ":")
	if _, inner, ok := strings.Cut(base, "/"); ok {
		base = strings.TrimSuffix(inner, "/") // a PMU's event: cpu_core/cycles/
	}
	if event != "" && !cyclesEvents[base] {
		b.notes = append(b.notes, fmt.Sprintf("a report of event %q, skipped: contend compares shares of cycles; record with perf record -e cycles", event))
		return b
	}
	if base == "cycles" && count != "" && o.Packets > 0 {
		// The sampled event count is an estimate of the cycles the report
		// covers.
		c, _ := number(count)
		b.points = append(b.points, point{line: line, metric: "cycles_per_packet", unit: "cycles", value: c / o.Packets,
			source: fmt.Sprintf("%s:%d: perf report event count %s cycles over %s packets", name, line, count, strconv.FormatFloat(o.Packets, 'g', -1, 64))})
	}
	for _, sym := range order {
		if p := shares[sym]; p.value >= o.MinShare {
			p.value = min(p.value, 100) // rounding of summed entries
			b.points = append(b.points, *p)
		}
	}
	return b
}

// keepModelled drops the symbols of a report that no step of its variant
// is labelled with, noting them: the simulation would give them 0%, an
// error no fit can move.
func keepModelled(b *block, s *scenarios.Scenario) {
	have := s.Labels(b.variant)
	var dropped []string
	b.points = slices.DeleteFunc(b.points, func(p point) bool {
		sym, ok := strings.CutPrefix(p.metric, "share_of_cycles_")
		if ok && !slices.Contains(have, sym) {
			dropped = append(dropped, fmt.Sprintf("%s %s%%", sym, report.Num(p.value)))
			return true
		}
		return false
	})
	if len(dropped) > 0 {
		b.notes = append(b.notes, fmt.Sprintf("not simulated in %s %s, so not references: %s", s.Name, b.variant, strings.Join(dropped, ", ")))
	}
}
