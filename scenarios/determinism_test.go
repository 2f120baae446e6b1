package scenarios_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"testing/fstest"

	"contend/scenarios"
)

func resultJSON(t *testing.T, s *scenarios.Scenario, p scenarios.Point) []byte {
	t.Helper()
	r, err := s.Simulate(p)
	if err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// The same point simulated twice gives the same bytes: every built-in's
// first variant as written, and each series' first reference point.
func TestSamePointSameJSON(t *testing.T) {
	for _, name := range scenarios.BuiltinNames() {
		s, err := scenarios.LoadBuiltin(name)
		if err != nil {
			t.Fatal(err)
		}
		pts := []scenarios.Point{{Variant: s.Variants[0].Name, Seed: s.Run.Seed}}
		for _, se := range s.Series {
			if len(se.Refs) > 0 {
				pts = append(pts, s.RefPoint(se, se.Refs[0], s.Run.Seed, nil))
			}
		}
		for _, p := range pts {
			a, b := resultJSON(t, s, p), resultJSON(t, s, p)
			if !bytes.Equal(a, b) {
				t.Errorf("%s %s at %s=%v: two runs differ:\n%s\n%s", name, p.Variant, p.Axis, p.X, a, b)
			}
		}
	}
}

// With exponential jitter the seed matters: another seed, other numbers. The
// same seed still gives the same bytes.
func TestSeedChangesJitteredRun(t *testing.T) {
	src := strings.Replace(good, `jitter = "none"`, `jitter = "exponential"`, 1)
	s, err := scenarios.Parse(fstest.MapFS{}, "t.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	p := scenarios.Point{Variant: "locked", Seed: 1}
	one, again := resultJSON(t, s, p), resultJSON(t, s, p)
	p.Seed = 2
	two := resultJSON(t, s, p)
	if !bytes.Equal(one, again) {
		t.Errorf("seed 1 twice differs:\n%s\n%s", one, again)
	}
	if bytes.Equal(one, two) {
		t.Errorf("seeds 1 and 2 give the same result on a jittered profile:\n%s", one)
	}
	// Without jitter there is nothing random in this closed loop.
	s, err = scenarios.Parse(fstest.MapFS{}, "t.toml", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	p.Seed = 1
	one = resultJSON(t, s, p)
	p.Seed = 2
	if two := resultJSON(t, s, p); !bytes.Equal(one, two) {
		t.Errorf("seeds 1 and 2 differ without jitter:\n%s\n%s", one, two)
	}
}
