package web

import (
	"strings"
	"testing"

	"contend/models"
	"contend/scenarios"
	"contend/sim"
)

// TestHeadlineUnits: a run's headline is its series' own metric for the
// variant, in the unit of its references, with the value contend's
// scenarios package computes for the point: qspinlock's cost in ns,
// kfree-bulk's duration in s; and the rates are in the scenario's unit of
// work per second.
func TestHeadlineUnits(t *testing.T) {
	_, ts := newTestServer(t, Options{})
	for _, tc := range []struct {
		scenario, variant, metric, unit, rate string
	}{
		{"qspinlock", "qspinlock", "cost", "ns", "Mlocks/s"},
		{"kfree-bulk", "kfree-bulk", "duration", "s", "Mops/s"},
		{"dst-use", "eager", "throughput", "kpps", "Mpps"},
		{"flower-under-load", "deferred-free", "duration", "s", "Mpps"},
	} {
		c := dial(t, ts)
		c.WriteJSON(Request{Type: "start", Scenario: tc.scenario, Variant: tc.variant})
		var st Started
		until(t, c, "started", &st)
		var done Done
		until(t, c, "done", &done)
		if got := st.Metrics[0]; got.Metric != tc.metric || got.Unit != tc.unit || st.RateUnit != tc.rate {
			t.Errorf("%s: started with headline %+v in rates of %s, want %s in %s, rates in %s", tc.scenario, got, st.RateUnit, tc.metric, tc.unit, tc.rate)
		}
		sc, _ := scenarios.LoadBuiltin(tc.scenario)
		var se *scenarios.Series
		if len(sc.Series) > 0 {
			se = sc.Series[0]
		}
		pts := sc.Replicate([]scenarios.Point{{Series: se, Variant: tc.variant, Seed: sc.Run.Seed}})
		results := make([]*models.Result, len(pts))
		for i, p := range pts {
			var err error
			if results[i], err = sc.Simulate(p); err != nil {
				t.Fatal(err)
			}
		}
		want, err := sc.MeanMetric(results, 0, tc.metric, tc.unit)
		if err != nil {
			t.Fatal(err)
		}
		if got := done.Metrics[0]; got.Metric != tc.metric || got.Unit != tc.unit || got.Value != want {
			t.Errorf("%s: done with %+v, want %s %v %s", tc.scenario, got, tc.metric, want, tc.unit)
		}
	}
}

// TestSweepCost: qspinlock's references are a cost in ns, so its sweep is
// of the cost, every reference at one of the sweep's points.
func TestSweepCost(t *testing.T) {
	_, ts := newTestServer(t, Options{})
	c := dial(t, ts)
	c.WriteJSON(Request{Type: "sweep", Scenario: "qspinlock", Series: "different-nodes"})
	var sd SweepDone
	until(t, c, "sweep_done", &sd)
	if sd.Metric != "cost" || sd.Unit != "ns" || !sd.AxisCounts {
		t.Fatalf("sweep of %s in %s (axis counts: %v), want cost in ns over a count of tasks", sd.Metric, sd.Unit, sd.AxisCounts)
	}
	for _, r := range sd.Refs {
		found := false
		for i, x := range sd.X {
			found = found || x == r.X && sd.Values[0][i] > 0
		}
		if r.Metric != sd.Metric || r.Unit != sd.Unit || !found {
			t.Errorf("reference %+v is not on the sweep's chart (%s in %s at %v)", r, sd.Metric, sd.Unit, sd.X)
		}
	}
}

// TestRefuseTooLong: a start that would reach the event bound is refused
// before it starts, with the longest duration that fits, and that duration
// runs to its end while the one refused, simulated, does reach the bound.
func TestRefuseTooLong(t *testing.T) {
	s, ts := newTestServer(t, Options{})
	text := strings.Replace(string(mustBuiltin(t, "ingress")), "[run]\n", "[run]\nmax_events = 1_500_000\n", 1)
	c := dial(t, ts)
	req := Request{Type: "start", Scenario: "ingress", Text: text, Series: "ingress-u32", Variant: "locked", Cores: new(2), Duration: "40ms"}
	c.WriteJSON(req)
	var e Error
	until(t, c, "error", &e)
	_, offered, ok := strings.Cut(e.Message, "give a duration up to ")
	offered, _, _ = strings.Cut(offered, ",")
	if !ok || !strings.Contains(e.Message, "duration 40ms") || !strings.Contains(e.Message, "1500000 ([run] max_events)") {
		t.Fatalf("error %q", e.Message)
	}
	// The refused duration does reach the bound when simulated.
	j, err := s.point(&Request{Scenario: "ingress", Text: text, Series: "ingress-u32", Variant: "locked", Cores: new(2)})
	if err != nil {
		t.Fatal(err)
	}
	j.duration = 40 * sim.Millisecond
	w, spec, _ := j.build(0)
	if _, err := w.Run(spec); err == nil || !strings.Contains(err.Error(), "bound of 1500000") {
		t.Fatalf("40ms simulated: %v, want the event bound", err)
	}
	req.Duration = offered
	c.WriteJSON(req)
	var done Done
	until(t, c, "done", &done)
	if done.Metrics[0].Value <= 0 {
		t.Fatalf("%s: done %+v", offered, done.Metrics)
	}
}
