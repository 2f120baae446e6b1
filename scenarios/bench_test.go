package scenarios

import (
	"fmt"
	"os"
	"testing"
	"time"

	"contend/models"
	"contend/sim"
)

// BenchmarkIngressLocklessTwoCores simulates seed 000's lockless ingress
// (ingress-u32, the patch author's box) on two CPUs for 100 ms per
// iteration and reports wall seconds per simulated second (the goal: at
// most 0.7, the simulator faster than the two cores it simulates), events
// per simulated packet and simulated packets per wall second.
func BenchmarkIngressLocklessTwoCores(b *testing.B) {
	s, err := LoadBuiltin("ingress")
	if err != nil {
		b.Fatal(err)
	}
	se := seriesNamed(b, s, "ingress-u32")
	const simulated = 100 * sim.Millisecond
	var events, packets uint64
	cpu0 := cpuTime()
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
	if cpu := cpuTime() - cpu0; cpu > 0 {
		b.ReportMetric(cpu.Seconds()/float64(b.N)/simulated.Seconds(), "cpu-s/simulated-s")
	}
}

// seriesNamed returns s's series called name.
func seriesNamed(b *testing.B, s *Scenario, name string) *Series {
	for _, x := range s.Series {
		if x.Name == name {
			return x
		}
	}
	b.Fatalf("%s has no series %s", s.Name, name)
	return nil
}

// BenchmarkTicketLock runs a ticket lock around a short critical section on
// 2 and 256 CPUs of a two-socket box (testdata/bench/ticket.toml) and
// reports the wall time per simulated packet and the events per packet.
// Every release makes every waiter read the lock word again, so the goal
// is that 256 CPUs cost at most 10x the wall time a packet of 2: a
// hand-over's cost must not grow with the number of waiters. Each size
// after the first also reports its cost relative to 2 CPUs, when both ran
// in the same invocation.
func BenchmarkTicketLock(b *testing.B) {
	src, err := os.ReadFile("testdata/bench/ticket.toml")
	if err != nil {
		b.Fatal(err)
	}
	s, err := Parse(nil, "testdata/bench/ticket.toml", src)
	if err != nil {
		b.Fatal(err)
	}
	var base float64 // wall ns a packet at 2 CPUs
	for _, n := range []int{2, 256} {
		b.Run(fmt.Sprintf("cpus=%d", n), func(b *testing.B) {
			var events, packets uint64
			var cpu time.Duration
			for b.Loop() {
				b.StopTimer() // building 256 cores is not simulating them
				w, spec, err := s.Build(Point{Variant: "locked", Axis: "cores", X: float64(n), Seed: 1})
				if err != nil {
					b.Fatal(err)
				}
				spec.Warmup, spec.Duration = 0, 10*sim.Millisecond
				cpu0 := cpuTime()
				b.StartTimer()
				res, err := w.Run(spec)
				if err != nil {
					b.Fatal(err)
				}
				cpu += cpuTime() - cpu0
				events += w.M.Fired()
				packets += res.Packets
			}
			perPacket := float64(b.Elapsed().Nanoseconds()) / float64(packets)
			b.ReportMetric(perPacket, "wall-ns/packet")
			if cpu > 0 {
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(packets), "cpu-ns/packet")
			}
			b.ReportMetric(float64(events)/float64(packets), "events/packet")
			if n == 2 {
				base = perPacket
			} else if base > 0 {
				b.ReportMetric(perPacket/base, "x-cost-of-2cpus")
			}
		})
	}
}

// BenchmarkValidateBuiltins predicts every reference point of every
// built-in scenario, as contend validate does, one point after another,
// and reports the seconds one validate takes on one core (the goal: under
// 2) and the points it simulates.
func BenchmarkValidateBuiltins(b *testing.B) {
	var all []*Scenario
	for _, name := range BuiltinNames() {
		s, err := LoadBuiltin(name)
		if err != nil {
			b.Fatal(err)
		}
		all = append(all, s)
	}
	var points int
	cpu0 := cpuTime()
	for b.Loop() {
		points = 0
		for _, s := range all {
			run := func(pts []Point) ([]*models.Result, error) {
				points += len(pts)
				return s.Serial(pts)
			}
			for _, se := range s.Series {
				if _, err := s.Predict(se, s.Run.Seed, nil, run); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/validate")
	if cpu := cpuTime() - cpu0; cpu > 0 {
		b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/validate")
	}
	b.ReportMetric(float64(points), "points/validate")
}
