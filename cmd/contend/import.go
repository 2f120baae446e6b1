package main

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"contend/report"
	"contend/scenarios"
)

// A block is one measurement found in an imported file: a perf stat run, a
// perf report, a time_bench line, or the rows of a table. Its points become
// [[series.reference]] entries.
type block struct {
	line    int    // where it starts, 1-based
	kind    string // "perf stat", "perf report", "time_bench" or "table"
	title   string // the line before it, which says what was measured
	variant string // from the file itself (a table's column, time_bench's Type)
	points  []point
}

type point struct {
	line          int
	variant, axis string // a table's own, else the command line's
	x             float64
	hasX          bool
	metric, unit  string
	value         float64
	role, source  string
}

// importOptions are what the file does not say.
type importOptions struct {
	variants []string // one per block without its own, in order
	axis     string
	x        float64
	packets  float64 // packets in a perf stat run
	minShare float64 // smallest perf report share kept, %
	role     string
}

func cmdImport(args []string, stdout, stderr io.Writer) error {
	var o options
	fs := newFlags("import", &o, stderr, "text")
	variants := fs.String("variant", "", "the variant of each block found, in order, comma-separated (time_bench blocks name their own)")
	var io importOptions
	fs.StringVar(&io.axis, "axis", "", "the axis of the points (default: the series' axis)")
	fs.Float64Var(&io.x, "x", 1, "the axis value of the points")
	fs.Float64Var(&io.packets, "packets", 0, "packets processed during a perf stat run (for the per-packet metrics)")
	fs.Float64Var(&io.minShare, "min-share", 1, "keep perf report symbols with at least this `percent` of cycles")
	fs.StringVar(&io.role, "role", "validate", "role of the points: validate or calibrate")
	if err := parse(fs, &o, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("name one file: contend import table.csv, or contend import perf.txt --variant locked --packets 1000000")
	}
	if *variants != "" {
		io.variants = strings.Split(*variants, ",")
	}
	if io.role != "validate" && io.role != "calibrate" {
		return fmt.Errorf("--role %q: use validate or calibrate", io.role)
	}
	path := fs.Arg(0)
	if err := o.files.read("the input "+path, path); err != nil {
		return err
	}
	src, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	out, err := importFile(filepath.Base(path), src, io)
	if err != nil {
		return err
	}
	return emit(&o, stdout, bytes.NewBufferString(out))
}

