package scenarios

import (
	"testing"

	"contend/sim"
)

// BenchmarkIngressLocklessTwoCores simulates 100 ms of seed 000's lockless
// ingress on two CPUs and reports simulated packets per wall second and wall
// seconds per simulated second (the goal is under 2).
func BenchmarkIngressLocklessTwoCores(b *testing.B) {
	s, err := LoadBuiltin("ingress")
	if err != nil {
		b.Fatal(err)
	}
	var se *Series
	for _, x := range s.Series {
		if x.Name == "ingress-u32" {
			se = x
		}
	}
	const simulated = 100 * sim.Millisecond
	var events, packets uint64
	for b.Loop() {
		w, spec, err := s.Build(Point{Series: se, Variant: "lockless", Axis: "cores", X: 2, Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		spec.Warmup, spec.Duration = 0, simulated
		res, err := w.Run(spec)
		if err != nil {
			b.Fatal(err)
		}
		events += w.M.Fired()
		packets += res.Packets
	}
	b.ReportMetric(float64(events)/float64(packets), "events/packet")
	b.ReportMetric(float64(packets)/b.Elapsed().Seconds(), "simulated-packets/s")
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N)/simulated.Seconds(), "wall-s/simulated-s")
}
