package perffile

import (
	"bufio"
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

var (
	timeBench   = regexp.MustCompile(`time_bench: Type:(\S+) Per elem: (\d+) cycles\(tsc\) ([0-9.]+) ns`)
	statStart   = regexp.MustCompile(`Performance counter stats for`)
	statCount   = regexp.MustCompile(`^\s*([0-9][0-9,.]*)\s+(?:msec\s+)?([a-zA-Z][\w:/-]*)`)
	statElapsed = regexp.MustCompile(`^\s*([0-9.]+) seconds time elapsed`)
	// statLike is a line laid out as a count (a value, an event, perf's
	// comment) whatever its value is: one that is not a count is refused
	// rather than dropped.
	statLike = regexp.MustCompile(`^\s*(\S+)\s+(?:msec\s+)?([a-zA-Z][\w:/-]*)\s*(?:#.*)?$`)
)

// A textLine is one line of a text, its quote marks taken off.
type textLine struct {
	n     int // 1-based
	depth int // the quote marks before it: ">> x" and "> > x" are 2
	text  string
}

// splitLines cuts src into lines and takes each one's quote marks off.
func splitLines(name string, src []byte) ([]textLine, error) {
	var out []textLine
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		t := strings.TrimRight(sc.Text(), "\r")
		depth := 0
		if rest := strings.TrimLeft(t, " \t"); strings.HasPrefix(rest, ">") {
			t = rest
			for {
				if r, ok := strings.CutPrefix(strings.TrimPrefix(t, " "), ">"); ok {
					t, depth = r, depth+1
					continue
				}
				break
			}
		}
		out = append(out, textLine{n: n, depth: depth, text: t})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %v", name, len(out)+1, err)
	}
	return out, nil
}

// A section reads one kind of block: starts says whether a line opens
// one, read consumes its lines from lines[0] on and says how many it took.
type section struct {
	starts func(text string) bool
	read   func(name string, lines []textLine, o Options) (block, int, error)
}

// sections are the blocks a text may hold, tried in order on each line
// (set by init: readStat looks for the start of the next).
var sections []section

func init() {
	sections = []section{
		{timeBench.MatchString, readTimeBench},
		{statStart.MatchString, readStat},
		{isC2CStart, readC2C},
		{isLockStatStart, readLockStat},
		{isReportStart, readReport},
	}
}

// startsBlock says whether a line opens a block of any kind.
func startsBlock(text string) bool {
	return slices.ContainsFunc(sections, func(s section) bool { return s.starts(text) })
}

// parseText finds the perf stat runs, perf reports, perf c2c reports,
// lock_stat tables and time_bench lines of a text such as a mailing-list
// post. Quoted lines ("> ...") are read as well, the quote marks taken off:
// a whole thread is often quoted. A block that repeats the figures of one
// found before it (a reply quoting the message) is dropped.
func parseText(name string, src []byte, o Options) ([]block, error) {
	lines, err := splitLines(name, src)
	if err != nil {
		return nil, err
	}
	// runEnd[i] is where the lines at the quote depth of line i end.
	runEnd := make([]int, len(lines))
	for i := len(lines) - 1; i >= 0; i-- {
		runEnd[i] = i + 1
		if i+1 < len(lines) && lines[i+1].depth == lines[i].depth {
			runEnd[i] = runEnd[i+1]
		}
	}
	var out []block
	title := ""
	for i := 0; i < len(lines); {
		l := lines[i]
		k := slices.IndexFunc(sections, func(s section) bool { return s.starts(l.text) })
		if k < 0 {
			if t := strings.TrimSpace(l.text); strings.ContainsFunc(t, unicode.IsLetter) && !strings.HasPrefix(t, "#") {
				title = t // the line that says what was measured, not a comment of perf's
			}
			i++
			continue
		}
		b, n, err := sections[k].read(name, lines[i:runEnd[i]], o)
		if err != nil {
			return nil, err
		}
		b.line, b.title = l.n, title
		title = ""
		i += max(n, 1)
		if (len(b.points) > 0 || b.objects() > 0 || len(b.notes) > 0) && !slices.ContainsFunc(out, b.repeats) {
			out = append(out, b)
		}
	}
	return out, nil
}

