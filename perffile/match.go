package perffile

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"contend/scenarios"
)

// matchObjects turns the cachelines of a perf c2c block and the classes of
// a lock_stat block into references on the lines and locks of the
// scenario: a cacheline is a line's when the symbols the Pareto lists
// beside it include a label of a step that touches the line (a lock's,
// its acquire and release labels), or when o.Lines gives its address; a
// class is a lock's when o.Locks names it, or when its name holds the
// lock's as a word (&(&qdisc_lock)->rlock is qdisc_lock's).
func matchObjects(name string, b *block, o Options) error {
	if b.objects() == 0 {
		return nil
	}
	s := o.Scenario
	if s == nil {
		return fmt.Errorf("%s:%d: %s: give --scenario NAME: its lines and locks are matched to the report's", name, b.line, b.kind)
	}
	if b.kind == "lock_stat" {
		return lockPoints(name, b, o)
	}
	return linePoints(name, b, o)
}

// linePoints matches each shared line of the scenario to a cacheline and
// gives the matched ones their share of the HITMs and the HITMs of their
// loads.
func linePoints(name string, b *block, o Options) error {
	s := o.Scenario
	labels := s.LineLabels(b.variant)
	matched := map[string]int{} // line -> cacheline
	for _, line := range s.SharedLines() {
		k, err := matchLine(name, b, line, labels[line], o.Lines[line])
		if err != nil {
			return err
		}
		if k >= 0 {
			matched[line] = k
		}
	}
	for _, line := range slices.Sorted(maps.Keys(o.Lines)) {
		if !slices.Contains(s.SharedLines(), line) {
			return fmt.Errorf("--line %s=%s: %s has no shared line %q; its shared lines are %s", line, o.Lines[line], s.Name, line, strings.Join(s.SharedLines(), ", "))
		}
	}
	if len(matched) == 0 {
		return fmt.Errorf("%s:%d: perf c2c: no cacheline of the report matches a shared line of %s by symbol (%s); name each with --line LINE=0xADDRESS", name, b.line, s.Name, lineLabelList(labels))
	}
	byLine := map[int]string{}
	var total float64
	for _, line := range slices.Sorted(maps.Keys(matched)) {
		k := matched[line]
		if other, dup := byLine[k]; dup {
			return fmt.Errorf("%s:%d: perf c2c: lines %s and %s of %s both match cacheline %#x; the scenario keeps them apart: give each its own with --line LINE=0xADDRESS", name, b.lines[k].row, other, line, s.Name, b.lines[k].address)
		}
		byLine[k] = line
		total += b.lines[k].hitm
	}
	for _, line := range slices.Sorted(maps.Keys(matched)) {
		l := b.lines[matched[line]]
		at := fmt.Sprintf("%s:%d: perf c2c cacheline %#x", name, l.row, l.address)
		b.addPoint(l.row, scenarios.HITMShare+line, 100*l.hitm/total,
			fmt.Sprintf("%s, %s of the %s HITMs on the lines matched", at, plain(l.hitm), plain(total)))
		if l.loads > 0 {
			b.addPoint(l.row, scenarios.HITMOfLoads+line, 100*l.hitm/l.loads,
				fmt.Sprintf("%s, %s HITMs of %s loads", at, plain(l.hitm), plain(l.loads)))
		}
	}
	if n := len(b.lines) - len(matched); n > 0 {
		b.notes = append(b.notes, fmt.Sprintf("%d cachelines matched no line of %s", n, s.Name))
	}
	return nil
}

// matchLine finds the cacheline of one line: the one at addr if given,
// else the one whose symbols hold one of its labels; -1 if none does.
func matchLine(name string, b *block, line string, labels []string, addr string) (int, error) {
	if addr != "" {
		a, err := strconv.ParseUint(strings.TrimPrefix(addr, "0x"), 16, 64)
		if err != nil || !strings.HasPrefix(addr, "0x") {
			return -1, fmt.Errorf("--line %s=%s: give the cacheline's address as perf c2c prints it, 0x and hexadecimal digits", line, addr)
		}
		if k := slices.IndexFunc(b.lines, func(l c2cLine) bool { return l.address == a }); k >= 0 {
			return k, nil
		}
		return -1, fmt.Errorf("--line %s=%s: %s:%d: the perf c2c report lists no cacheline %#x; its cachelines are %s", line, addr, name, b.line, a, addressList(b.lines))
	}
	var found []int
	for k, l := range b.lines {
		if slices.ContainsFunc(l.symbols, func(sym string) bool {
			return slices.ContainsFunc(labels, func(lb string) bool { return sameSymbol(sym, lb) })
		}) {
			found = append(found, k)
		}
	}
	switch len(found) {
	case 0:
		return -1, nil
	case 1:
		return found[0], nil
	}
	var where []string
	for _, k := range found {
		where = append(where, fmt.Sprintf("%#x (line %d)", b.lines[k].address, b.lines[k].row))
	}
	return -1, fmt.Errorf("%s:%d: perf c2c: line %s's steps (%s) touch cachelines %s; say which with --line %s=0xADDRESS", name, b.line, line, strings.Join(labels, ", "), strings.Join(where, ", "), line)
}

