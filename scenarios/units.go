package scenarios

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"contend/sim"
)

// Dur is a duration as written: picoseconds plus cycles (cycles need a clock).
type Dur struct {
	PS     float64
	Cycles float64
}

// Time converts d at ghz.
func (d Dur) Time(ghz float64) sim.Time {
	ps := d.PS
	if d.Cycles != 0 {
		ps += d.Cycles / ghz * 1000
	}
	return sim.Time(math.Round(ps))
}

var units = []struct {
	suffix string
	ps     float64
	cycles bool
}{
	{"cyc", 0, true}, {"ps", 1, false}, {"ns", 1e3, false}, {"us", 1e6, false}, {"µs", 1e6, false},
	{"ms", 1e9, false}, {"s", 1e12, false},
}

// parseDur parses "25ns", "40cyc", "1.5ms". It reports whether s looks like a
// literal at all (starts with a digit, a dot or a sign) so that names of params
// can be told apart from malformed literals.
func parseDur(s string) (Dur, bool, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return Dur{}, false, fmt.Errorf("empty duration; write a number with a unit, such as \"25ns\" or \"40cyc\"")
	}
	if c := t[0]; !(c >= '0' && c <= '9' || c == '.' || c == '-' || c == '+') {
		return Dur{}, false, nil
	}
	for _, u := range units {
		if !strings.HasSuffix(t, u.suffix) {
			continue
		}
		num := strings.TrimSpace(strings.TrimSuffix(t, u.suffix))
		v, err := strconv.ParseFloat(num, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			break
		}
		if v < 0 {
			return Dur{}, true, fmt.Errorf("negative duration %q; durations are at least 0", s)
		}
		// 10¹⁵ cycles is 10⁶ s at 1 GHz; unbounded, a cycle count overflows
		// sim.Time when it is converted at the profile's clock.
		if v > 1e6 && !u.cycles && u.ps >= 1e12 || v*u.ps > 1e18 || u.cycles && v > 1e15 {
			return Dur{}, true, fmt.Errorf("duration %q is too long; contend simulates at most 10⁶ s", s)
		}
		if u.cycles {
			return Dur{Cycles: v}, true, nil
		}
		return Dur{PS: v * u.ps}, true, nil
	}
	return Dur{}, true, fmt.Errorf("%q is not a duration; write a number with a unit: ps, ns, us, ms, s or cyc (e.g. \"25ns\", \"40cyc\")", s)
}