// repeats says whether b gives the same figures as a, found earlier: a
// quote of it.
func (b block) repeats(a block) bool {
	if a.kind != b.kind || len(a.points) != len(b.points) || len(a.lines) != len(b.lines) || len(a.locks) != len(b.locks) || a.variant != b.variant {
		return false
	}
	for i := range a.points {
		if a.points[i].metric != b.points[i].metric || a.points[i].value != b.points[i].value {
			return false
		}
	}
	return slices.EqualFunc(a.lines, b.lines, c2cLine.equal) && slices.EqualFunc(a.locks, b.locks, func(x, y lockClass) bool { return x.same(y) })
}

func readTimeBench(name string, lines []textLine, _ Options) (block, int, error) {
	n := lines[0].n
	m := timeBench.FindStringSubmatch(lines[0].text)
	ns, err := number(m[3])
	if err != nil {
		return block{}, 1, fmt.Errorf("%s:%d: time_bench: %v", name, n, err)
	}
	return block{kind: "time_bench", variant: m[1],
		points: []point{{line: n, metric: "cost", unit: "ns", value: ns, source: fmt.Sprintf("%s:%d: time_bench %s, %s cycles(tsc)", name, n, m[1], m[2])}}}, 1, nil
}

// readStat reads a perf stat run up to its elapsed time, or up to the
// next block.
func readStat(name string, lines []textLine, o Options) (block, int, error) {
	b := block{kind: "perf stat"}
	counts := map[string]float64{}
	i := 1
	for ; i < len(lines); i++ {
		text, n := lines[i].text, lines[i].n
		if startsBlock(text) {
			break
		}
		if m := statElapsed.FindStringSubmatch(text); m != nil {
			s, err := number(m[1])
			if err != nil {
				return b, i, fmt.Errorf("%s:%d: perf stat: %v", name, n, err)
			}
			counts["elapsed"] = s
			i++
			break
		}
		if m := statCount.FindStringSubmatch(text); m != nil {
			v, err := number(m[1])
			if err != nil {
				return b, i, fmt.Errorf("%s:%d: perf stat: %s: %v", name, n, m[2], err)
			}
			counts[m[2]] = v
		} else if m := statLike.FindStringSubmatch(text); m != nil {
			return b, i, fmt.Errorf("%s:%d: perf stat: %s: %q is not a count; perf stat writes a count as digits with commas (1,234,567): copy the line from its output, or remove it", name, n, m[2], m[1])
		}
	}
	b.line = lines[0].n
	return b, i, statPoints(name, &b, counts, o.Packets)
}

// statPoints turns a perf stat run's counts into per-packet metrics and a
// throughput, given how many packets it processed.
func statPoints(name string, b *block, counts map[string]float64, packets float64) error {
	if packets <= 0 {
		return fmt.Errorf("%s:%d: perf stat: give --packets N, the packets processed while it counted, to turn its counts into per-packet figures", name, b.line)
	}
	src := func(what string) string {
		return fmt.Sprintf("%s:%d: perf stat %s over %s packets", name, b.line, what, strconv.FormatFloat(packets, 'g', -1, 64))
	}
	if c, ok := counts["cycles"]; ok {
		b.points = append(b.points, point{line: b.line, metric: "cycles_per_packet", unit: "cycles", value: c / packets, source: src("cycles")})
	}
	if c, ok := counts["cache-references"]; ok {
		b.points = append(b.points, point{line: b.line, metric: "transfers_per_packet", unit: "lines", value: c / packets, source: src("cache-references")})
	}
	if s, ok := counts["elapsed"]; ok && s > 0 {
		b.points = append(b.points, point{line: b.line, metric: "throughput", unit: "Mpps", value: packets / s / 1e6, source: src("elapsed")})
	}
	if len(b.points) == 0 {
		found := slices.Sorted(func(yield func(string) bool) {
			for k := range counts {
				if !yield(k) {
					return
				}
			}
		})
		return fmt.Errorf("%s:%d: perf stat: no cycles, cache-references or elapsed time (found %s); count with perf stat -e cycles,cache-references", name, b.line, strings.Join(found, ", "))
	}
	return nil
}
