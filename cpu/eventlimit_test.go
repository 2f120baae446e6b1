package cpu_test

import (
	"errors"
	"testing"

	"contend/cpu"
	"contend/sim"
)

// Steps a core runs ahead of the clock fire no event, yet count toward the
// run's event bound: a program of many local steps cannot turn a bound of
// events into a bound of programs.
func TestRunAheadCountsTowardEventLimit(t *testing.T) {
	m := newMachine(t, testProfile(), 1)
	steps := make([]cpu.Step, 1000)
	for i := range steps {
		steps[i] = &cpu.ComputeStep{D: sim.Picosecond}
	}
	startAll(m, &cpu.Program{Name: "long", Steps: steps}, []int{0})
	err := m.Run(sim.Control{Until: sim.Second, MaxEvents: 100})
	if !errors.Is(err, sim.ErrEventLimit) {
		t.Fatalf("error %v; want the event limit", err)
	}
	// 100 steps of a 1000-step program: not one program is done.
	if done := m.Cores()[0].Completed; done != 0 {
		t.Errorf("%d programs completed within 100 events; want 0", done)
	}
}
