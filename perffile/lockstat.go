package perffile

import (
	"fmt"
	"regexp"
	"strings"
)

// A lockClass is one lock class of /proc/lock_stat, its read and write
// rows summed.
type lockClass struct {
	row          int // the line of its first row
	name         string
	contentions  float64
	acquisitions float64
	waitTotalUs  float64 // waittime-total, in microseconds
}

func (c lockClass) same(d lockClass) bool {
	return c.name == d.name && c.contentions == d.contentions && c.acquisitions == d.acquisitions && c.waitTotalUs == d.waitTotalUs
}

var (
	lockStatVersion = regexp.MustCompile(`^\s*lock_stat version (\S+)\s*$`)
	// lockStatRow is a class's row (kernel/locking/lockdep_proc.c,
	// seq_stats): its name right-aligned in 40 columns, "-W" or "-R" for
	// a reader-writer lock's two rows, a colon, then twelve figures.
	lockStatRow = regexp.MustCompile(`^\s*(\S.*?)(-[WR])?:((?:\s+\S+){12})\s*$`)
	// lockStatPoint is a contention point under a class: its name, a
	// count, the code address and its symbol.
	lockStatPoint = regexp.MustCompile(`^\s*\S.*?\s+[0-9]+\s+\[<[0-9a-fA-Fx]+>\]\s+\S.*$`)
	lockStatRule  = regexp.MustCompile(`^\s*(-+|\.+)\s*$`)
)

// lockStatColumns are the columns of version 0.4, in order.
var lockStatColumns = []string{"class name", "con-bounces", "contentions", "waittime-min", "waittime-max", "waittime-total", "waittime-avg",
	"acq-bounces", "acquisitions", "holdtime-min", "holdtime-max", "holdtime-total", "holdtime-avg"}

func isLockStatStart(text string) bool { return lockStatVersion.MatchString(text) }

// readLockStat reads /proc/lock_stat as the kernel prints it: the version,
// a header between dashed rules, then per class its rows and contention
// points, classes apart by a rule of dots. Times are in microseconds. The
// table ends at the first line that is none of these.
func readLockStat(name string, lines []textLine, _ Options) (block, int, error) {
	b := block{kind: "lock_stat"}
	if v := lockStatVersion.FindStringSubmatch(lines[0].text)[1]; v != "0.4" {
		return b, 1, fmt.Errorf("%s:%d: lock_stat version %s: contend reads version 0.4, the layout of kernel/locking/lockdep_proc.c since 2.6.25", name, lines[0].n, v)
	}
	header := false
	i := 1
	for ; i < len(lines); i++ {
		text, n := lines[i].text, lines[i].n
		switch {
		case strings.TrimSpace(text) == "" || lockStatRule.MatchString(text) || strings.HasPrefix(text, "*WARNING*"):
		case strings.Contains(text, "class name"):
			if got := strings.Fields(strings.Replace(text, "class name", "class_name", 1)); len(got) != len(lockStatColumns) || strings.Join(got[1:], " ") != strings.Join(lockStatColumns[1:], " ") {
				return b, i, fmt.Errorf("%s:%d: lock_stat: the header names %d columns, not version 0.4's %s; copy /proc/lock_stat as the kernel prints it", name, n, len(got), strings.Join(lockStatColumns, ", "))
			}
			header = true
		case lockStatRow.MatchString(text):
			if !header {
				return b, i, fmt.Errorf("%s:%d: lock_stat: a class's row before the header (class name, con-bounces, contentions, ...); copy /proc/lock_stat from its first line", name, n)
			}
			if err := b.addLockRow(name, n, text); err != nil {
				return b, i, err
			}
		case lockStatPoint.MatchString(text):
		default:
			return b, i, nil
		}
	}
	return b, i, nil
}

// addLockRow adds a class's row to the block, to the class's other row
// if it has one (a reader-writer lock's -W and -R).
func (b *block) addLockRow(name string, n int, text string) error {
	m := lockStatRow.FindStringSubmatch(text)
	f := strings.Fields(m[3])
	v := make([]float64, len(f))
	for k, s := range f {
		var err error
		if v[k], err = number(s); err != nil {
			return fmt.Errorf("%s:%d: lock_stat: %s: %s: %v", name, n, m[1], lockStatColumns[k+1], err)
		}
	}
	c := lockClass{row: n, name: m[1], contentions: v[1], acquisitions: v[7], waitTotalUs: v[4]}
	if k := len(b.locks) - 1; m[2] != "" && k >= 0 && b.locks[k].name == c.name {
		b.locks[k].contentions += c.contentions
		b.locks[k].acquisitions += c.acquisitions
		b.locks[k].waitTotalUs += c.waitTotalUs
		return nil
	}
	b.locks = append(b.locks, c)
	return nil
}
