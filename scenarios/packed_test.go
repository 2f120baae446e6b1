package scenarios_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"contend/scenarios"
)

// packedSrc is a flood whose CPUs each increment their own element of a
// per-cpu array (load, then store), perLine elements to a cache line, with
// work between so the lines' transfers do not queue.
func packedSrc(perLine int) string {
	return fmt.Sprintf(`name = "packed"
[profile.p]
ghz = 2.0
sockets = 1
cores_per_socket = 8
threads_per_core = 1
l1_hit = "4cyc"
llc_hit = "40cyc"
same_socket = "100cyc"
other_socket = "300cyc"
memory = "300cyc"
smt_sibling = "20cyc"
wakeup = "5us"
atomic = "20cyc"
[[line]]
name = "stats"
percpu = true
per_line = %d
[[variant]]
name = "inc"
steps = [{ load = "stats" }, { store = "stats" }, { compute = "1us" }]
[workload]
kind = "flood"
cores = 1
[sweep]
cores = [1, 8]
`, perLine)
}

// A per-cpu array whose elements share lines is false-shared: with 8 CPUs
// and 4 elements a line, an increment finds its line last written by
// another CPU of its group most of the time (a group's ops come from its
// four CPUs in no fixed order), so at least half a transfer an op, and at
// most two (the load's, and the store's when the line was taken between),
// on lines named stats[0] and stats[1]; with an element a line, none.
func TestPackedPerCPUArray(t *testing.T) {
	run := func(perLine int) (float64, []string) {
		s, err := scenarios.Parse(fstest.MapFS{}, "t.toml", []byte(packedSrc(perLine)))
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.Simulate(scenarios.Point{Variant: "inc", Axis: "cores", X: 8, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		var sum float64
		var names []string
		for _, l := range res.Lines {
			sum += l.TransfersPerPacket
			names = append(names, l.Name)
		}
		return sum, names
	}
	if tr, _ := run(1); tr != 0 {
		t.Errorf("an element a line: %.3f transfers an op, want none", tr)
	}
	tr, names := run(4)
	if tr < 0.5 || tr > 2 {
		t.Errorf("4 elements a line on 8 CPUs: %.3f transfers an op, want 0.5-2", tr)
	}
	if slices.Sort(names); strings.Join(names, ",") != "stats[0],stats[1]" {
		t.Errorf("lines %v, want stats[0],stats[1]", names)
	}
}

// per_line is checked: it packs a per-cpu line, and only plain accesses
// reach its elements.
func TestPackedPerCPUArrayErrors(t *testing.T) {
	for _, tc := range []struct{ from, to, want string }{
		{"percpu = true\n", "", "set percpu = true"},
		{"per_line = 4", "per_line = 65", "from 2 to 64"},
		{`{ load = "stats" }`, `{ pingpong = "stats" }`, "per-cpu"},
		{`{ load = "stats" }`, `{ cmpxchg = "stats" }`, "line of its own"},
	} {
		src := strings.Replace(packedSrc(4), tc.from, tc.to, 1)
		_, err := scenarios.Parse(fstest.MapFS{}, "t.toml", []byte(src))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q -> %q: error %v, want one saying %q", tc.from, tc.to, err, tc.want)
		}
	}
}
