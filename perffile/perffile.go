package perffile

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"contend/report"
	"contend/scenarios"
)

// Options are what the file does not say.
type Options struct {
	Variants []string // one per block without its own, in order
	Axis     string   // of every point without its own ("": the series')
	X        float64  // of every point without its own
	Packets  float64  // packets in a perf stat run
	MinShare float64  // smallest perf report share kept, %
	Role     string   // validate or calibrate, for the points without their own
	// Scenario is the scenario whose lines and locks a perf c2c report's
	// cachelines and a lock_stat's classes are matched to; Lines gives a
	// line's cacheline address (0x...), Locks a lock's class, where the
	// symbols and names do not say.
	Scenario *scenarios.Scenario
	Lines    map[string]string
	Locks    map[string]string

	keepAll bool // keep a report's symbols the scenario does not simulate
}

// Import turns a measured file into [[series.reference]] blocks.
func Import(name string, src []byte, o Options) (string, error) {
	blocks, err := read(name, src, o)
	if err != nil {
		return "", err
	}
	if err := assignVariants(name, blocks, o.Variants); err != nil {
		return "", err
	}
	if err := figures(name, blocks, o); err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# contend import %s: %d blocks; add these to a [[series]] of the scenario\n", report.CommentText(name), len(blocks))
	for _, bl := range blocks {
		fmt.Fprintf(&b, "\n# %s:%d: %s", report.CommentText(name), bl.line, bl.kind)
		if bl.title != "" {
			fmt.Fprintf(&b, " (%s)", report.CommentText(bl.title))
		}
		b.WriteString("\n")
		for _, note := range bl.notes {
			fmt.Fprintf(&b, "# %s\n", report.CommentText(note))
		}
		for _, p := range bl.points {
			writeReference(&b, p, o)
		}
	}
	return b.String(), nil
}

// read finds the blocks of a measured file: a table, or a text's perf
// output.
func read(name string, src []byte, o Options) ([]block, error) {
	var blocks []block
	var err error
	if isTable(src) {
		blocks, err = parseTable(name, src, o)
	} else {
		blocks, err = parseText(name, src, o)
	}
	if err != nil {
		return nil, err
	}
	if len(blocks) == 0 {
		return nil, fmt.Errorf("%s: no perf stat, perf report, perf c2c report, lock_stat, time_bench or table (variant,axis,x,metric,value,unit) in it", name)
	}
	return blocks, nil
}

// figures matches the blocks' lines and locks to the scenario's, once
// each block has its variant, and checks every figure is finite.
func figures(name string, blocks []block, o Options) error {
	for k := range blocks {
		bl := &blocks[k]
		if s := o.Scenario; s != nil && bl.measures() && s.Variant(bl.variant) == nil {
			return fmt.Errorf("%s:%d: %s: %s has no variant %q; give --variant one of %s", name, bl.line, bl.kind, s.Name, bl.variant, strings.Join(s.VariantNames(), ", "))
		}
		if err := matchObjects(name, bl, o); err != nil {
			return err
		}
		if bl.kind == "perf report" && o.Scenario != nil && !o.keepAll {
			keepModelled(bl, o.Scenario)
		}
		for j := range bl.points {
			p := &bl.points[j]
			if p.variant == "" {
				p.variant = bl.variant
			}
			if math.IsNaN(p.value) || math.IsInf(p.value, 0) {
				return fmt.Errorf("%s:%d: %s: %s %s is not a finite number; check the counts and --packets", name, p.line, bl.kind, p.metric, strconv.FormatFloat(p.value, 'g', -1, 64))
			}
		}
	}
	return nil
}

func writeReference(b *strings.Builder, p point, o Options) {
	b.WriteString("[[series.reference]]\n")
	fmt.Fprintf(b, "variant = %s\n", scenarios.Quote(p.variant))
	axis, x := o.Axis, o.X
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
	role := o.Role
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
		if bl.variant == "" && bl.measures() {
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
		switch {
		case !bl.measures():
		case bl.variant == "":
			bl.variant = variants[i]
			i++
		case len(need) == 0 && len(variants) == 1:
			bl.variant = variants[0]
		}
	}
	return nil
}

// A block is one measurement found in an imported file: a perf stat run, a
// perf report, a perf c2c report, a lock_stat table, a time_bench line, or
// the rows of a table. Its points become [[series.reference]] entries; a
// perf c2c report's cachelines and a lock_stat's classes become points
// once matched to the scenario's lines and locks.
type block struct {
	line    int    // where it starts, 1-based
	kind    string // "perf stat", "perf report", "perf c2c", "lock_stat", "time_bench" or "table"
	title   string // the line before it, which says what was measured
	variant string // from the file itself (a table's column, time_bench's Type)
	points  []point
	lines   []c2cLine
	locks   []lockClass
	notes   []string // what was skipped, and why
}

// objects counts the cachelines and lock classes still to match.
func (b *block) objects() int { return len(b.lines) + len(b.locks) }

// measures says whether the block has figures, and so needs a variant.
func (b *block) measures() bool { return len(b.points) > 0 || b.objects() > 0 }

type point struct {
	line          int
	variant, axis string // a table's own, else the command line's
	x             float64
	hasX          bool
	metric, unit  string
	value         float64
	role, source  string
}
