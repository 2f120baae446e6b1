package scenarios_test

import (
	"testing"
	"testing/fstest"

	"contend/scenarios"
)

// Every lock kind's word can share the line of the data it protects: the
// lock's traffic is then the data line's, and no line of its own moves.
// Two CPUs move fewer lines per packet than with the lock apart where
// nobody re-reads the line while the holder writes the data (a qspinlock's
// queued waiter), no more where a waiting writer spins on it (a rwlock's:
// its re-read takes the data line back), and more, up to one a packet, for
// a mutex: its spinner reads the owner word again at each of the holder's
// stores to the data beside it (struct mutex beside hot data is false
// sharing).
func TestEveryLockOnDataLine(t *testing.T) {
	for _, tc := range []struct{ kind, lock, unlock string }{
		{"rwlock", "write_lock", "write_unlock"},
		{"mutex", "mutex_lock", "mutex_unlock"},
		{"qspinlock", "lock", "unlock"},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			src := edit(t, good, "name = \"qlock\"\nkind = \"ticket\"", "name = \"qlock\"\nkind = \""+tc.kind+"\"")
			src = edit(t, src, "{ lock = \"qlock\" },\n  { store = \"stats\" },\n  { unlock = \"qlock\" },",
				"{ "+tc.lock+" = \"qlock\" },\n  { store = \"stats\" },\n  { "+tc.unlock+" = \"qlock\" },")
			run := func(src string) (transfers float64, own bool) {
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
					own = own || l.Name == "qlock"
				}
				return transfers, own
			}
			apart, _ := run(src)
			together, own := run(edit(t, src, "name = \"qlock\"\nkind = \""+tc.kind+"\"", "name = \"qlock\"\nkind = \""+tc.kind+"\"\nline = \"stats\""))
			bad := together > apart+0.05 || tc.kind == "qspinlock" && together > apart-0.5
			if tc.kind == "mutex" {
				bad = together < apart+0.5 || together > apart+1.05
			}
			if own || bad {
				t.Errorf("%s beside its data: %.2f transfers a packet (a line of its own: %v); on its own line %.2f", tc.kind, together, own, apart)
			}
		})
	}
}
