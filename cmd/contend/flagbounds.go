package main

import (
	"math"

	"gonum.org/v1/plot/vg"

	"contend/cpu"
	"contend/figures"
	"contend/internal/flagbounds"
	"contend/scenarios"
	"contend/sim"
)

// flagBounds holds the range of every numeric flag of every command, by
// name, or by "command name" where a command's flag means something else.
// Each bound keeps one answer within seconds and within a gigabyte: a count
// or size beyond it is refused before anything is simulated or drawn.
var flagBounds = flagbounds.Table{
	"seed":              {Lo: math.MinInt64, Hi: math.MaxInt64, Give: "a whole number"},
	"jobs":              {Lo: 1, Hi: 4096, Give: "a number of points to simulate at once"},
	"max-events":        {Lo: 0, Hi: 100 * scenarios.DefaultMaxEvents, Give: "a bound on the simulated events of one point (0: the scenario's own)"},
	"uncertainty":       {Lo: 0, Hi: 1000, Give: "a number of samples (20 or more for a useful 90% interval; 0: none)"},
	"scan":              {Lo: 0, Hi: 10000, Give: "a number of values to try (0: none)"},
	"shard-count":       {Lo: 0, Hi: 100000, Give: "the number of slices N (0: the array's own count)"},
	"trace":             {Lo: 0, Hi: maxTrace, Give: "a number of line transfers to list"},
	"trace-from":        {Lo: 0, Hi: float64(scenarios.MaxRunTime / sim.Nanosecond), Give: "a time into the measured interval, such as 4ms"},
	"explain cores":     {Lo: 0, Hi: cpu.MaxCPUs, Give: "a number of flood CPUs (0: the workload's)"},
	"advise cores":      {Lo: 1, Hi: cpu.MaxCPUs, Give: "a number of CPUs"},
	"plot replications": {Lo: 0, Hi: 1000, Give: "a number of runs per point (0: the scenario's [run] replications)"},
	"plot width":        {Lo: 1, Hi: float64(figures.MaxWidth / vg.Inch), Give: "a width in inches (3.4: one column of a two-column paper)"},
	"plot window":       {Lo: 1, Hi: float64(scenarios.MaxRunTime / sim.Nanosecond), Give: "a span of simulated time, such as 100ms"},
	"plot x":            {Lo: -1e15, Hi: 1e15, Give: "a point on the series axis"},
	"import x":          {Lo: -1e15, Hi: 1e15, Give: "the axis value of the points"},
	"import packets":    {Lo: 0, Hi: 1e18, Give: "the packets processed while perf counted (0: none)"},
	"min-share":         {Lo: 0, Hi: 100, Give: "a share of cycles in percent"},
	"compare-line":      {Lo: 0, Hi: math.MaxInt32, Give: "the line a block of the file starts at (0: its only block)"},
}
