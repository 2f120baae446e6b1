package scenarios_test

import (
	"math"
	"testing"

	"contend/scenarios"
)

// Tolerances on the built-in scenarios' reference points, in percent of the
// measured value: a calibrate point was fitted and must stay fitted; a
// validate point is a prediction.
const (
	calibrateTolPct = 5
	validateTolPct  = 10
)

// shapes lists checks of a series beyond the tolerances: the direction its
// seed reports, which must hold at every point whatever the errors.
var shapes = map[string]func(t *testing.T, rows []scenarios.Row){
	// dst-use (seed 004): percpu-lazy above eager at every rx_queues.
	"dst-use": func(t *testing.T, rows []scenarios.Row) {
		eager, lazy := map[float64]float64{}, map[float64]float64{}
		for _, r := range rows {
			if math.IsNaN(r.Predicted) || math.IsInf(r.Predicted, 0) || r.Predicted <= 0 {
				t.Errorf("%s at %s=%v: %s predicted %v; want a finite positive number", r.Variant, r.Axis, r.X, r.Metric, r.Predicted)
			}
			switch r.Variant {
			case "eager":
				eager[r.X] = r.Predicted
			case "percpu-lazy":
				lazy[r.X] = r.Predicted
			}
		}
		if len(eager) == 0 {
			t.Fatal("no eager points")
		}
		for x, e := range eager {
			l, ok := lazy[x]
			if !ok {
				t.Errorf("rx_queues=%v: eager but no percpu-lazy point", x)
				continue
			}
			if !(l > e) {
				t.Errorf("rx_queues=%v: percpu-lazy %.0f, eager %.0f; seed 004 has percpu-lazy faster", x, l, e)
			}
		}
	},
}

// outsideSeeds are the series of the published cases in validation.csv and
// scaling-corpus.csv, outside the seeds: measurements to validate against,
// never to fit to.
// Their validate errors are what contend validate and docs/accuracy.md report,
// not held to a tolerance; their calibrate points and their direction are.
var outsideSeeds = map[string]bool{"same-node": true, "different-nodes": true, "e5540-udp": true, "kfree-bulk": true,
	// the kernel primitives' commits (docs/accuracy.md)
	"fstat2-cascadelake": true, "srcu-refperf": true,
	"x5550-same-cpu": true, "x5550-on-core": true, "x5550-off-core": true, "x5550-off-socket": true,
	"i7-8750h-same-cpu": true, "i7-8750h-on-core": true, "i7-8750h-off-core": true,
	"8176-same-cpu": true, "8176-on-core": true, "8176-off-core": true, "8176-off-socket": true,
	"ivbex-rlock": true, "ivbex-wlock": true, "x5-4-1": true, "x5-4-2": true, "x5-4-4": true, "x5-4-8": true, "x5-4-16": true,
	"x5-4-32": true, "x5-4-36": true, "x5-4-72": true, "x5-4-108": true, "x5-4-142": true,
	// rcu-corpus.csv, the cases that state a CPU count
	"rcuscale-512": true, "rezki-sync-default": true, "rezki-sync-wake-from-gp": true, "paulmck-idle-gp": true,
	// the GP kthread's CPU before and after rcu_gp_init reports it (docs/accuracy.md)
	"gp-kthread-qs-before": true, "gp-kthread-qs-after": true}

// statedMisses are seed points the model misses by more than the tolerance
// for a cause its scenario file states, keyed series/variant/metric. The
// test holds them to missing still, so that a change that brings one in
// drops it here.
var statedMisses = map[string]string{
	// common-tc.toml: the batch's 163 s has 21 s more than its off-CPU time
	// in synchronize_rcu, which the model's insertions do not have.
	"flower-insert/sync-rcu/duration": "6.9 ms an insertion where 8.15 ms were measured",
}

func init() {
	// The commits' direction: each per-cpu change sends more frames, and
	// spends fewer cycles on each.
	shapes["e5540-udp"] = func(t *testing.T, rows []scenarios.Row) {
		got := map[string]map[string]float64{"throughput": {}, "cycles_per_packet": {}}
		for _, r := range rows {
			if m := got[r.Metric]; m != nil {
				m[r.Variant] = r.Predicted
			}
		}
		if tp := got["throughput"]; !(tp["atomic-refcnt"] < tp["percpu-refcnt"] && tp["percpu-refcnt"] < tp["percpu-counter"]) {
			t.Errorf("throughput %v; each per-cpu change should send more frames", tp)
		}
		if cy := got["cycles_per_packet"]; !(cy["atomic-refcnt"] > cy["percpu-refcnt"] && cy["percpu-refcnt"] > cy["percpu-counter"]) {
			t.Errorf("cycles per frame %v; each per-cpu change should spend fewer", cy)
		}
	}
}

