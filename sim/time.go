package sim

import (
	"fmt"
	"math"
)

// Time is simulated time in picoseconds. Its range (±106 days) covers every
// run contend makes; durations use the same type.
type Time int64

// Units of Time.
const (
	Picosecond  Time = 1
	Nanosecond       = 1000 * Picosecond
	Microsecond      = 1000 * Nanosecond
	Millisecond      = 1000 * Microsecond
	Second           = 1000 * Millisecond
)

// Never is a time later than any event.
const Never Time = math.MaxInt64

// Nanoseconds returns t as a float count of nanoseconds.
func (t Time) Nanoseconds() float64 { return float64(t) / float64(Nanosecond) }

// Seconds returns t as a float count of seconds.
func (t Time) Seconds() float64 { return float64(t) / float64(Second) }

// FromNanoseconds rounds a float count of nanoseconds to the nearest picosecond.
func FromNanoseconds(ns float64) Time { return Time(math.Round(ns * float64(Nanosecond))) }

// FromSeconds rounds a float count of seconds to the nearest picosecond.
func FromSeconds(s float64) Time { return Time(math.Round(s * float64(Second))) }

// String prints t with the largest unit that keeps it at or above 1.
func (t Time) String() string {
	a := t
	if a < 0 {
		a = -a
	}
	switch {
	case a >= Second:
		return fmt.Sprintf("%.6gs", t.Seconds())
	case a >= Millisecond:
		return fmt.Sprintf("%.6gms", float64(t)/float64(Millisecond))
	case a >= Microsecond:
		return fmt.Sprintf("%.6gµs", float64(t)/float64(Microsecond))
	case a >= Nanosecond:
		return fmt.Sprintf("%.6gns", t.Nanoseconds())
	}
	return fmt.Sprintf("%dps", int64(t))
}
