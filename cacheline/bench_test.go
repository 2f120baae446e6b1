package cacheline_test

import (
	"math/rand"
	"testing"

	"contend/cacheline"
	"contend/sim"
)

// BenchmarkAccess measures the cost of one access in a mix of loads, stores
// and RMWs by 16 cores on 4 lines, with the lines moving most of the time.
func BenchmarkAccess(b *testing.B) {
	s, lines := newSystem(b, grid{n: 16, perSocket: 8}, "a", "b", "c", "d")
	r := rand.New(rand.NewSource(1))
	trace := make([]access, 4096)
	for i := range trace {
		trace[i] = access{
			Gap:  sim.Time(r.Intn(50)) * sim.Nanosecond,
			Core: r.Intn(16),
			Line: r.Intn(len(lines)),
			Op:   cacheline.Op(r.Intn(3)),
		}
	}
	b.ReportAllocs()
	now, i := sim.Time(0), 0
	for b.Loop() {
		a := &trace[i%len(trace)]
		now += a.Gap
		s.Access(now, a.Core, lines[a.Line], a.Op, 5*sim.Nanosecond)
		i++
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "accesses/s")
}
