package band

import (
	"testing"

	"contend/scenarios"
)

// Kinds of built-in points, as their files lay them out: x5-4's threads
// spread one per socket in turn, fitted at one thread; dst-use fitted at 2
// and 6 RX queues; the perfbook tables fit the atomic on their same-CPU CAS,
// at one thread, and the CAS between sockets is across sockets from it.
func TestKindsOfBuiltins(t *testing.T) {
	for _, c := range []struct {
		scenario, series, axis string
		x                      float64
		metric                 string
		want                   Kind
	}{
		{"cna-locktorture", "x5-4-1", "threads", 1, "throughput", Kind{Uncontended, SameCPUs}},
		{"cna-locktorture", "x5-4-4", "threads", 4, "throughput", Kind{Contended, AcrossSocket}},
		{"dst-use", "dst-use", "rx_queues", 6, "throughput", Kind{Contended, SameCPUs}},
		{"dst-use", "dst-use", "rx_queues", 3, "throughput", Kind{Contended, OtherCPUs}},
		{"perfbook-cas-8176", "8176-off-socket", "threads", 2, "throughput", Kind{Contended, AcrossSocket}},
		{"perfbook-cas-8176", "8176-same-cpu", "threads", 1, "cost", Kind{Uncontended, SameCPUs}},
		{"kfree-bulk", "kfree-bulk", "cores", 11, "grace_periods", Kind{RCU, SameCPUs}},
		{"flower-insert", "flower-insert", "filters", 20000, "offcpu_in_synchronize_rcu", Kind{Duration, SameCPUs}},
		{"flower-insert", "flower-insert", "filters", 20000, "share_of_cycles_tcf_chain_tp_find", Kind{Share, SameCPUs}},
	} {
		s, err := scenarios.LoadBuiltin(c.scenario)
		if err != nil {
			t.Fatal(err)
		}
		var se *scenarios.Series
		for _, o := range s.Series {
			if o.Name == c.series {
				se = o
			}
		}
		if se == nil {
			t.Fatalf("%s has no series %s", c.scenario, c.series)
		}
		got, err := NewClassifier(s).Kind(se, c.axis, c.x, c.metric)
		if err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("%s %s=%v %s: kind %q, want %q", c.series, c.axis, c.x, c.metric, got, c.want)
		}
	}
}

func TestFigureOf(t *testing.T) {
	for _, c := range []struct {
		metric string
		cpus   int
		want   Figure
	}{
		{"throughput_per_core", 1, Uncontended},
		{"cost", 4, Contended},
		{"cycles_per_packet", 16, Contended},
		{"p90_latency_synchronize_rcu", 1, RCU},
		{"mean_grace_period", 64, RCU},
		{"duration", 11, Duration},
		{"drops", 2, Share},
	} {
		if got := FigureOf(c.metric, c.cpus); got != c.want {
			t.Errorf("FigureOf(%s, %d) = %s, want %s", c.metric, c.cpus, got, c.want)
		}
	}
}
