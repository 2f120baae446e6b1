package sim_test

import (
	"testing"

	"contend/sim"
)

// benchEvent reschedules itself on every firing, so the queue stays at a
// steady size and each op is one pop and one push.
type benchEvent struct {
	ev sim.Event
	e  *sim.Engine
	x  *uint64 // shared xorshift state
}

// Fire draws the delay from an inline xorshift64 rather than sim.Rand so the
// benchmark measures the heap, not the generator.
func (b *benchEvent) Fire(now sim.Time) {
	x := *b.x
	x ^= x << 13
	x ^= x >> 7
	x ^= x << 17
	*b.x = x
	b.e.Schedule(&b.ev, now+1+sim.Time(x&(1<<20-1)))
}

// BenchmarkEngine fires events from a steady queue of 1024 pending events;
// one op is one event. Target: >= 20M events/s on one core, 0 allocs/op.
func BenchmarkEngine(b *testing.B) {
	const pending = 1024
	e := sim.NewEngine()
	x := uint64(88172645463325252)
	evs := make([]benchEvent, pending)
	for i := range evs {
		evs[i] = benchEvent{e: e, x: &x}
		evs[i].ev.Action = &evs[i]
		e.Schedule(&evs[i].ev, sim.Time(i))
	}
	b.ReportAllocs()
	// A b.N loop, not b.Loop: b.Loop allocates on its first call, which shows
	// as 1 alloc/op at -benchtime 1x.
	b.ResetTimer()
	for range b.N {
		e.Step()
	}
	if e.Pending() != pending {
		b.Fatalf("Pending = %d, want a steady %d", e.Pending(), pending)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