// importFile turns a measured file into [[series.reference]] blocks.
func importFile(name string, src []byte, o importOptions) (string, error) {
	var blocks []block
	var err error
	if isTable(src) {
		blocks, err = parseTable(name, src, o)
	} else {
		blocks, err = parseText(name, src, o)
	}
	if err != nil {
		return "", err
	}
	if len(blocks) == 0 {
		return "", fmt.Errorf("%s: no perf stat, perf report, time_bench or table (variant,axis,x,metric,value,unit) in it", name)
	}
	if err := assignVariants(name, blocks, o.variants); err != nil {
		return "", err
	}
	for _, bl := range blocks {
		for _, p := range bl.points {
			if math.IsNaN(p.value) || math.IsInf(p.value, 0) {
				return "", fmt.Errorf("%s:%d: %s: %s %s is not a finite number; check the counts and --packets", name, p.line, bl.kind, p.metric, strconv.FormatFloat(p.value, 'g', -1, 64))
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# contend import %s: %d blocks; add these to a [[series]] of the scenario\n", report.CommentText(name), len(blocks))
	for _, bl := range blocks {
		fmt.Fprintf(&b, "\n# %s:%d: %s", report.CommentText(name), bl.line, bl.kind)
		if bl.title != "" {
			fmt.Fprintf(&b, " (%s)", report.CommentText(bl.title))
		}
		b.WriteString("\n")
		for _, p := range bl.points {
			writeReference(&b, p, o)
		}
	}
	return b.String(), nil
}

func writeReference(b *strings.Builder, p point, o importOptions) {
	b.WriteString("[[series.reference]]\n")
	fmt.Fprintf(b, "variant = %s\n", scenarios.Quote(p.variant))
	axis, x := o.axis, o.x
	if p.axis != "" {
		axis = p.axis
	}
	if p.hasX {
		x = p.x
	}
	if axis != "" {
		fmt.Fprintf(b, "axis = %s\n", scenarios.Quote(axis))
	}
	fmt.Fprintf(b, "x = %s\n", strconv.FormatFloat(x, 'g', -1, 64))
	fmt.Fprintf(b, "metric = %s\nvalue = %s\nunit = %s\n", scenarios.Quote(p.metric), strconv.FormatFloat(p.value, 'g', 8, 64), scenarios.Quote(p.unit))
	role := o.role
	if p.role != "" {
		role = p.role
	}
	fmt.Fprintf(b, "role = %s\nsource = %s\n", scenarios.Quote(role), scenarios.Quote(p.source))
}

// assignVariants gives every block without a variant of its own the next
// one from the command line; the counts must match.
func assignVariants(name string, blocks []block, variants []string) error {
	var need []string
	for _, bl := range blocks {
		if bl.variant == "" {
			need = append(need, fmt.Sprintf("line %d %s %q", bl.line, bl.kind, bl.title))
		}
	}
	if len(variants) != len(need) && !(len(need) == 0 && len(variants) == 1) {
		return fmt.Errorf("%s: %d blocks need a variant (%s) but --variant gives %d; give one per block, in order, e.g. --variant %s",
			name, len(need), strings.Join(need, "; "), len(variants), strings.Repeat("NAME,", max(len(need), 1)-1)+"NAME")
	}
	i := 0
	for k := range blocks {
		bl := &blocks[k]
		if bl.variant == "" {
			bl.variant = variants[i]
			i++
		} else if len(need) == 0 && len(variants) == 1 {
			bl.variant = variants[0]
		}
		for j := range bl.points {
			if bl.points[j].variant == "" {
				bl.points[j].variant = bl.variant
			}
		}
	}
	return nil
}

// isTable says whether src is a CSV table: its first line is a header
// naming the columns.
func isTable(src []byte) bool {
	first, _, _ := bytes.Cut(bytes.TrimLeft(src, " \t\r\n"), []byte("\n"))
	return bytes.HasPrefix(bytes.TrimSpace(first), []byte("variant,"))
}

// csvError says where a table is not CSV: its line and column, and how a
// field with quotes is written.
func csvError(name string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s:%d: column %d: %v; a field with a quote or a comma in it is written in quotes, each quote in it doubled: \"a \"\"b\"\", c\"", name, pe.Line, pe.Column, pe.Err)
	}
	return fmt.Errorf("%s: %v", name, err)
}

var tableColumns = []string{"variant", "axis", "x", "metric", "value", "unit"}

// parseTable reads a CSV of measured points: variant, axis, x, metric,
// value, unit, and optionally role and source. Every row is one block.
func parseTable(name string, src []byte, o importOptions) ([]block, error) {
	r := csv.NewReader(bytes.NewReader(src))
	r.FieldsPerRecord = -1
	header, err := r.Read()
	if err != nil {
		return nil, csvError(name, err)
	}
	col := map[string]int{}
	for i, h := range header {
		col[strings.TrimSpace(h)] = i
	}
	for _, c := range tableColumns {
		if _, ok := col[c]; !ok {
			return nil, fmt.Errorf("%s:1: no column %q; the header is %s (role and source may follow)", name, c, strings.Join(tableColumns, ","))
		}
	}
	var out []block
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, csvError(name, err)
		}
		line, _ := r.FieldPos(0)
		get := func(c string) string {
			if i, ok := col[c]; ok && i < len(rec) {
				return strings.TrimSpace(rec[i])
			}
			return ""
		}
		p := point{line: line, variant: get("variant"), axis: get("axis"), metric: get("metric"), unit: get("unit"),
			role: get("role"), source: get("source"), hasX: true}
		if p.variant == "" {
			return nil, fmt.Errorf("%s:%d: variant is empty; name the variant the row measured", name, line)
		}
		if p.x, err = number(get("x")); err != nil {
			return nil, fmt.Errorf("%s:%d: x: %v", name, line, err)
		}
		if p.value, err = number(get("value")); err != nil {
			return nil, fmt.Errorf("%s:%d: value: %v", name, line, err)
		}
		if err := scenarios.CheckMetric(p.metric, p.unit); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, line, err)
		}
		if p.role != "" && p.role != "validate" && p.role != "calibrate" {
			return nil, fmt.Errorf("%s:%d: role %q: use validate or calibrate, or leave it empty for --role", name, line, p.role)
		}
		if p.source == "" {
			p.source = fmt.Sprintf("%s:%d", name, line)
		}
		out = append(out, block{line: line, kind: "table", variant: p.variant, points: []point{p}})
	}
}

// number parses a measured value: finite, written plainly or with
// thousands separators as perf prints them (1,234,567; not 1,2,3,,4).
func number(s string) (float64, error) {
	plain := s
	if strings.Contains(s, ",") {
		if !grouped.MatchString(s) {
			return 0, fmt.Errorf("%q is not a number; write it plainly or with a comma between each three digits, as perf does (1,234,567)", s)
		}
		plain = strings.ReplaceAll(s, ",", "")
	}
	v, err := strconv.ParseFloat(plain, 64)
	if err != nil || v != v || v > 1e300 || v < -1e300 {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	return v, nil
}

var grouped = regexp.MustCompile(`^[+-]?[0-9]{1,3}(,[0-9]{3})+(\.[0-9]*)?$`)

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
func parseText(name string, src []byte, o importOptions) ([]block, error) {
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
			if err := statPoints(name, cur, counts, o.packets); err != nil {
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
			if m := reportStart.FindStringSubmatch(text); m[1] == "cycles" && o.packets > 0 {
				// The sampled event count is an estimate of the cycles the
				// report covers.
				c, _ := number(m[2])
				cur.points = append(cur.points, point{line: n, metric: "cycles_per_packet", unit: "cycles", value: c / o.packets,
					source: src(fmt.Sprintf("perf report event count %s cycles over %s packets", m[2], strconv.FormatFloat(o.packets, 'g', -1, 64)))})
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
			if share >= o.minShare {
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
