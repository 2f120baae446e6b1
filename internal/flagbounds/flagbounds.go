// Package flagbounds refuses a numeric command-line flag given outside its
// range: NaN, an infinity, or a count or size past what one answer of the
// tool may cost, with the range and what the flag takes in the error.
//
// # Use
//
// A command keeps a Table of every numeric flag's bound, by flag name or by
// "command name" where one command's flag means something else, and calls
// Check on its parsed flag set. A numeric flag with no bound in the table is
// a defect of the table: Check panics, so any run of the command finds it.
package flagbounds

import (
	"flag"
	"fmt"
	"math"
	"strconv"
	"time"
)

// Bound is the range a numeric flag may take and what to give instead.
type Bound struct {
	Lo, Hi float64
	Give   string // what the flag takes, read after "give"
}

// Table holds bounds by flag name, or by "command name".
type Table map[string]Bound

// of returns the bound of flag f of command cmd, and false for a flag that
// is not numeric.
func (t Table) of(cmd string, f *flag.Flag) (Bound, bool) {
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return Bound{}, false
	}
	switch g.Get().(type) {
	case int, int64, uint, uint64, float64, time.Duration:
	default:
		return Bound{}, false
	}
	if b, ok := t[cmd+" "+f.Name]; ok {
		return b, true
	}
	if b, ok := t[f.Name]; ok {
		return b, true
	}
	panic(fmt.Sprintf("flagbounds: numeric flag --%s of %s has no bound in its table", f.Name, cmd))
}

// Check refuses a numeric flag of fs set outside its bound. Defaults are not
// checked (they are the program's), but every numeric flag must have a bound.
func (t Table) Check(fs *flag.FlagSet, cmd string) error {
	var err error
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	fs.VisitAll(func(f *flag.Flag) {
		b, ok := t.of(cmd, f)
		if !ok || !set[f.Name] || err != nil {
			return
		}
		if v := numberOf(f.Value.(flag.Getter).Get()); !(v >= b.Lo && v <= b.Hi) {
			_, dur := f.Value.(flag.Getter).Get().(time.Duration)
			err = fmt.Errorf("--%s %s: give %s, from %s to %s", f.Name, f.Value, b.Give, text(b.Lo, dur), text(b.Hi, dur))
		}
	})
	return err
}

func numberOf(v any) float64 {
	switch v := v.(type) {
	case int:
		return float64(v)
	case int64:
		return float64(v)
	case uint:
		return float64(v)
	case uint64:
		return float64(v)
	case float64:
		return v
	case time.Duration:
		return float64(v)
	}
	return math.NaN()
}

func text(v float64, dur bool) string {
	if dur {
		return time.Duration(v).String()
	}
	if v == math.Trunc(v) && math.Abs(v) < 1e12 {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}
