package scenarios_test

import (
	"strings"
	"testing"
	"testing/fstest"

	"contend/scenarios"
)

// A lock's word can live on a line of its own data, a ticket lock can back
// off and a qspinlock's head claim the lock as a given kernel did; what
// cannot be meant is refused at the line that says it.
func TestLockLineAndBackoffErrors(t *testing.T) {
	for _, tc := range []struct {
		name, new, field, fix string
	}{
		{"line not defined", "kind = \"ticket\"\nline = \"statz\"", "lock.line", "not a defined line"},
		{"line on an rwlock", "kind = \"rwlock\"\nline = \"stats\"", "lock.line", "only spinlocks"},
		{"backoff on qspinlock", "kind = \"qspinlock\"\nbackoff = \"20ns\"", "lock.backoff", "only a ticket lock backs off"},
		{"backoff not a duration", "kind = \"ticket\"\nbackoff = \"fast\"", "lock.backoff", "duration"},
		{"claim on mcs", "kind = \"mcs\"\nclaim = \"cmpxchg\"", "lock.claim", "only a qspinlock's queue head claims"},
		{"claim misspelt", "kind = \"qspinlock\"\nclaim = \"cas\"", "lock.claim", "use \"store\""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := edit(t, good, "name = \"qlock\"\nkind = \"ticket\"", "name = \"qlock\"\n"+tc.new)
			_, err := scenarios.Parse(fstest.MapFS{}, "t.toml", []byte(src))
			checkError(t, err, "t.toml", 24+strings.Count(tc.new, "\n"), tc.field, tc.fix)
		})
	}
}

// With the lock word on the stats line, the holder's store to the stats is
// a hit on a line it just took for the lock: two CPUs move one line per
// packet fewer than with the lock on a line of its own, and go faster.
func TestLockOnDataLine(t *testing.T) {
	run := func(src string) (pps, transfers float64) {
		s, err := scenarios.Parse(fstest.MapFS{}, "t.toml", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.Simulate(scenarios.Point{Variant: "locked", Axis: "cores", X: 2, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range res.Lines {
			transfers += l.TransfersPerPacket
		}
		return res.PPS, transfers
	}
	apart, trApart := run(good)
	together, trTogether := run(edit(t, good, "name = \"qlock\"\nkind = \"ticket\"", "name = \"qlock\"\nkind = \"ticket\"\nline = \"stats\""))
	if trTogether > trApart-0.9 || together <= apart {
		t.Errorf("lock beside its data: %.3g pps and %.2f transfers a packet; on its own line %.3g and %.2f: want about one transfer fewer and more packets",
			together, trTogether, apart, trApart)
	}
}
