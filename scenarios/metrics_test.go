package scenarios

import (
	"math"
	"testing"

	"contend/models"
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

// A statistic of a latency distribution is read from the result by name,
// in the unit asked; an unknown statistic or call is not a metric.
func TestLatencyMetrics(t *testing.T) {
	r := &models.Result{}
	r.RCU.GPLatency = models.Latency{Count: 3, MinUs: 2000, MeanUs: 4000, P10Us: 2100, P50Us: 3900, P90Us: 6000, P99Us: 6100, MaxUs: 6200}
	r.RCU.Calls = []models.RCUCallResult{{Call: "synchronize_rcu", Latency: models.Latency{Count: 1, P90Us: 12500}}}
	for _, tc := range []struct {
		metric, unit string
		want         float64
	}{
		{"p90_grace_period", "ms", 6}, {"min_grace_period", "us", 2000}, {"mean_grace_period", "ms", 4},
		{"p90_latency_synchronize_rcu", "ms", 12.5},
	} {
		if err := CheckMetric(tc.metric, tc.unit); err != nil {
			t.Errorf("%s in %s: %v", tc.metric, tc.unit, err)
		}
		got, err := Metric(r, tc.metric, tc.unit)
		if err != nil || math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%s in %s = %v, %v; want %v", tc.metric, tc.unit, got, err, tc.want)
		}
	}
	if _, err := Metric(r, "p90_latency_call_rcu", "ms"); err == nil {
		t.Errorf("a call the run never made has a latency")
	}
	for _, bad := range []string{"p95_grace_period", "p90_latency_rcu_barrier", "p90_latency_"} {
		if CheckMetric(bad, "ms") == nil {
			t.Errorf("%s passes as a metric", bad)
		}
	}
}
