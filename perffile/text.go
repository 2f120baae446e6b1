package perffile

import (
	"bufio"
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

var (
	timeBench   = regexp.MustCompile(`time_bench: Type:(\S+) Per elem: (\d+) cycles\(tsc\) ([0-9.]+) ns`)
	reportStart = regexp.MustCompile(`Samples: \S+ of event '([^']+)', Event count \(approx\.\): (\d+)`)
	reportRow   = regexp.MustCompile(`^\s*[+-]?\s*([0-9.]+)%\s+(\S+)\s+(\[[^\]]*\]|\S+)\s+\[[k.]\]\s+(\S+)`)
	statStart   = regexp.MustCompile(`Performance counter stats for`)
	statCount   = regexp.MustCompile(`^\s*([0-9][0-9,.]*)\s+(?:msec\s+)?([a-zA-Z][\w:/-]*)`)
	statElapsed = regexp.MustCompile(`^\s*([0-9.]+) seconds time elapsed`)
	// statLike is a line laid out as a count (a value, an event, perf's
	// comment) whatever its value is: one that is not a count is refused
	// rather than dropped.
	statLike = regexp.MustCompile(`^\s*(\S+)\s+(?:msec\s+)?([a-zA-Z][\w:/-]*)\s*(?:#.*)?$`)
)

// parseText finds the perf stat runs, perf reports and time_bench lines of
// a text such as a mailing-list post. Quoted lines ("> ...") are skipped:
// they repeat an earlier message.
func parseText(name string, src []byte, o Options) ([]block, error) {
	var out []block
	var cur *block
	var counts map[string]float64
	title := ""
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	n := 0
	finish := func() error {
		if cur == nil {
			return nil
		}
		if cur.kind == "perf stat" {
			if err := statPoints(name, cur, counts, o.Packets); err != nil {
				return err
			}
		}
		if len(cur.points) > 0 {
			out = append(out, *cur)
		}
		cur = nil
		return nil
	}
	for sc.Scan() {
		n++
		text := sc.Text()
		if strings.HasPrefix(strings.TrimSpace(text), ">") {
			continue
		}
		src := func(what string) string { return fmt.Sprintf("%s:%d: %s", name, n, what) }
		switch {
		case timeBench.MatchString(text):
			if err := finish(); err != nil {
				return nil, err
			}
			m := timeBench.FindStringSubmatch(text)
			ns, err := number(m[3])
			if err != nil {
				return nil, fmt.Errorf("%s:%d: time_bench: %v", name, n, err)
			}
			out = append(out, block{line: n, kind: "time_bench", title: title, variant: m[1],
				points: []point{{line: n, metric: "cost", unit: "ns", value: ns, source: src("time_bench " + m[1] + ", " + m[2] + " cycles(tsc)")}}})
		case reportStart.MatchString(text):
			if err := finish(); err != nil {
				return nil, err
			}
			cur = &block{line: n, kind: "perf report", title: title}
			if m := reportStart.FindStringSubmatch(text); m[1] == "cycles" && o.Packets > 0 {
				// The sampled event count is an estimate of the cycles the
				// report covers.
				c, _ := number(m[2])
				cur.points = append(cur.points, point{line: n, metric: "cycles_per_packet", unit: "cycles", value: c / o.Packets,
					source: src(fmt.Sprintf("perf report event count %s cycles over %s packets", m[2], strconv.FormatFloat(o.Packets, 'g', -1, 64)))})
			}
		case statStart.MatchString(text):
			if err := finish(); err != nil {
				return nil, err
			}
			cur, counts = &block{line: n, kind: "perf stat", title: title}, map[string]float64{}
		case cur != nil && cur.kind == "perf report" && reportRow.MatchString(text):
			m := reportRow.FindStringSubmatch(text)
			share, err := number(m[1])
			if err != nil {
				return nil, fmt.Errorf("%s:%d: perf report: %v", name, n, err)
			}
			if share >= o.MinShare {
				cur.points = append(cur.points, point{line: n, metric: "share_of_cycles_" + m[4], unit: "%", value: share,
					source: src("perf report, " + m[4] + " " + m[1] + "%")})
			}
		case cur != nil && cur.kind == "perf stat" && statElapsed.MatchString(text):
			s, err := number(statElapsed.FindStringSubmatch(text)[1])
			if err != nil {
				return nil, fmt.Errorf("%s:%d: perf stat: %v", name, n, err)
			}
			counts["elapsed"] = s
			if err := finish(); err != nil {
				return nil, err
			}
		case cur != nil && cur.kind == "perf stat" && statCount.MatchString(text):
			m := statCount.FindStringSubmatch(text)
			v, err := number(m[1])
			if err != nil {
				return nil, fmt.Errorf("%s:%d: perf stat: %s: %v", name, n, m[2], err)
			}
			counts[m[2]] = v
		case cur != nil && cur.kind == "perf stat" && statLike.MatchString(text):
			m := statLike.FindStringSubmatch(text)
			return nil, fmt.Errorf("%s:%d: perf stat: %s: %q is not a count; perf stat writes a count as digits with commas (1,234,567): copy the line from its output, or remove it", name, n, m[2], m[1])
		case strings.TrimSpace(text) == "":
			if cur != nil && cur.kind == "perf report" && len(cur.points) > 0 {
				if err := finish(); err != nil {
					return nil, err
				}
			}
		case cur == nil:
			title = strings.TrimSpace(text)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %v", name, n+1, err)
	}
	if err := finish(); err != nil {
		return nil, err
	}
	return out, nil
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