// sameSymbol says whether a symbol of the Pareto is a label: perf c2c
// cuts a symbol to 26 characters, 30 with its "[k] ", unless given --full-symbols.
func sameSymbol(sym, label string) bool {
	return sym == label || len(sym) == 26 && strings.HasPrefix(label, sym)
}

func lineLabelList(labels map[string][]string) string {
	var out []string
	for _, line := range slices.Sorted(maps.Keys(labels)) {
		out = append(out, line+": "+strings.Join(labels[line], ", "))
	}
	return strings.Join(out, "; ")
}

func addressList(lines []c2cLine) string {
	var out []string
	for _, l := range lines {
		out = append(out, fmt.Sprintf("%#x", l.address))
	}
	return strings.Join(out, ", ")
}

var wordRE = regexp.MustCompile(`[A-Za-z0-9_]+`)

// lockPoints matches each lock of the scenario to a lock class and gives
// the matched ones the share of their acquisitions that were contended.
func lockPoints(name string, b *block, o Options) error {
	s := o.Scenario
	for _, lock := range slices.Sorted(maps.Keys(o.Locks)) {
		if !slices.Contains(s.LockNames(), lock) {
			return fmt.Errorf("--lock %s=%s: %s has no lock %q; its locks are %s", lock, o.Locks[lock], s.Name, lock, strings.Join(s.LockNames(), ", "))
		}
	}
	n := 0
	for _, lock := range s.LockNames() {
		var found []int
		for k, c := range b.locks {
			if class, ok := o.Locks[lock]; ok && c.name == class || !ok && slices.Contains(wordRE.FindAllString(c.name, -1), lock) {
				found = append(found, k)
			}
		}
		switch {
		case len(found) == 0 && o.Locks[lock] != "":
			return fmt.Errorf("--lock %s=%s: %s:%d: lock_stat lists no class %q", lock, o.Locks[lock], name, b.line, o.Locks[lock])
		case len(found) == 0:
			continue
		case len(found) > 1:
			return fmt.Errorf("%s:%d: lock_stat: classes %s all name lock %s; say which with --lock %s=CLASS", name, b.line, classList(b.locks, found), lock, lock)
		}
		c := b.locks[found[0]]
		n++
		if c.acquisitions == 0 {
			continue
		}
		wait := 0.0
		if c.contentions > 0 {
			wait = c.waitTotalUs / c.contentions
		}
		b.addPoint(c.row, scenarios.Contended+lock, 100*c.contentions/c.acquisitions,
			fmt.Sprintf("%s:%d: lock_stat %s, %s contentions of %s acquisitions, waittime-avg %.2f us", name, c.row, c.name, plain(c.contentions), plain(c.acquisitions), wait))
		if c.contentions > 0 {
			b.addPointIn(c.row, scenarios.MeanWait+lock, wait, "us",
				fmt.Sprintf("%s:%d: lock_stat %s, waittime-total %s us over %s contentions", name, c.row, c.name, plain(c.waitTotalUs), plain(c.contentions)))
		}
	}
	if n == 0 {
		return fmt.Errorf("%s:%d: lock_stat: no class names a lock of %s (%s); name each with --lock LOCK=CLASS", name, b.line, s.Name, strings.Join(s.LockNames(), ", "))
	}
	if k := len(b.locks) - n; k > 0 {
		b.notes = append(b.notes, fmt.Sprintf("%d lock classes name no lock of %s", k, s.Name))
	}
	return nil
}

// plain writes a count or a figure as it is, without an exponent.
func plain(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

func classList(classes []lockClass, found []int) string {
	var out []string
	for _, k := range found {
		out = append(out, fmt.Sprintf("%q (line %d)", classes[k].name, classes[k].row))
	}
	return strings.Join(out, ", ")
}

// addPoint adds a figure of a line or lock; one of 0 is noted, not kept:
// a reference's error is relative to its value.
func (b *block) addPoint(line int, metric string, value float64, source string) {
	b.addPointIn(line, metric, value, "%", source)
}

// addPointIn is addPoint for a figure in unit.
func (b *block) addPointIn(line int, metric string, value float64, unit, source string) {
	if value == 0 {
		b.notes = append(b.notes, fmt.Sprintf("%s is 0 (%s): not a reference, whose error is relative to it", metric, source))
		return
	}
	b.points = append(b.points, point{line: line, metric: metric, unit: unit, value: value, source: source})
}
