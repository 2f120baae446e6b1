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

// A call_rcu's callback written in place (steps = [...]) is the same program
// as the block it would name: the two spellings simulate to the same bytes,
// and Inline shows the named one written in place.
func TestCallbackInPlaceSameAsNamed(t *testing.T) {
	named := edit(t, good, "\n[[variant]]\nname = \"locked\"\nsteps = [\n  { compute = \"work\" },",
		"\n[[line]]\nname = \"refs\"\n\n[block]\nput = [ { rmw = \"refs\" }, { compute = \"work\" } ]\n\n[[variant]]\nname = \"locked\"\nsteps = [\n  { compute = \"work\" }, { call_rcu = 64, callback = \"put\" },")
	named = edit(t, named, `duration = "10us"`, "warmup = \"2ms\"\nduration = \"4ms\"\n\n[kernel]\nhz = 1000")
	inPlace := edit(t, named, `{ call_rcu = 64, callback = "put" }`, `{ call_rcu = 64, steps = [ { rmw = "refs" }, { compute = "work" } ] }`)
	var out [2][]byte
	for i, src := range []string{named, inPlace} {
		s, err := scenarios.Parse(fstest.MapFS{}, "t.toml", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		v := s.Variant("locked")
		if !s.RunsCallbacks(v) {
			t.Fatalf("spelling %d runs no callback", i)
		}
		in := s.Inline(v)
		if st := in[1]; st.Kind != scenarios.StepCallRCU || st.Callback != "" || len(st.Steps) != 2 || st.Steps[0].Arg != "refs" {
			t.Errorf("spelling %d: Inline gives the call_rcu as %+v; want its two callback steps in place", i, st)
		}
		out[i] = resultJSON(t, s, scenarios.Point{Variant: "locked", Seed: 1})
	}
	if !bytes.Equal(out[0], out[1]) {
		t.Errorf("named and in-place callbacks differ:\n%s\n%s", out[0], out[1])
	}
	if !bytes.Contains(out[0], []byte(`"name":"refs"`)) {
		t.Errorf("the callback's line never appears in the result:\n%s", out[0])
	}
}

// A jiffy gate in a callback guards the callback's steps, not the packet's:
// the line it guards is written at most once a jiffy on each CPU, and the
// store after the call_rcu runs for every packet.
func TestJiffyGateInCallback(t *testing.T) {
	src := edit(t, good, "\n[[variant]]\nname = \"locked\"\nsteps = [\n  { compute = \"work\" },",
		"\n[[line]]\nname = \"refs\"\n\n[[variant]]\nname = \"locked\"\nsteps = [\n  { compute = \"work\" }, { call_rcu = 0, steps = [ { once_per_jiffy = \"percpu\", steps = [ { rmw = \"refs\" } ] } ] },")
	src = edit(t, src, `duration = "10us"`, "warmup = \"2ms\"\nduration = \"4ms\"\n\n[kernel]\nhz = 1000")
	s, err := scenarios.Parse(fstest.MapFS{}, "t.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Simulate(scenarios.Point{Variant: "locked", Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	acc := map[string]uint64{}
	for _, l := range r.Lines {
		acc[l.Name] = l.Accesses
	}
	// Two CPUs, four jiffies measured: each CPU's callbacks pass the gate
	// once in each jiffy they run in, five at most.
	if n := acc["refs"]; n == 0 || n > 2*5 {
		t.Errorf("refs written %d times in 4 jiffies on 2 CPUs; want 1 to 10", n)
	}
	if acc["stats"] < r.Packets {
		t.Errorf("stats written %d times for %d packets: the gate skipped the packet's own steps", acc["stats"], r.Packets)
	}
}
