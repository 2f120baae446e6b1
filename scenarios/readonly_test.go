package scenarios_test

import (
	"io/fs"
	"math"
	"slices"
	"testing"
	"testing/fstest"

	"contend/scenarios"
)

// A line is read-only only when load steps are all that name it: a store or
// an atomic anywhere (another variant, a block, a callback, a jiffy gate's
// body), a lock's word, a percpu_counter's count, a jiffy gate or a
// ping-pong on it all write it.
func TestReadOnlyLines(t *testing.T) {
	lines := ""
	for _, name := range []string{"ro", "unused", "in_other", "locked_on", "gate", "in_gate", "in_cb", "ball", "count"} {
		lines += "[[line]]\nname = \"" + name + "\"\n"
	}
	lines += "[[line]]\nname = \"count_pcpu\"\npercpu = true\npercpu_counter = \"count\"\n"
	lines += "[[lock]]\nname = \"on_data\"\nkind = \"ticket\"\nline = \"locked_on\"\n"
	lines += "[block]\ncb = [ { load = \"ro\" }, { rmw = \"in_cb\" } ]\n"
	src := edit(t, good, "[[line]]\nname = \"stats\"\n", "[[line]]\nname = \"stats\"\n"+lines)
	src = edit(t, src, "  { store = \"stats\" },\n", `  { store = "stats" },
  { load = "ro" }, { load = "in_other" }, { load = "locked_on" }, { load = "in_gate" }, { load = "in_cb" }, { load = "ball" }, { load = "count" },
  { once_per_jiffy = "gate", steps = [ { store = "in_gate" } ] },
  { call_rcu = 0, callback = "cb" },
  { percpu_counter_inc = "count_pcpu" },
`)
	src = edit(t, src, "\n[workload]", `
[[variant]]
name = "other"
steps = [ { load = "ro" }, { store = "in_other" }, { pingpong = "ball" } ]

[workload]`)
	s, err := scenarios.Parse(fstest.MapFS{}, "t.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := s.ReadOnlyLines(), []string{"ro", "unused"}; !slices.Equal(got, want) {
		t.Errorf("read-only lines %v; want %v", got, want)
	}
}

// Marking seed 000's qdisc_state read-only lets a core run its loads ahead
// of the clock once it holds the line: what the run predicts moves by no
// more than the order of its draws can move it (one core, where that order
// does not change, predicts the same to the bit), and the lockless ingress
// on two CPUs takes a small fraction of the events a packet it took.
func TestReadOnlyRunsAhead(t *testing.T) {
	s, err := scenarios.LoadBuiltin("ingress")
	if err != nil {
		t.Fatal(err)
	}
	if ro := s.ReadOnlyLines(); !slices.Equal(ro, []string{"qdisc_state"}) {
		t.Fatalf("read-only lines of ingress %v; want [qdisc_state]", ro)
	}
	src, err := fs.ReadFile(scenarios.Builtin(), "ingress.toml")
	if err != nil {
		t.Fatal(err)
	}
	src = append(src, "\n[[variant]]\nname = \"writer\"\nsteps = [ { store = \"qdisc_state\" } ]\n"...)
	written, err := scenarios.Parse(scenarios.Builtin(), "ingress.toml", src)
	if err != nil {
		t.Fatal(err)
	}
	if ro := written.ReadOnlyLines(); len(ro) != 0 {
		t.Fatalf("read-only lines %v once a variant stores to qdisc_state; want none", ro)
	}
	se := seriesOf(t, s, "ingress-u32")
	for _, cores := range []float64{1, 2} {
		p := scenarios.Point{Series: se, Variant: "lockless", Axis: "cores", X: cores, Seed: 1}
		w, spec, err := s.Build(p)
		if err != nil {
			t.Fatal(err)
		}
		marked, err := w.Run(spec)
		if err != nil {
			t.Fatal(err)
		}
		// The same point where a variant it does not run writes the line.
		p.Series = seriesOf(t, written, "ingress-u32")
		w2, spec2, err := written.Build(p)
		if err != nil {
			t.Fatal(err)
		}
		plain, err := w2.Run(spec2)
		if err != nil {
			t.Fatal(err)
		}
		perPacket := func(fired, packets uint64) float64 { return float64(fired) / float64(packets) }
		evMarked, evPlain := perPacket(w.M.Fired(), marked.Packets), perPacket(w2.M.Fired(), plain.Packets)
		t.Logf("%v cores: %.0f pps and %.3f events a packet read-only; %.0f and %.3f not", cores, marked.PPS, evMarked, plain.PPS, evPlain)
		switch {
		case cores == 1 && marked.PPS != plain.PPS:
			t.Errorf("one core: %v pps with qdisc_state read-only, %v without; want the same", marked.PPS, plain.PPS)
		case math.Abs(marked.PPS/plain.PPS-1) > 0.002:
			t.Errorf("%v cores: %v pps with qdisc_state read-only, %v without; want within 0.2%%", cores, marked.PPS, plain.PPS)
		case evMarked > evPlain/10:
			t.Errorf("%v cores: %.3f events a packet with qdisc_state read-only, %.3f without; want a tenth or fewer", cores, evMarked, evPlain)
		}
	}
}

func seriesOf(t *testing.T, s *scenarios.Scenario, name string) *scenarios.Series {
	t.Helper()
	for _, x := range s.Series {
		if x.Name == name {
			return x
		}
	}
	t.Fatalf("%s has no series %s", s.Name, name)
	return nil
}
