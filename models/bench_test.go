package models_test

import (
	"fmt"
	"testing"

	"contend/cpu"
	"contend/models"
	"contend/sim"
)

// BenchmarkTicketLockTwoCores runs seed 003's locked packet loop on two cores
// for 1 ms of simulated time per iteration (about 7 900 packets) and reports
// how many simulated packets the simulator gets through per wall-clock second.
func BenchmarkTicketLockTwoCores(b *testing.B) {
	b.ReportAllocs()
	var packets uint64
	for b.Loop() {
		w := newWorld(b, testProfile(cpu.NoJitter), 1, models.DefaultKernel())
		l := newSpinlock(b, w, models.Ticket)
		p := &cpu.Program{Name: "rx", Steps: []cpu.Step{
			compute(w, "rx", 30*sim.Nanosecond), &models.LockStep{L: l}, compute(w, "cs", 10*sim.Nanosecond), &models.UnlockStep{L: l},
		}}
		packets += flood(b, w, p, 2, 0, sim.Millisecond).Packets
	}
	b.ReportMetric(float64(packets)/b.Elapsed().Seconds(), "simulated-packets/s")
}

// BenchmarkTicketLockScale runs a ticket lock (30 ns outside, 10 ns inside)
// on 2, 32 and 128 CPUs of a two-socket machine and reports the wall time per
// simulated event: the cost of an event must not grow with the core count
// (the goal: 128 CPUs within 2x of 2). Each size after the first also reports
// its cost relative to 2 CPUs, when those ran in the same invocation.
func BenchmarkTicketLockScale(b *testing.B) {
	var base, baseT float64 // ns/event and ns/transfer at 2 CPUs
	for _, n := range []int{2, 32, 128} {
		b.Run(fmt.Sprintf("cpus=%d", n), func(b *testing.B) {
			var events, transfers uint64
			for b.Loop() {
				b.StopTimer() // building the machine is not an event
				p := testProfile(cpu.NoJitter)
				p.Sockets = 2
				w := newWorld(b, p, 1, models.DefaultKernel())
				l := newSpinlock(b, w, models.Ticket)
				prog := &cpu.Program{Name: "rx", Steps: []cpu.Step{
					compute(w, "rx", 30*sim.Nanosecond), &models.LockStep{L: l}, compute(w, "cs", 10*sim.Nanosecond), &models.UnlockStep{L: l},
				}}
				b.StartTimer()
				flood(b, w, prog, n, 0, 200*sim.Microsecond)
				events += w.M.Fired()
				for _, l := range w.M.Lines() {
					transfers += l.Stats.Transfers
				}
			}
			perEvent := float64(b.Elapsed().Nanoseconds()) / float64(events)
			b.ReportMetric(perEvent, "ns/event")
			// An event at many CPUs serves a release's re-reads together
			// (cpu.Core.SpinRereads): what one line transfer costs is the
			// measure that does not depend on how many an event serves.
			perTransfer := float64(b.Elapsed().Nanoseconds()) / float64(transfers)
			b.ReportMetric(perTransfer, "ns/transfer")
			if n == 2 {
				base, baseT = perEvent, perTransfer
			} else if base > 0 {
				b.ReportMetric(perEvent/base, "x-cost-of-2cpus")
				b.ReportMetric(perTransfer/baseT, "x-transfer-cost-of-2cpus")
			}
		})
	}
}
