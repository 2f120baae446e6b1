package perffile

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// A c2cLine is one cacheline of a perf c2c report: its row of the Shared
// Data Cache Line Table and the symbols its Pareto lists.
type c2cLine struct {
	row     int // the line of its table row
	index   string
	address uint64
	hitm    float64 // local and remote HITMs
	loads   float64
	symbols []string
}

func (l c2cLine) equal(m c2cLine) bool {
	return l.address == m.address && l.hitm == m.hitm && l.loads == m.loads && slices.Equal(l.symbols, m.symbols)
}

var (
	c2cTitle = regexp.MustCompile(`^\s*(Trace Event Information|Global Shared Cache Line Event Information|c2c details|Shared Data Cache Line Table|Shared Cache Line Distribution Pareto)\s*$`)
	c2cDots  = regexp.MustCompile(`^#[ .]*\.[ .]*$`)
	c2cSym   = regexp.MustCompile(`\[[k.guH]\] (\S+)`)
)

// isC2CStart says whether a line opens a perf c2c report: the title of
// its first section, or of its table where a mail quotes only that.
func isC2CStart(text string) bool {
	m := c2cTitle.FindStringSubmatch(text)
	return m != nil && (m[1] == "Trace Event Information" || m[1] == "Shared Data Cache Line Table")
}

// readC2C reads a perf c2c report --stdio (tools/perf/builtin-c2c.c): the
// statistics sections it skips, the Shared Data Cache Line Table (a row of
// counts per cacheline under two header lines and a line of dots, one run
// per column) and the Shared Cache Line Distribution Pareto (per
// cacheline, a row of counts ending in its address between dashed lines,
// then a row per offset and code address naming the symbol). Its lines
// are indented; the report ends at the first line that is not.
func readC2C(name string, lines []textLine, _ Options) (block, int, error) {
	b := block{kind: "perf c2c"}
	section := ""
	var header []string // the table's header lines
	var cols []c2cColumn
	var cur *c2cLine // the Pareto's cacheline
	byAddr := map[uint64]int{}
	i := 0
	for ; i < len(lines); i++ {
		text, n := lines[i].text, lines[i].n
		if m := c2cTitle.FindStringSubmatch(text); m != nil {
			section = m[1]
			continue
		}
		if text != "" && !strings.ContainsAny(text[:1], " \t#=") {
			break
		}
		blank := strings.TrimSpace(text) == ""
		switch {
		case strings.HasPrefix(strings.TrimSpace(text), "="): // a section's rules
		case section == "Shared Data Cache Line Table" && strings.HasPrefix(text, "#"):
			if c2cDots.MatchString(text) {
				if len(header) < 2 {
					return b, i, fmt.Errorf("%s:%d: perf c2c: the Shared Data Cache Line Table's line of dots follows %d header lines, not 2; copy the table with its header as perf c2c report --stdio prints it", name, n, len(header))
				}
				var err error
				if cols, err = c2cColumns(name, n, header[len(header)-2], header[len(header)-1], text); err != nil {
					return b, i, err
				}
			} else if strings.TrimSpace(text) != "#" {
				header = append(header, text)
			}
		case section == "Shared Data Cache Line Table" && !blank:
			if cols == nil {
				return b, i, fmt.Errorf("%s:%d: perf c2c: a row of the Shared Data Cache Line Table before its header; copy the table with its '#' header lines", name, n)
			}
			l, err := c2cRow(name, n, text, cols)
			if err != nil {
				return b, i, err
			}
			if _, dup := byAddr[l.address]; dup {
				return b, i, fmt.Errorf("%s:%d: perf c2c: cacheline %#x is listed twice; give one report", name, n, l.address)
			}
			byAddr[l.address] = len(b.lines)
			b.lines = append(b.lines, l)
		case section == "Shared Cache Line Distribution Pareto" && !blank && !strings.HasPrefix(text, "#") && !strings.HasPrefix(strings.TrimSpace(text), "---"):
			f := strings.Fields(text)
			if m := c2cSym.FindStringSubmatch(text); m != nil {
				if cur == nil {
					return b, i, fmt.Errorf("%s:%d: perf c2c: a Pareto offset row before the row of its cacheline; copy the Pareto with its dashed cacheline rows", name, n)
				}
				if !slices.Contains(cur.symbols, m[1]) {
					cur.symbols = append(cur.symbols, m[1])
				}
				continue
			}
			addr, err := strconv.ParseUint(strings.TrimPrefix(f[len(f)-1], "0x"), 16, 64)
			k, listed := byAddr[addr]
			if err != nil || !strings.HasPrefix(f[len(f)-1], "0x") || !listed {
				return b, i, fmt.Errorf("%s:%d: perf c2c: a Pareto cacheline row ends in its address (0x...) from the Shared Data Cache Line Table, not %q", name, n, f[len(f)-1])
			}
			cur = &b.lines[k]
		}
	}
	if len(b.lines) == 0 {
		return b, i, fmt.Errorf("%s:%d: perf c2c: no Shared Data Cache Line Table with rows in the report; copy it whole, as perf c2c report --stdio prints it", name, lines[0].n)
	}
	return b, i, nil
}

