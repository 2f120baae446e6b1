package scenarios_test

import (
	"math"
	"strings"
	"testing"
	"testing/fstest"

	"contend/scenarios"
)

// A scenario names its own axis and its unit of work: a sweep over "calls"
// drives the flood's CPUs like cores does, rates read in Mcalls/s, and a
// reference may be given in them.
func TestOwnAxisAndUnit(t *testing.T) {
	src := edit(t, good, "[workload]\nkind = \"flood\"\ncores = 2", "[axes]\ncalls = \"cpus\"\n\n[workload]\nkind = \"flood\"\ncores = 2\nunit = \"call\"")
	s, err := scenarios.Parse(fstest.MapFS{}, "t.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.AxisDrives("calls"); got != scenarios.DrivesCPUs {
		t.Fatalf("calls drives %q, want cpus", got)
	}
	if got := s.RateUnit(); got != "Mcalls/s" {
		t.Errorf("rate unit %q, want Mcalls/s", got)
	}
	byCalls, err := s.Simulate(scenarios.Point{Variant: "locked", Axis: "calls", X: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	byCores, err := s.Simulate(scenarios.Point{Variant: "locked", Axis: "cores", X: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if byCalls.PPS != byCores.PPS || len(byCalls.Cores) != len(byCores.Cores) {
		t.Errorf("calls=3 gives %v calls/s, cores=3 gives %v: the same axis by another name should agree", byCalls.PPS, byCores.PPS)
	}
	mcalls, err := scenarios.Metric(byCalls, "throughput", "Mcalls/s")
	if err != nil || math.Abs(mcalls-byCalls.PPS/1e6) > 1e-12*mcalls {
		t.Errorf("throughput in Mcalls/s = %v (%v), want %v", mcalls, err, byCalls.PPS/1e6)
	}
}

func TestOwnAxisAndUnitErrors(t *testing.T) {
	for _, tc := range []struct {
		name, new, field, fix string
	}{
		{"own axis named like a built-in", "[axes]\ncores = \"cpus\"\n", "axes.cores", "built-in axis already"},
		{"own axis drives nothing known", "[axes]\ncalls = \"queues\"\n", "axes.calls", "an axis drives"},
		{"own axis named like a param", "[axes]\nwork = \"cpus\"\n", "axes.work", "is a param"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := edit(t, good, "[workload]\n", tc.new+"\n[workload]\n")
			_, err := scenarios.Parse(fstest.MapFS{}, "t.toml", []byte(src))
			line := 1 + strings.Count(src[:strings.Index(src, "[axes]")], "\n") + 1
			checkError(t, err, "t.toml", line, tc.field, tc.fix)
		})
	}
	src := edit(t, good, "[workload]\nkind = \"flood\"\ncores = 2", "[workload]\nkind = \"flood\"\ncores = 2\nunit = \"Calls!\"")
	_, err := scenarios.Parse(fstest.MapFS{}, "t.toml", []byte(src))
	checkError(t, err, "t.toml", 1+strings.Count(src[:strings.Index(src, "unit = ")], "\n"), "workload.unit", "one lowercase word")
}

// A batch's operation is called by the scenario's unit when the batch runs
// alone and the scenario names one; beside a flood, whose work the unit
// names, by batch_unit, else it is an "op".
func TestBatchUnit(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"flower-insert", "filter"},     // kind = "both", unit = "call", batch_unit = "filter"
		{"flower-under-load", "filter"}, // kind = "both": packets are the flood's, batch_unit = "filter"
		{"kfree-bulk", "op"},            // kind = "both", unit = "op"
		{"rezki-sync-default", "op"},    // kind = "both", unit = "call", no batch_unit
	} {
		s, err := scenarios.LoadBuiltin(tc.name)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.BatchUnit(); got != tc.want {
			t.Errorf("%s: batch unit %q, want %q", tc.name, got, tc.want)
		}
	}
	src := edit(t, good, "[workload]\nkind = \"flood\"", "[workload]\nkind = \"batch\"\nbatch_ops = 3")
	s, err := scenarios.Parse(fstest.MapFS{}, "t.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.BatchUnit(); got != "op" {
		t.Errorf("a batch with the default unit: %q, want op", got)
	}
}
