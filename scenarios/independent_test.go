package scenarios_test

import (
	"strings"
	"testing"
	"testing/fstest"

	"contend/scenarios"
)

// twoLinesSrc: two CPUs each increment counters a and b, lines the other
// CPU wrote last, then work a microsecond; transfers cost 200 ns.
const twoLinesSrc = `name = "two"
[profile.p]
ghz = 2.0
sockets = 1
cores_per_socket = 2
threads_per_core = 1
l1_hit = "4cyc"
llc_hit = "40cyc"
same_socket = "200ns"
other_socket = "400ns"
memory = "300cyc"
smt_sibling = "20cyc"
atomic = "20cyc"
wakeup = "5us"
jitter = "none"
[[line]]
name = "a"
[[line]]
name = "b"
[[variant]]
name = "inc"
steps = [{ load = "a" }, { store = "a" }, { load = "b" }, { store = "b" }, { compute = "1us" }]
[workload]
kind = "flood"
cores = 2
[sweep]
cores = [2]
`

// An independent load asks for its line while the load before it waits:
// the two misses of an op overlap, so an op costs the work and about one
// transfer, where two loads one after the other cost two.
func TestIndependentLoadsOverlap(t *testing.T) {
	perOp := func(src string) float64 {
		s, err := scenarios.Parse(fstest.MapFS{}, "t.toml", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.Simulate(scenarios.Point{Variant: "inc", Axis: "cores", X: 2, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		return 1e9 / res.PPSPerCore // ns an op, per CPU
	}
	serial := perOp(twoLinesSrc)
	overlap := perOp(strings.Replace(twoLinesSrc, `{ load = "b" }`, `{ load = "b", independent = true }`, 1))
	t.Logf("an op: %.0f ns with the loads in series, %.0f ns overlapped", serial, overlap)
	if serial < 1000+0.9*2*200 {
		t.Errorf("loads in series: %.0f ns an op, want about the work and two transfers (1400)", serial)
	}
	if overlap > 1000+200+50 || overlap < 1000+200-20 {
		t.Errorf("independent loads: %.0f ns an op, want the work and one transfer (1200)", overlap)
	}
}

// independent is a load's alone.
func TestIndependentOnlyOnLoads(t *testing.T) {
	src := strings.Replace(twoLinesSrc, `{ store = "b" }`, `{ store = "b", independent = true }`, 1)
	if _, err := scenarios.Parse(fstest.MapFS{}, "t.toml", []byte(src)); err == nil || !strings.Contains(err.Error(), "only a load's address") {
		t.Errorf("independent on a store: error %v, want one saying only a load's address can be independent", err)
	}
}
