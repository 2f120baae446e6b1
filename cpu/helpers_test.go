package cpu_test

import (
	"math"
	"testing"

	"contend/cacheline"
	"contend/cpu"
	"contend/sim"
)

// testProfile is a two-socket box with SMT and round latencies. Atomic is
// zero so that an RMW costs exactly its transfer; tests that need an
// atomic's latency set it.
func testProfile() cpu.Profile {
	return cpu.Profile{
		Name: "test", GHz: 2.5,
		Sockets: 2, CoresPerSocket: 4, ThreadsPerCore: 2,
		L1Hit:       1 * sim.Nanosecond,
		SMTSibling:  15 * sim.Nanosecond,
		SameSocket:  50 * sim.Nanosecond,
		OtherSocket: 130 * sim.Nanosecond,
		Memory:      90 * sim.Nanosecond,
	}
}

// bigProfile is one socket of 64 cores without SMT: every transfer between two
// CPUs is same-socket.
func bigProfile() cpu.Profile {
	p := testProfile()
	p.Sockets, p.CoresPerSocket, p.ThreadsPerCore = 1, 64, 1
	return p
}

func newMachine(t testing.TB, p cpu.Profile, seed uint64) *cpu.Machine {
	t.Helper()
	m, err := cpu.NewMachine(p, seed)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func newLine(t testing.TB, m *cpu.Machine, name string, perCPU bool) *cacheline.Line {
	t.Helper()
	l, err := m.NewLine(name, perCPU)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// startAll runs prog in a closed loop on cpus, all from time 0.
func startAll(m *cpu.Machine, prog *cpu.Program, cpus []int) {
	for _, id := range cpus {
		c := m.Cores()[id]
		c.Load(prog, cpu.ClosedLoop{})
		c.Start(0)
	}
}

func run(t testing.TB, m *cpu.Machine, warmup, until sim.Time) {
	t.Helper()
	if err := m.Run(sim.Control{Warmup: warmup, Until: until}); err != nil {
		t.Fatal(err)
	}
}

// completed sums the programs completed in the measured interval.
func completed(m *cpu.Machine) uint64 {
	var n uint64
	for _, c := range m.Cores() {
		n += c.Completed
	}
	return n
}

// rate is the completions per second of the measured interval.
func rate(m *cpu.Machine) float64 {
	return float64(completed(m)) / (m.Now() - m.Started()).Seconds()
}

// perSecond turns a mean time per event into events per second.
func perSecond(d sim.Time) float64 { return 1 / d.Seconds() }

func within(got, want, rel float64) bool { return math.Abs(got-want) <= rel*math.Abs(want) }

func firstN(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}
