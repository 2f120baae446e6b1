package scenarios

import (
	"math"

	"contend/sim"
)

// Bounds on what a scenario may ask for. Each keeps one file's answer within
// seconds and bytes: a file beyond them is refused with the bound it broke,
// before anything is simulated.
const (
	// MaxFileBytes is the largest scenario or included file read.
	MaxFileBytes = 1 << 20
	// MaxIncludeDepth bounds a chain of includes; MaxIncludedFiles the files
	// one scenario reads in all (a file included twice is read once).
	MaxIncludeDepth  = 16
	MaxIncludedFiles = 64
	// MaxNesting bounds how deep tables, arrays and dotted keys nest in a
	// file (CheckNesting): the decoder's cost grows with the square of the
	// depth. The built-in files nest 6 levels at most, and the deepest
	// once_per_jiffy gates the checker takes 20.
	MaxNesting = 32
	// MaxProgramSteps bounds a variant's program once its blocks are inlined.
	MaxProgramSteps = 100_000
	// MaxRunTime bounds warmup, duration and limit; MaxStepTime every other
	// duration (a step, a latency, a param). A step's duration times jitter
	// added to any time of a run stays far inside sim.Time.
	MaxRunTime  = 1_000_000 * sim.Second
	MaxStepTime = 10_000 * sim.Second
	// MinGHz is the slowest clock a profile may have: cycles convert to time
	// at it.
	MinGHz = 0.01
	// MaxRate is one packet per picosecond per CPU, the clock's resolution;
	// MinRate one per MaxStepTime.
	MaxRate = 1e12
	MinRate = 1e-4
	// MaxCount bounds counts: operations in a batch, items, sweep values.
	MaxCount = 1_000_000_000
	// MaxFreeBytes bounds the bytes one call_rcu or queue_rcu_work frees,
	// so that the bytes pending and freed over a run stay exact.
	MaxFreeBytes = 1 << 30
	// MaxAxisValues bounds the values of a sweep axis, the points of a
	// series and its references: the points one command simulates.
	MaxAxisValues = 1000
	// MinRefValue and MaxRefValue bound a reference's measured value: an
	// error is relative to it, and beyond them an error or the change
	// between two values leaves float64's range (MaxRefValue pps is one
	// packet per picosecond on each of 1000 CPUs).
	MinRefValue = 1e-9
	MaxRefValue = 1e15
	// DefaultMaxEvents is the number of simulated events one point may take
	// unless [run] max_events (or the command's --max-events) says otherwise:
	// a runaway run becomes an error that says so.
	DefaultMaxEvents = 100_000_000
)

// finite reports whether x is neither NaN nor infinite.
func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// timeAt returns d at ghz, and whether it lies in [0, most].
func timeAt(d Dur, ghz float64, most sim.Time) (sim.Time, bool) {
	ps := d.PS
	if d.Cycles != 0 {
		ps += d.Cycles / ghz * 1000
	}
	if !finite(ps) || ps < 0 || ps > float64(most) {
		return 0, false
	}
	return sim.Time(math.Round(ps)), true
}