// A c2cColumn is one column of the table: its group (the header line
// above it, "Load Hitm") and name ("Total"), and where it starts and ends.
type c2cColumn struct {
	group, name string
	from, to    int
}

// c2cColumns reads the table's columns from its header: the line of dots
// has a run of dots per column as wide as it is; a name is right-aligned
// over its run, a group spans its columns between dashes.
func c2cColumns(name string, n int, groups, names, dots string) ([]c2cColumn, error) {
	var cols []c2cColumn
	for _, r := range regexp.MustCompile(`\.+`).FindAllStringIndex(dots, -1) {
		cols = append(cols, c2cColumn{name: strings.TrimSpace(cut(names, r[0], r[1])), from: r[0], to: r[1]})
	}
	for _, g := range regexp.MustCompile(`\S+(?: \S+)*`).FindAllStringIndex(groups, -1) {
		label := strings.Trim(groups[g[0]:g[1]], "-# ")
		for k := range cols {
			if cols[k].from < g[1] && g[0] < cols[k].to {
				cols[k].group = label
			}
		}
	}
	var missing []string
	for _, want := range [][2]string{{"Cacheline", "Address"}, {"Hitm", ""}, {"Total", "Loads"}} {
		if c2cFind(cols, want[0], want[1]) < 0 && (want[0] != "Hitm" || c2cFind(cols, "Hitm", "Lcl") < 0) {
			missing = append(missing, strings.TrimSpace(want[0]+" "+want[1]))
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%s:%d: perf c2c: the Shared Data Cache Line Table has no %s column; contend reads the table of perf c2c report --stdio sorted on HITMs (its default, not -d peer)", name, n, strings.Join(missing, ", "))
	}
	return cols, nil
}

// cut is s[from:to], clipped to s.
func cut(s string, from, to int) string {
	from, to = min(from, len(s)), min(to, len(s))
	return s[from:to]
}

// c2cFind is the index of the column whose group holds group and whose
// name starts with name ("" for the group's Total), or -1.
func c2cFind(cols []c2cColumn, group, name string) int {
	return slices.IndexFunc(cols, func(c c2cColumn) bool {
		if !strings.Contains(c.group, group) || strings.HasPrefix(c.group, "Tot") && group == "Hitm" {
			return false
		}
		if name == "" {
			return c.name == "Total"
		}
		return strings.HasPrefix(c.name, name)
	})
}

// c2cRow reads one row of the table: one field per column.
func c2cRow(name string, n int, text string, cols []c2cColumn) (c2cLine, error) {
	f := strings.Fields(text)
	if len(f) != len(cols) {
		return c2cLine{}, fmt.Errorf("%s:%d: perf c2c: a row of the Shared Data Cache Line Table has %d fields, its header %d columns; copy the row as perf prints it", name, n, len(f), len(cols))
	}
	l := c2cLine{row: n, index: f[0]}
	get := func(group, col string) (float64, error) {
		k := c2cFind(cols, group, col)
		v, err := number(f[k])
		if err != nil {
			return 0, fmt.Errorf("%s:%d: perf c2c: %s %s: %v", name, n, cols[k].group, cols[k].name, err)
		}
		return v, nil
	}
	addr := f[c2cFind(cols, "Cacheline", "Address")]
	a, err := strconv.ParseUint(strings.TrimPrefix(addr, "0x"), 16, 64)
	if err != nil || !strings.HasPrefix(addr, "0x") {
		return l, fmt.Errorf("%s:%d: perf c2c: cacheline address %q is not hexadecimal (0x...)", name, n, addr)
	}
	l.address = a
	if c2cFind(cols, "Hitm", "") >= 0 {
		l.hitm, err = get("Hitm", "")
	} else { // perf 4.x: Lcl and Rmt alone
		var lcl, rmt float64
		if lcl, err = get("Hitm", "Lcl"); err == nil {
			rmt, err = get("Hitm", "Rmt")
		}
		l.hitm = lcl + rmt
	}
	if err == nil {
		l.loads, err = get("Total", "Loads")
	}
	return l, err
}
