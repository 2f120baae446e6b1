package cpu_test

import (
	"slices"
	"testing"

	"contend/cacheline"
	"contend/cpu"
	"contend/sim"
)

// The step loop runs compute steps, and loads and stores that hit, itself
// rather than through Step.Exec, and runs ahead of the clock across a
// program's end. A program must cost exactly what the same steps cost run
// one by one through the interface, each at an event of its own: on one
// core both take their draws in the same order, so every figure agrees to
// the picosecond.
func TestStepLoopMatchesExec(t *testing.T) {
	for _, jitter := range []cpu.Jitter{cpu.NoJitter, cpu.UniformJitter} {
		var got [2][]sim.Time
		for k, wrap := range []bool{false, true} {
			p := testProfile()
			p.Jitter, p.CV = jitter, 0.1
			p.Atomic, p.AtomicOverlap, p.StoreDrain = 6*sim.Nanosecond, 0.5, 4*sim.Nanosecond
			m := newMachine(t, p, 7)
			shared, mine := newLine(t, m, "shared", false), newLine(t, m, "mine", true)
			work, stats := m.Label("work"), m.Label("stats")
			steps := []cpu.Step{
				&cpu.ComputeStep{Label: work, D: 20 * sim.Nanosecond},
				&cpu.AccessStep{Label: stats, Line: shared, Op: cacheline.Load},
				&cpu.AccessStep{Label: stats, Line: mine, Op: cacheline.RMW},
				&cpu.ComputeStep{Label: work, D: 7 * sim.Nanosecond},
				&cpu.AccessStep{Label: stats, Line: shared, Op: cacheline.Store},
				&cpu.AccessStep{Label: stats, Line: mine, Op: cacheline.Store},
			}
			if wrap {
				for i, s := range steps {
					steps[i] = viaExec{s}
				}
			}
			// The time every packet ends, then what the core charged.
			ends := &probe{}
			steps = append(steps, ends)
			c := m.Cores()[0]
			c.Load(&cpu.Program{Name: "p", Steps: steps}, aheadLoop{})
			c.Start(0)
			run(t, m, 0, 20*sim.Microsecond+333) // no step starts at the end exactly
			got[k] = append(ends.at, c.Time(work, cpu.Work), c.Time(stats, cpu.Work), c.Time(stats, cpu.Stall))
		}
		if len(got[0]) < 100 || !slices.Equal(got[0], got[1]) {
			t.Errorf("jitter %d: the step loop gives packet ends and charges %v;\none step per event through Exec %v",
				jitter, got[0], got[1])
		}
	}
}

// viaExec hides a step's type from the core, which then runs it through
// Exec and, not knowing what it touches, at an event of its own.
type viaExec struct{ cpu.Step }

// probe records when the core reaches it.
type probe struct{ at []sim.Time }

func (p *probe) Exec(c *cpu.Core) (cpu.Outcome, sim.Time) {
	p.at = append(p.at, c.Now())
	return cpu.Next, c.Now()
}

// aheadLoop is a closed loop whose program ends never need the engine.
type aheadLoop struct{ cpu.ClosedLoop }

func (aheadLoop) EndAhead(*cpu.Core, sim.Time) (ended, again bool) { return true, true }