func TestBuiltinPredictions(t *testing.T) {
	seen := map[string]bool{}
	for _, name := range scenarios.BuiltinNames() {
		s, err := scenarios.LoadBuiltin(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, se := range s.Series {
			seen[se.Name] = true
			t.Run(name+"/"+se.Name, func(t *testing.T) {
				rows, err := s.Predict(se, s.Run.Seed, nil, s.Serial)
				if err != nil {
					t.Fatal(err)
				}
				if len(rows) != len(se.Refs) {
					t.Fatalf("%d rows for %d reference points", len(rows), len(se.Refs))
				}
				if check, ok := shapes[se.Name]; ok {
					check(t, rows)
				}
				for _, r := range rows {
					// A built-in's every point has settled: enough packets
					// a CPU, and its interval's two halves alike.
					if r.Note != "" {
						t.Errorf("%s %s at %s=%v: %s", r.Scenario, r.Variant, r.Axis, r.X, r.Note)
					}
					tol := float64(validateTolPct)
					switch {
					case r.Role == "calibrate":
						tol = calibrateTolPct
					case outsideSeeds[se.Name]:
						continue
					case statedMisses[se.Name+"/"+r.Variant+"/"+r.Metric] != "":
						if math.Abs(r.ErrorPct) <= tol {
							t.Errorf("%s %s %s: %+.1f%%, within %v%%; the stated miss (%s) is gone, drop it from statedMisses", se.Name, r.Variant, r.Metric, r.ErrorPct, tol, statedMisses[se.Name+"/"+r.Variant+"/"+r.Metric])
						}
						continue
					}
					if !(math.Abs(r.ErrorPct) <= tol) {
						t.Errorf("%s %s at %s=%v: %s measured %v %s, predicted %.4g (%+.1f%%); a %s point must be within %v%%",
							r.Scenario, r.Variant, r.Axis, r.X, r.Metric, r.Measured, r.Unit, r.Predicted, r.ErrorPct, r.Role, tol)
					}
				}
			})
		}
	}
	for name := range shapes {
		if !seen[name] {
			t.Errorf("shapes names series %q, which no built-in has", name)
		}
	}
}

// On different nodes every hand-over of the qspinlock crosses a socket, at
// 324 cycles a transfer instead of 120 (the SOSP'13 table): the same number
// of tasks costs well over one node's. The commit measures about 4x.
func TestQspinlockAcrossNodesCostsMore(t *testing.T) {
	s, err := scenarios.LoadBuiltin("qspinlock")
	if err != nil {
		t.Fatal(err)
	}
	cost := map[string]map[float64]float64{}
	for _, se := range s.Series {
		rows, err := s.Predict(se, s.Run.Seed, nil, s.Serial)
		if err != nil {
			t.Fatal(err)
		}
		cost[se.Name] = map[float64]float64{}
		for _, r := range rows {
			cost[se.Name][r.X] = r.Predicted
		}
	}
	for x, far := range cost["different-nodes"] {
		if near := cost["same-node"][x]; !(far > 1.5*near) {
			t.Errorf("%v tasks: %.0f ns a lock/unlock across nodes, %.0f on one node; want well over", x, far, near)
		}
	}
}

// Changes pairs each variant's row with its series' base row at the same
// point and metric, and gives both changes in percent of the base; rows of
// other series, other points and the base itself make none.
func TestChanges(t *testing.T) {
	se := &scenarios.Series{Name: "s", Base: "before"}
	row := func(series, variant string, x, measured, predicted float64) scenarios.Row {
		return scenarios.Row{Series: series, Variant: variant, Axis: "cores", X: x, Metric: "throughput", Measured: measured, Predicted: predicted}
	}
	rows := []scenarios.Row{
		row("s", "before", 2, 100, 80),
		row("s", "after", 2, 125, 60),
		row("s", "after", 4, 300, 300),   // no base at 4 cores
		row("t", "after", 2, 1000, 1000), // another series
	}
	got := scenarios.Changes(se, rows)
	if len(got) != 1 {
		t.Fatalf("%d changes, want 1: %+v", len(got), got)
	}
	c := got[0]
	if c.Variant != "after" || c.Base != "before" || c.X != 2 || math.Abs(c.MeasuredPct-25) > 1e-9 || math.Abs(c.PredictedPct+25) > 1e-9 {
		t.Errorf("change %+v, want after against before at 2 cores: measured +25%%, predicted -25%%", c)
	}
	if n := len(scenarios.Changes(&scenarios.Series{Name: "s"}, rows)); n != 0 {
		t.Errorf("a series without a base gave %d changes", n)
	}
}
