package scenarios

import (
	"math"
	"testing"
)

// The per-packet metrics that perf stat figures are compared with, on a
// scenario whose answer is known: a packet is 10 ns of work and an atomic
// on a line that two CPUs pass back and forth, with no jitter.
func TestPerPacketMetrics(t *testing.T) {
	src := `name = "m"
[profile.p]
ghz = 2.5
sockets = 1
cores_per_socket = 2
l1_hit = "1ns"
smt_sibling = "20ns"
same_socket = "50ns"
other_socket = "100ns"
memory = "90ns"
atomic = "5ns"
wakeup = "1us"
jitter = "none"
snoop = 0
[[line]]
name = "c"
[[variant]]
name = "v"
steps = [ { compute = "10ns" }, { rmw = "c" } ]
[workload]
cores = 1
[run]
warmup = "1us"
duration = "20us"
`
	s, err := Parse(nil, "m.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		cores             float64
		cycles, transfers float64
	}{
		// One CPU: 10 ns of work and a 5 ns atomic that hits, at 2.5 GHz.
		{1, (10 + 5) * 2.5, 0},
		// Two CPUs: every atomic moves the line, so one transfer a packet;
		// the cycles now include the wait for it.
		{2, math.NaN(), 1},
	} {
		r, err := s.Simulate(Point{Variant: "v", Axis: "cores", X: tc.cores, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		cyc, _ := Metric(r, "cycles_per_packet", "cycles")
		tr, _ := Metric(r, "transfers_per_packet", "lines")
		if !math.IsNaN(tc.cycles) && math.Abs(cyc-tc.cycles) > 1e-3*tc.cycles {
			t.Errorf("%v cores: %.4g cycles a packet, want %.4g", tc.cores, cyc, tc.cycles)
		}
		if math.IsNaN(tc.cycles) && cyc <= (10+5)*2.5 {
			t.Errorf("%v cores: %.4g cycles a packet, no more than uncontended", tc.cores, cyc)
		}
		if math.Abs(tr-tc.transfers) > 0.01 {
			t.Errorf("%v cores: %.4g transfers a packet, want %v", tc.cores, tr, tc.transfers)
		}
	}
}
