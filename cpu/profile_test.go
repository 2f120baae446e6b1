package cpu_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"contend/cacheline"
	"contend/cpu"
	"contend/sim"
)

func TestValidateNamesTheField(t *testing.T) {
	for _, tc := range []struct {
		field string
		edit  func(*cpu.Profile)
	}{
		{"ghz", func(p *cpu.Profile) { p.GHz = 0 }},
		{"ghz", func(p *cpu.Profile) { p.GHz = math.NaN() }},
		{"ghz", func(p *cpu.Profile) { p.GHz = math.Inf(1) }},
		{"sockets", func(p *cpu.Profile) { p.Sockets = 0 }},
		{"cores_per_socket", func(p *cpu.Profile) { p.CoresPerSocket = -4 }},
		{"threads_per_core", func(p *cpu.Profile) { p.ThreadsPerCore = 0 }},
		{"threads_per_core", func(p *cpu.Profile) { p.CoresPerSocket, p.ThreadsPerCore = 2, 4 }},
		{"threads_per_core", func(p *cpu.Profile) { p.CoresPerSocket, p.ThreadsPerCore = 16, 9 }},
		{"atomic_overlap", func(p *cpu.Profile) { p.AtomicOverlap = -0.01 }},
		{"atomic_overlap", func(p *cpu.Profile) { p.AtomicOverlap = 1.5 }},
		{"atomic_overlap", func(p *cpu.Profile) { p.AtomicOverlap = math.NaN() }},
		{"l1_hit", func(p *cpu.Profile) { p.L1Hit = -1 }},
		{"smt_sibling", func(p *cpu.Profile) { p.SMTSibling = -sim.Nanosecond }},
		{"same_socket", func(p *cpu.Profile) { p.SameSocket = -sim.Nanosecond }},
		{"other_socket", func(p *cpu.Profile) { p.OtherSocket = -sim.Nanosecond }},
		{"memory", func(p *cpu.Profile) { p.Memory = -sim.Nanosecond }},
		{"atomic", func(p *cpu.Profile) { p.Atomic = -sim.Nanosecond }},
		{"wakeup", func(p *cpu.Profile) { p.Wakeup = -sim.Nanosecond }},
		{"sockets", func(p *cpu.Profile) { p.Sockets, p.CoresPerSocket = 64, 32 }},
		// The CPU count overflows int: it must not wrap to a small or negative number.
		{"cores_per_socket", func(p *cpu.Profile) { p.Sockets, p.CoresPerSocket = 3, 1<<62 }},
		{"cores_per_socket", func(p *cpu.Profile) { p.Sockets, p.CoresPerSocket = 1<<32, 1<<32 }},
		{"sockets", func(p *cpu.Profile) { p.Sockets, p.CoresPerSocket = 1<<62+1, 4 }},
	} {
		p := testProfile()
		tc.edit(&p)
		err := p.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.field+":") {
			t.Errorf("profile %+v: error %v, want one naming %s", p, err, tc.field)
			continue
		}
		if m, err2 := cpu.NewMachine(p, 1); m != nil || err2 == nil || err2.Error() != err.Error() {
			t.Errorf("NewMachine(%+v) = %v, %v; want nil, %v", p, m, err2, err)
		}
	}
	p := testProfile()
	if err := p.Validate(); err != nil {
		t.Fatalf("the test profile is valid, but: %v", err)
	}
}

// Any profile at all gives either an error or a machine with as many cores
// as it has CPUs; NewMachine never panics.
func TestNewMachineNeverPanics(t *testing.T) {
	ints := []int{math.MinInt, -1, 0, 1, 2, 3, 8, 9, 64, 1024, 1025, 1 << 31, 1 << 32, 1 << 62, math.MaxInt}
	floats := []float64{math.NaN(), math.Inf(-1), math.Inf(1), -1, 0, 1e-300, 0.5, 1, 2.8, 100, 101}
	times := []sim.Time{math.MinInt64, -1, 0, sim.Nanosecond, math.MaxInt64}
	r := rand.New(rand.NewPCG(1, 2))
	pick := func(n int) int { return r.IntN(n) }
	for i := range 20000 {
		p := cpu.Profile{
			Name:           fmt.Sprint("fuzz", i),
			GHz:            floats[pick(len(floats))],
			Sockets:        ints[pick(len(ints))],
			CoresPerSocket: ints[pick(len(ints))],
			ThreadsPerCore: ints[pick(len(ints))],
			L1Hit:          times[pick(len(times))],
			SMTSibling:     times[pick(len(times))],
			SameSocket:     times[pick(len(times))],
			OtherSocket:    times[pick(len(times))],
			Memory:         times[pick(len(times))],
			Atomic:         times[pick(len(times))],
			AtomicOverlap:  floats[pick(len(floats))],
			Wakeup:         times[pick(len(times))],
			Jitter:         cpu.Jitter(pick(3)),
		}
		func() {
			defer func() {
				if x := recover(); x != nil {
					t.Fatalf("NewMachine(%+v) panicked: %v", p, x)
				}
			}()
			m, err := cpu.NewMachine(p, uint64(i))
			if err != nil {
				return
			}
			if n := m.NumCPUs(); n < 1 || n > cpu.MaxCPUs || n != p.Sockets*p.CoresPerSocket*p.ThreadsPerCore {
				t.Fatalf("NewMachine(%+v) made %d cores", p, n)
			}
			if got := m.Topology().NumCores(); got != m.NumCPUs() {
				t.Fatalf("topology has %d CPUs, machine %d", got, m.NumCPUs())
			}
		}()
	}
}

// Programs that cannot run stop the run with a model error naming the program,
// never a panic and never a hang.
func TestBadProgramsFail(t *testing.T) {
	for _, tc := range []struct {
		name  string
		steps func(*cpu.Machine) []cpu.Step
	}{
		{"empty", func(*cpu.Machine) []cpu.Step { return nil }},
		{"zero-time", func(m *cpu.Machine) []cpu.Step {
			// Atomic is 0 and a per-cpu line always hits: the loop takes no time.
			return []cpu.Step{&cpu.AccessStep{Line: newLine(t, m, "pcpu", true), Op: cacheline.RMW}}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newMachine(t, testProfile(), 1)
			startAll(m, &cpu.Program{Name: tc.name, Steps: tc.steps(m)}, []int{0})
			err := m.Run(sim.Control{Until: sim.Millisecond})
			var me *cpu.ModelError
			if !errors.As(err, &me) || me.Program != tc.name || me.Core != 0 {
				t.Fatalf("run error %v, want a model error for program %q on cpu 0", err, tc.name)
			}
		})
	}
}
