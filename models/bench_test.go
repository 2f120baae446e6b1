package models_test

import (
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
