package cpu_test

import (
	"testing"

	"contend/cacheline"
	"contend/cpu"
	"contend/sim"
)

// BenchmarkTwoCoreSharedLine runs two cores doing [compute 10ns, RMW] on one
// line; an op is one simulated packet. Once warm, the event loop must not
// allocate: allocs/event is measured apart from the timing and must be 0.
func BenchmarkTwoCoreSharedLine(b *testing.B) {
	p := testProfile()
	p.Atomic = 10 * sim.Nanosecond
	m := newMachine(b, p, 1)
	l := newLine(b, m, "counter", false)
	startAll(m, &cpu.Program{Name: "pkt", Steps: []cpu.Step{
		&cpu.ComputeStep{Label: m.Label("ip_rcv"), D: 10 * sim.Nanosecond},
		&cpu.AccessStep{Label: m.Label("atomic_inc"), Line: l, Op: cacheline.RMW},
	}}, []int{0, 1})
	c0, c1 := m.Cores()[0], m.Cores()[1]
	packet := func() {
		for n := c0.Completed + c1.Completed; c0.Completed+c1.Completed == n; {
			m.Engine().Step()
		}
	}
	for range 1000 {
		packet()
	}
	b.ReportAllocs()
	for b.Loop() {
		packet()
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "simulated-packets/s")

	const events = 10000
	allocs := testing.AllocsPerRun(10, func() {
		for range events {
			m.Engine().Step()
		}
	}) / events
	b.ReportMetric(allocs, "allocs/event")
	if allocs != 0 {
		b.Errorf("%g allocations per event in steady state, want 0", allocs)
	}
}
