package sweep

import (
	"fmt"
	"strings"
	"time"

	"contend/models"
	"contend/scenarios"
	"contend/sim"
)

// Trace is what explain --trace asks for: the first N line transfers of the
// measured interval from From into it, of the shared lines named in Lines
// (comma-separated; "" for every one). N 0 traces nothing.
type Trace struct {
	N     int
	From  time.Duration
	Lines string
}

// Explained is one point that explain simulated, and the line transfers it
// traced.
type Explained struct {
	Scenario  *scenarios.Scenario
	Point     scenarios.Point
	World     *models.World
	Result    *models.Result
	Trace     Trace
	Transfers []models.Transfer
	Lines     []string // the lines the trace kept to, if Trace.Lines named any
}

// Explain builds and runs point p of s, recording the transfers t asks for.
func Explain(s *scenarios.Scenario, p scenarios.Point, t Trace) (*Explained, error) {
	w, spec, err := s.Build(p)
	if err != nil {
		return nil, err
	}
	from := sim.Time(t.From.Nanoseconds()) * sim.Nanosecond
	if end := spec.Duration; spec.Batch == nil && t.N > 0 && from >= end {
		return nil, fmt.Errorf("--trace-from %v: the measured interval lasts %v; give a time inside it", t.From, time.Duration(end/sim.Nanosecond))
	}
	traced := func() []models.Transfer { return nil }
	var only []string
	if t.Lines != "" {
		for _, name := range strings.Split(t.Lines, ",") {
			if l := w.M.Line(name); l == nil || l.PerCPU {
				return nil, fmt.Errorf("--trace-line %q: %s has no shared line %q; its shared lines are %s", t.Lines, s.Name, name, strings.Join(sharedLines(w), ", "))
			}
			only = append(only, name)
		}
	}
	if t.N > 0 {
		traced = w.RecordTransfers(spec, from, t.N, only...)
	}
	res, err := w.Run(spec)
	if err != nil {
		return nil, s.Locate(err)
	}
	return &Explained{Scenario: s, Point: p, World: w, Result: res, Trace: t, Transfers: traced(), Lines: only}, nil
}

// sharedLines names the lines of w that can move between CPUs.
func sharedLines(w *models.World) []string {
	var out []string
	for _, l := range w.M.Lines() {
		if !l.PerCPU {
			out = append(out, l.Name)
		}
	}
	return out
}
