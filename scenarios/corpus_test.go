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
// with and without each published case, and its errors there vanish; at 0.5
// they do not (the figures depend on the constant). Two scenarios of two
// series each: each series weighs a half, a scenario one.
func TestFitCorpusFindsTheTruth(t *testing.T) {
	const truth = 0.3
	var ss []*scenarios.Scenario
	for _, name := range []string{"c", "d"} {
		s, err := scenarios.Parse(fstest.MapFS{}, name+".toml", []byte(strings.Replace(corpusSrc, `name = "c"`, `name = "`+name+`"`, 1)))
		if err != nil {
			t.Fatal(err)
		}
		for _, se := range s.Series {
			rows, err := s.Predict(se, 1, map[string]float64{"profile.snoop": truth}, s.Serial)
			if err != nil {
				t.Fatal(err)
			}
			for i := range se.Refs {
				se.Refs[i].Value = rows[i].Predicted
			}
		}
		ss = append(ss, s)
	}
	seed := func(*scenarios.Scenario) int64 { return 1 }
	run := func(s *scenarios.Scenario) scenarios.Runner { return s.Serial }
	res, err := scenarios.FitCorpus(scenarios.Corpus(ss), "profile.snoop", 0.5, []float64{0.1, 0.2, 0.3, 0.45, 0.6, 0.8}, 2, seed, run)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(res.Best-truth) > 0.05 {
		t.Errorf("fitted %v, want %v", res.Best, truth)
	}
	if len(res.Cases) != 4 {
		t.Fatalf("%d cases, want 4", len(res.Cases))
	}
	for _, c := range res.Cases {
		if c.Weight != 0.5 {
			t.Errorf("%s: weight %v, want a half (its scenario has two series)", c.Case, c.Weight)
		}
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
		_, err := scenarios.FitCorpus(cases, tc.param, 0.5, tc.grid, 2, seed, run)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %v: error %v, want one saying %q", tc.param, tc.grid, err, tc.want)
		}
	}
	if _, err := scenarios.FitCorpus(cases, "profile.snoop", 0.5, []float64{0.1, 0.2, 0.3}, 2, seed, run); err == nil || !strings.Contains(err.Error(), "published case") {
		t.Errorf("the series of one scenario were fitted (error %v); leaving a published case out needs two", err)
	}
}
