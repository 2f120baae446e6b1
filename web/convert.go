package web

import (
	"errors"

	"contend/cpu"
	"contend/models"
	"contend/scenarios"
	"contend/sim"
)

// cpuStates are the columns of a sample's state fractions.
var cpuStates = [cpu.NumStates]cpu.State{cpu.Work, cpu.Spin, cpu.Stall, cpu.Sleep, cpu.Idle}

// converter turns the model's cumulative samples into the rates and
// fractions a chart draws, remembering the previous sample.
type converter struct {
	warmup  sim.Time
	prevNow sim.Time
	packets []uint64
	states  [][cpu.NumStates]sim.Time
}

func newConverter(spec models.RunSpec) *converter {
	return &converter{warmup: spec.Warmup}
}

// since is the increase of a counter that the end of warm-up may have reset
// (reset says it has).
func since[T uint64 | sim.Time](cur, prev T, reset bool) T {
	if reset || cur < prev {
		return cur
	}
	return cur - prev
}

func (v *converter) convert(s models.Sample) Sample {
	out := Sample{NowNs: s.Now.Nanoseconds(), Measuring: s.Now > v.warmup,
		PPS: make([]float64, len(s.Packets)), Packets: append([]uint64{}, s.Packets...), States: make([][]float64, len(s.CPUs)),
		Transfers: make([][]uint64, len(s.Transfers)), LockWait: append([]uint64{}, s.LockWait...),
		BatchOps: s.BatchOps, GracePeriods: s.RCUGPs, GPActive: s.GPActive,
		GPStartNs: s.GPStart.Nanoseconds(), PendingBytes: s.Pending}
	if v.packets == nil {
		v.packets = make([]uint64, len(s.Packets))
		v.states = make([][cpu.NumStates]sim.Time, len(s.States))
	}
	// Counts restart at the end of warm-up: the first measured interval
	// begins there.
	dt := (s.Now - max(v.prevNow, min(v.warmup, s.Now))).Seconds()
	if s.Now <= v.warmup {
		dt = (s.Now - v.prevNow).Seconds()
	}
	reset := v.prevNow < v.warmup && s.Now > v.warmup
	for i, n := range s.Packets {
		if dt > 0 {
			out.PPS[i] = float64(since(n, v.packets[i], reset)) / dt
		}
		out.TotalPPS += out.PPS[i]
		v.packets[i] = n
	}
	for i, st := range s.States {
		var d [cpu.NumStates]float64
		var sum float64
		for k, state := range cpuStates {
			d[k] = float64(since(st[state], v.states[i][state], reset))
			sum += d[k]
		}
		out.States[i] = make([]float64, len(cpuStates))
		for k := range d {
			if sum > 0 {
				out.States[i][k] = d[k] / sum
			}
		}
		v.states[i] = st
	}
	for i, row := range s.Transfers {
		out.Transfers[i] = append([]uint64{}, row...)
	}
	v.prevNow = s.Now
	return out
}

// errorMsg turns an error into an error frame, located when it is a
// scenario error.
func errorMsg(run string, err error) Error {
	e := Error{Type: "error", Run: run, Message: err.Error()}
	var se *scenarios.Error
	if errors.As(err, &se) {
		e.Line, e.Column, e.Field = se.Line, se.Column, se.Field
	}
	return e
}
