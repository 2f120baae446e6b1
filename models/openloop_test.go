package models_test

import (
	"math"
	"testing"

	"contend/cpu"
	"contend/models"
	"contend/sim"
)

// TestOpenLoopMatchesMM1K checks the open-loop flood against the M/M/1/K
// queue: Poisson arrivals at λ, exponential service of mean S, a ring of R
// slots plus the packet in service (K = R+1). With ρ = λS the loss is
// P_K = (1-ρ)ρ^K / (1-ρ^(K+1)) and the throughput λ(1-P_K).
func TestOpenLoopMatchesMM1K(t *testing.T) {
	for _, tc := range []struct {
		rate float64 // packets/s
		ring int
	}{{8e6, 4}, {12e6, 16}, {20e6, 8}} {
		m, err := cpu.NewMachine(cpu.Profile{Name: "t", GHz: 1, Sockets: 1, CoresPerSocket: 1, ThreadsPerCore: 1,
			Jitter: cpu.ExponentialJitter}, 7)
		if err != nil {
			t.Fatal(err)
		}
		w, err := models.NewWorld(m, models.DefaultKernel())
		if err != nil {
			t.Fatal(err)
		}
		const service = 100 * sim.Nanosecond
		p := &cpu.Program{Name: "rx", Steps: []cpu.Step{&cpu.ComputeStep{Label: m.Label("rx"), D: service}}}
		res, err := w.Run(models.RunSpec{Flood: &models.Flood{CPUs: []int{0}, Program: p, Rate: tc.rate, Ring: tc.ring},
			Warmup: sim.Millisecond, Duration: 100 * sim.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		rho := tc.rate * service.Seconds()
		k := float64(tc.ring + 1)
		loss := (1 - rho) * math.Pow(rho, k) / (1 - math.Pow(rho, k+1))
		wantPPS := tc.rate * (1 - loss)
		gotLoss := float64(res.Dropped) / float64(res.Offered)
		if math.Abs(res.PPS-wantPPS)/wantPPS > 0.02 {
			t.Errorf("rate %.0f ring %d: %.4g pps, M/M/1/K gives %.4g", tc.rate, tc.ring, res.PPS, wantPPS)
		}
		if math.Abs(gotLoss-loss) > 0.01 {
			t.Errorf("rate %.0f ring %d: loss %.4f, M/M/1/K gives %.4f", tc.rate, tc.ring, gotLoss, loss)
		}
	}
}
