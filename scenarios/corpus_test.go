package scenarios_test

import (
	"math"
	"strings"
	"testing"
	"testing/fstest"

	"contend/scenarios"
)

// corpusSrc is two cases of one contended counter, their references to be
// made by the model itself at a known snoop.
const corpusSrc = `name = "c"

[profile.box]
ghz = 2
sockets = 1
cores_per_socket = 4
threads_per_core = 1
l1_hit = "1ns"
smt_sibling = "15ns"
same_socket = "60ns"
other_socket = "120ns"
memory = "90ns"
atomic = "8ns"
wakeup = "5us"
jitter = "none"

[params]
work = "5ns"

[[line]]
name = "counter"

[[variant]]
name = "add"
steps = [ { rmw = "counter" }, { compute = "work" } ]

[workload]
kind = "flood"
cores = 2

[run]
duration = "20us"

[[series]]
name = "short"
profile = "box"
[[series.reference]]
variant = "add"
x = 2
metric = "throughput"
value = 1
unit = "Mpps"
role = "validate"
[[series.reference]]
variant = "add"
x = 4
metric = "throughput"
value = 1
unit = "Mpps"
role = "validate"

[[series]]
name = "long"
profile = "box"
[series.params]
work = "12ns"
[[series.reference]]
variant = "add"
x = 2
metric = "throughput"
value = 1
unit = "Mpps"
role = "validate"
`

// A corpus whose figures the model made at snoop 0.3 is fitted back to 0.3,
// with and without each case, and its errors there vanish; at 0.5 they do
// not (the figures depend on the constant).
func TestFitCorpusFindsTheTruth(t *testing.T) {
	s, err := scenarios.Parse(fstest.MapFS{}, "c.toml", []byte(corpusSrc))
	if err != nil {
		t.Fatal(err)
	}
	const truth = 0.3
	for _, se := range s.Series {
		rows, err := s.Predict(se, 1, map[string]float64{"profile.snoop": truth}, s.Serial)
		if err != nil {
			t.Fatal(err)
		}
		for i := range se.Refs {
			se.Refs[i].Value = rows[i].Predicted
		}
	}
	seed := func(*scenarios.Scenario) int64 { return 1 }
	run := func(s *scenarios.Scenario) scenarios.Runner { return s.Serial }
	res, err := scenarios.FitCorpus(scenarios.Corpus([]*scenarios.Scenario{s}), "profile.snoop", 0.5, []float64{0.1, 0.2, 0.3, 0.45, 0.6, 0.8}, seed, run)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(res.Best-truth) > 0.05 {
		t.Errorf("fitted %v, want %v", res.Best, truth)
	}
	if len(res.Cases) != 2 {
		t.Fatalf("%d cases, want 2", len(res.Cases))
	}
	for _, c := range res.Cases {
		if c.Held != truth {
			t.Errorf("%s: fitted without it %v, want %v", c.Case, c.Held, truth)
		}
		if c.AtHeld > 0.5 {
			t.Errorf("%s: %.2f%% off at the value fitted without it, want ~0", c.Case, c.AtHeld)
		}
		if c.AtCurrent < 1 {
			t.Errorf("%s: %.2f%% off at snoop 0.5: the figures do not depend on the constant, so the test proves nothing", c.Case, c.AtCurrent)
		}
	}
}

// Bad corpus fits are refused with what to do.
func TestFitCorpusRefuses(t *testing.T) {
	s, err := scenarios.Parse(fstest.MapFS{}, "c.toml", []byte(corpusSrc))
	if err != nil {
		t.Fatal(err)
	}
	seed := func(*scenarios.Scenario) int64 { return 1 }
	run := func(s *scenarios.Scenario) scenarios.Runner { return s.Serial }
	cases := scenarios.Corpus([]*scenarios.Scenario{s})
	for _, tc := range []struct {
		param string
		grid  []float64
		want  string
	}{
		{"profile.atomic", []float64{1, 2, 3}, "not a corpus constant"},
		{"profile.snoop", []float64{0.1, 0.2}, "at least 3"},
		{"profile.snoop", []float64{0.1, 0.2, 1.5}, "out of its bounds"},
	} {
		_, err := scenarios.FitCorpus(cases, tc.param, 0.5, tc.grid, seed, run)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %v: error %v, want one saying %q", tc.param, tc.grid, err, tc.want)
		}
	}
	if _, err := scenarios.FitCorpus(cases[:1], "profile.snoop", 0.5, []float64{0.1, 0.2, 0.3}, seed, run); err == nil {
		t.Error("one case was fitted; leaving one out needs two")
	}
}
