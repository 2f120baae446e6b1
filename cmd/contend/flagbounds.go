package main

import (
	"flag"
	"fmt"
	"math"
	"strconv"
	"time"

	"gonum.org/v1/plot/vg"

	"contend/cpu"
	"contend/figures"
	"contend/scenarios"
	"contend/sim"
)

// flagBound is the range a numeric flag may take and what to give instead.
type flagBound struct {
	lo, hi float64
	give   string // what the flag takes, read after "give"
}

// flagBounds holds the range of every numeric flag of every command, by
// name, or by "command name" where a command's flag means something else.
// Each bound keeps one answer within seconds and within a gigabyte: a count
// or size beyond it is refused before anything is simulated or drawn.
var flagBounds = map[string]flagBound{
	"seed":              {math.MinInt64, math.MaxInt64, "a whole number"},
	"jobs":              {1, 4096, "a number of points to simulate at once"},
	"max-events":        {0, 100 * scenarios.DefaultMaxEvents, "a bound on the simulated events of one point (0: the scenario's own)"},
	"uncertainty":       {0, 1000, "a number of samples (20 or more for a useful 90% interval; 0: none)"},
	"scan":              {0, 10000, "a number of values to try (0: none)"},
	"shard-count":       {0, 100000, "the number of slices N (0: the array's own count)"},
	"trace":             {0, maxTrace, "a number of line transfers to list"},
	"trace-from":        {0, float64(scenarios.MaxRunTime / sim.Nanosecond), "a time into the measured interval, such as 4ms"},
	"explain cores":     {0, cpu.MaxCPUs, "a number of flood CPUs (0: the workload's)"},
	"advise cores":      {1, cpu.MaxCPUs, "a number of CPUs"},
	"plot replications": {0, 1000, "a number of runs per point (0: the scenario's [run] replications)"},
	"plot width":        {1, float64(figures.MaxWidth / vg.Inch), "a width in inches (3.4: one column of a two-column paper)"},
	"plot window":       {1, float64(scenarios.MaxRunTime / sim.Nanosecond), "a span of simulated time, such as 100ms"},
	"plot x":            {-1e15, 1e15, "a point on the series axis"},
	"import x":          {-1e15, 1e15, "the axis value of the points"},
	"import packets":    {0, 1e18, "the packets processed while perf counted (0: none)"},
	"min-share":         {0, 100, "a share of cycles in percent"},
	"compare-line":      {0, math.MaxInt32, "the line a block of the file starts at (0: its only block)"},
}

// boundOf returns the bound of flag f of command cmd. A numeric flag with no
// bound is a defect of this table, found by any run of the command.
func boundOf(cmd string, f *flag.Flag) (flagBound, bool) {
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return flagBound{}, false
	}
	switch g.Get().(type) {
	case int, int64, uint, uint64, float64, time.Duration:
	default:
		return flagBound{}, false
	}
	if b, ok := flagBounds[cmd+" "+f.Name]; ok {
		return b, true
	}
	if b, ok := flagBounds[f.Name]; ok {
		return b, true
	}
	panic(fmt.Sprintf("contend: numeric flag --%s of %s has no bound in flagBounds", f.Name, cmd))
}

// checkBounds refuses a numeric flag given outside its range: NaN, an
// infinity, or a count or size past what one answer may cost. Defaults are
// not checked (they are ours), but every numeric flag must have a bound.
func checkBounds(fs *flag.FlagSet, cmd string) error {
	var err error
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	fs.VisitAll(func(f *flag.Flag) {
		b, ok := boundOf(cmd, f)
		if !ok || !set[f.Name] || err != nil {
			return
		}
		if v := numberOf(f.Value.(flag.Getter).Get()); !(v >= b.lo && v <= b.hi) {
			_, dur := f.Value.(flag.Getter).Get().(time.Duration)
			err = fmt.Errorf("--%s %s: give %s, from %s to %s", f.Name, f.Value, b.give, boundText(b.lo, dur), boundText(b.hi, dur))
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

func boundText(v float64, dur bool) string {
	if dur {
		return time.Duration(v).String()
	}
	if v == math.Trunc(v) && math.Abs(v) < 1e12 {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}
