package cacheline_test

import (
	"slices"
	"testing"

	"contend/cacheline"
	"contend/sim"
)

// grid is a topology written for the tests: SMT pairs (2k, 2k+1), perSocket
// cores to a socket.
type grid struct{ n, perSocket int }

func (g grid) NumCores() int { return g.n }

// Place puts one LLC on each socket.
func (g grid) Place(c int) (socket, llc, core int) { return c / g.perSocket, c / g.perSocket, c / 2 }

// testLat gives every distance a different cost, so a miss served from the
// wrong place shows in its completion time.
var testLat = cacheline.Latencies{
	cacheline.Local:       1 * sim.Nanosecond,
	cacheline.SMTSibling:  7 * sim.Nanosecond,
	cacheline.LLC:         17 * sim.Nanosecond,
	cacheline.SameSocket:  43 * sim.Nanosecond,
	cacheline.OtherLLC:    71 * sim.Nanosecond,
	cacheline.OtherSocket: 131 * sim.Nanosecond,
	cacheline.Memory:      89 * sim.Nanosecond,
}

// testOccupancy is how long the home spends on a read it serves itself.
const testOccupancy = 3 * sim.Nanosecond

func newSystem(t testing.TB, topo cacheline.Topology, lines ...string) (*cacheline.System, []*cacheline.Line) {
	t.Helper()
	s := cacheline.NewSystem(sim.NewEngine(), topo, testLat)
	var out []*cacheline.Line
	for _, name := range lines {
		l, err := s.NewLine(name, false)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, l)
	}
	return s, out
}

// A line read by many cores is held by all of them: further loads are L1 hits
// and move nothing. One store invalidates every other copy, and each former
// sharer then misses exactly once to read it again (MESI: S -> M on the
// writer, S -> I on the others, I -> S on the next read).
func TestSharedLoadsThenStore(t *testing.T) {
	const sharers = 12
	s, ls := newSystem(t, grid{n: 16, perSocket: 8}, "dst")
	l := ls[0]
	now := sim.Time(0)
	step := func() sim.Time { now += 500 * sim.Nanosecond; return now }

	for c := range sharers {
		s.Access(step(), c, l, cacheline.Load, 0)
	}
	if got := l.Sharers(); !slices.Equal(got, seq(sharers)) {
		t.Fatalf("sharers after first loads = %v, want cores 0..%d", got, sharers-1)
	}
	before := l.Stats.Transfers
	for range 3 {
		for c := range sharers {
			if r := s.Access(step(), c, l, cacheline.Load, 0); !r.Hit() || r.Done != now {
				t.Fatalf("reload by cpu %d of a shared line = %+v, want a hit at %v", c, r, now)
			}
		}
	}
	if l.Stats.Transfers != before {
		t.Fatalf("reloads of a shared line made %d transfers, want 0", l.Stats.Transfers-before)
	}

	const writer = 3
	inv := l.Stats.Invalidations
	r := s.Access(step(), writer, l, cacheline.Store, 0)
	if got := l.Stats.Invalidations - inv; got != sharers-1 {
		t.Fatalf("store invalidated %d copies, want %d (every sharer but the writer)", got, sharers-1)
	}
	if r.Hit() || l.Owner() != writer || len(l.Sharers()) != 0 {
		t.Fatalf("after store: result %+v, owner %d, sharers %v; want a miss, owner %d, no sharers", r, l.Owner(), l.Sharers(), writer)
	}

	for round := range 2 {
		for c := range sharers {
			if c == writer {
				continue
			}
			tr := l.Stats.Transfers
			s.Access(step(), c, l, cacheline.Load, 0)
			want := uint64(1)
			if round > 0 {
				want = 0
			}
			if got := l.Stats.Transfers - tr; got != want {
				t.Fatalf("round %d: load by former sharer %d made %d transfers, want %d", round, c, got, want)
			}
		}
	}
}

func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// Requests that arrive together at a line are served one after another, each
// from the core that asked just before it (it became the owner when it asked):
// the k-th completes after the k-1 transfers and holds queued before it.
func TestOwnershipRequestsSerialize(t *testing.T) {
	topo := grid{n: 8, perSocket: 8}
	s, ls := newSystem(t, topo, "lock")
	l := ls[0]
	const hold = 5 * sim.Nanosecond
	first := s.Access(0, 0, l, cacheline.RMW, 0)
	free := first.Done
	now := sim.Microsecond
	for c := 1; c < topo.n; c++ {
		r := s.Access(now, c, l, cacheline.RMW, hold)
		start := max(now, free)
		want := start + testLat[s.Distance(c-1, c)]
		if r.Done != want || r.Queued != start-now {
			t.Fatalf("cpu %d: done %v queued %v, want done %v queued %v", c, r.Done, r.Queued, want, start-now)
		}
		free = r.Done + hold
	}
	if want := uint64(topo.n); l.Stats.Transfers != want || l.Stats.HITM != want-1 {
		t.Fatalf("transfers %d HITM %d, want %d and %d", l.Stats.Transfers, l.Stats.HITM, want, want-1)
	}
}

type wakeRecord struct {
	at []sim.Time
}

func (w *wakeRecord) LineLost(at sim.Time) { w.at = append(w.at, at) }

// A core watching a line (a spinner) is woken when a store takes its copy, at
// the moment the writer has the line, and only then; the writer's own watch
// stays.
func TestWatchersWokenByStore(t *testing.T) {
	s, ls := newSystem(t, grid{n: 4, perSocket: 4}, "ticket")
	l := ls[0]
	w := make([]*wakeRecord, 4)
	for c := range w {
		s.Access(sim.Time(c)*sim.Microsecond, c, l, cacheline.Load, 0)
		w[c] = &wakeRecord{}
		s.Watch(l, c, w[c])
	}
	// Another load moves nothing away from anyone.
	s.Access(10*sim.Microsecond, 1, l, cacheline.Load, 0)
	s.Unwatch(l, w[2])
	r := s.Access(20*sim.Microsecond, 0, l, cacheline.Store, 0)
	for c, want := range [][]sim.Time{nil, {r.Done}, nil, {r.Done}} {
		if !slices.Equal(w[c].at, want) {
			t.Errorf("cpu %d woken at %v, want %v", c, w[c].at, want)
		}
	}
	// The writer's watch survives its own store and fires on the next one.
	r = s.Access(30*sim.Microsecond, 3, l, cacheline.RMW, 0)
	if !slices.Equal(w[0].at, []sim.Time{r.Done}) {
		t.Errorf("writer woken at %v, want %v", w[0].at, []sim.Time{r.Done})
	}
}

func TestNewLineRejectsDuplicateName(t *testing.T) {
	s, _ := newSystem(t, grid{n: 2, perSocket: 2}, "a")
	if _, err := s.NewLine("a", true); err == nil {
		t.Fatal("second line called \"a\" was accepted")
	}
	if s.Line("a") == nil || s.Line("b") != nil || len(s.Lines()) != 1 {
		t.Fatalf("lines = %v after a rejected duplicate", s.Lines())
	}
}

// Every transfer is charged to the core whose miss caused it: two cores
// storing in turn each take the line from the other once per round, a
// reader that stays a sharer misses once, and the per-core counts add up to
// the line's total.
func TestTransfersBy(t *testing.T) {
	s, ls := newSystem(t, grid{n: 4, perSocket: 4}, "stats")
	l := ls[0]
	var now sim.Time
	for range 5 {
		for _, c := range []int{0, 1} {
			now = s.Access(now, c, l, cacheline.Store, 0).Done
		}
	}
	now = s.Access(now, 2, l, cacheline.Load, 0).Done
	s.Access(now, 2, l, cacheline.Load, 0)
	want := []uint64{5, 5, 1, 0}
	if got := l.Stats.TransfersBy; !slices.Equal(got, want) {
		t.Fatalf("transfers by core = %v, want %v", got, want)
	}
	var sum uint64
	for _, n := range l.Stats.TransfersBy {
		sum += n
	}
	if sum != l.Stats.Transfers {
		t.Fatalf("per-core transfers add to %d, line total %d", sum, l.Stats.Transfers)
	}
	l.ResetStats()
	if !slices.Equal(l.Stats.TransfersBy, []uint64{0, 0, 0, 0}) {
		t.Fatalf("ResetStats left %v", l.Stats.TransfersBy)
	}
}

// The trace hears of every request a home serves, hits never: a line read
// from memory, taken modified by a core of the other socket (HITM), read
// back while that core holds it, then upgraded by the reader, whose one
// other sharer is across the socket. Each record's times are the
// latencies of testLat from where the doc's table says the line comes.
func TestTraceRecordsEveryServedRequest(t *testing.T) {
	s, ls := newSystem(t, grid{n: 16, perSocket: 8}, "x")
	l := ls[0]
	var got []cacheline.Transfer
	s.Trace = func(tr cacheline.Transfer) { got = append(got, tr) }
	const us = sim.Microsecond
	s.Access(1*us, 0, l, cacheline.Load, 0)
	s.Access(2*us, 0, l, cacheline.Load, 0) // a hit: not traced
	s.Access(3*us, 9, l, cacheline.RMW, 0)
	s.Access(4*us, 0, l, cacheline.Load, 0)
	s.Access(5*us, 0, l, cacheline.Store, 0)
	want := []cacheline.Transfer{
		{Core: 0, Line: l, Op: cacheline.Load, Asked: 1 * us, Start: 1 * us, End: 1*us + testLat[cacheline.Memory], From: cacheline.Memory},
		{Core: 9, Line: l, Op: cacheline.RMW, Asked: 3 * us, Start: 3 * us, End: 3*us + testLat[cacheline.OtherSocket], From: cacheline.OtherSocket},
		{Core: 0, Line: l, Op: cacheline.Load, Asked: 4 * us, Start: 4 * us, End: 4*us + testLat[cacheline.OtherSocket], From: cacheline.OtherSocket, HITM: true},
		{Core: 0, Line: l, Op: cacheline.Store, Asked: 5 * us, Start: 5 * us, End: 5*us + testLat[cacheline.OtherSocket], From: cacheline.OtherSocket},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("trace:\n got %+v\nwant %+v", got, want)
	}
	if n := uint64(len(got)); n != l.Stats.Transfers {
		t.Fatalf("trace has %d records, the line's stats %d transfers", n, l.Stats.Transfers)
	}
}

// Busy is the time the line's home can serve no other request, each span
// once: a transfer and the atomic that holds the line after it, a read's
// occupancy, an owner's hold that later requests wait for. Three requests
// at the same instant queue one behind the other, so the line is busy for
// the sum of their spans; an owner's hits, which no one waits behind, add
// nothing.
func TestBusyCountsEachSpanOnce(t *testing.T) {
	s, ls := newSystem(t, grid{n: 4, perSocket: 4}, "x")
	s.Occupancy = testOccupancy
	l := ls[0]
	const hold = 5 * sim.Nanosecond
	// From memory to core 0, then queued behind it core 2 (same socket),
	// then core 1 (core 0's SMT sibling, but the line is at core 2 by then).
	r0 := s.Access(0, 0, l, cacheline.RMW, hold)
	r2 := s.Access(0, 2, l, cacheline.RMW, hold)
	r1 := s.Access(0, 1, l, cacheline.RMW, hold)
	want := testLat[cacheline.Memory] + testLat[cacheline.SameSocket] + testLat[cacheline.SameSocket] + 3*hold
	if got := l.Stats.Busy; got != want {
		t.Fatalf("busy %v after three queued RMWs (done at %v, %v, %v); want %v", got, r0.Done, r2.Done, r1.Done, want)
	}
	// Core 1 owns it: its own atomics are hits and keep no one waiting.
	now := r1.Done + 100*sim.Nanosecond
	s.Access(now, 1, l, cacheline.RMW, hold)
	if got := l.Stats.Busy; got != want {
		t.Fatalf("busy %v after an owner's hit; want it unchanged, %v", got, want)
	}
	// A hold that overlaps the one before it counts only its new part.
	s.HoldUntil(l, now+hold+2*sim.Nanosecond)
	want += 2 * sim.Nanosecond
	if got := l.Stats.Busy; got != want {
		t.Fatalf("busy %v after extending a hold by 2ns; want %v", got, want)
	}
	// Two cores read it: the first is a transfer from core 1 (HITM, serial),
	// the second is served beside it from the LLC for the home's occupancy.
	now += sim.Microsecond
	a := s.Access(now, 0, l, cacheline.Load, 0)
	s.Access(a.Done, 3, l, cacheline.Load, 0)
	want += a.Transfer + testOccupancy
	if got := l.Stats.Busy; got != want {
		t.Fatalf("busy %v after a transfer and a shared read; want %v", got, want)
	}
}

// The previous owner keeps the line until the snoop of the request that took
// it arrives: a Snoop fraction of that transfer's own time, jitter included.
// (With the snoop timed on the nominal latency, the moment the owner let go
// was the one duration no jitter moved, and a 2-thread test-and-set lock's
// throughput jumped between 16 and 31 M/s as the transfer latency went from
// 124 to 128 ns.)
func TestSnoopFollowsTheTransfersOwnTime(t *testing.T) {
	for _, stretch := range []sim.Time{1, 2} {
		s, ls := newSystem(t, grid{n: 4, perSocket: 4}, "x")
		s.Snoop = 0.5
		s.Jitter = func(d sim.Time) sim.Time { return stretch * d }
		l := ls[0]
		s.Access(0, 0, l, cacheline.RMW, 0) // cpu 0 owns the line
		const asked = sim.Microsecond
		r := s.Access(asked, 2, l, cacheline.RMW, 0)
		service := stretch * testLat[s.Distance(0, 2)]
		if r.Done != asked+service {
			t.Fatalf("stretch %d: cpu 2 has the line at %v, want %v", stretch, r.Done, asked+service)
		}
		// Just before the snoop, cpu 0's atomic still hits; just after, it
		// misses.
		snoop := asked + service/2
		if got := s.Access(snoop-2, 0, l, cacheline.RMW, 1); got.From != cacheline.Local {
			t.Errorf("stretch %d: cpu 0's atomic at %v, before the snoop at %v, missed (%v)", stretch, snoop-2, snoop, got.From)
		}
		if got := s.Access(snoop+1, 0, l, cacheline.RMW, 0); got.From == cacheline.Local {
			t.Errorf("stretch %d: cpu 0's atomic at %v, after the snoop at %v, hit", stretch, snoop+1, snoop)
		}
	}
}

// With a Window, the owner a request is taking the line from keeps it for
// exactly that long after the home takes the request up, whatever the
// transfer costs, and never past the transfer's end: its accesses before
// then hit, after then miss.
func TestWindowIsTheCoresOwn(t *testing.T) {
	for _, tc := range []struct {
		window, keep sim.Time
	}{
		{5 * sim.Nanosecond, 5 * sim.Nanosecond},
		{20 * sim.Nanosecond, 20 * sim.Nanosecond},
		{500 * sim.Nanosecond, testLat[cacheline.SameSocket]}, // capped at the transfer
	} {
		s, ls := newSystem(t, grid{n: 4, perSocket: 4}, "counter")
		s.Window = tc.window
		l := ls[0]
		s.Access(0, 0, l, cacheline.RMW, 0) // core 0 owns it, from memory
		t0 := 1000 * sim.Nanosecond
		s.Access(t0, 2, l, cacheline.RMW, 0) // core 2 asks for it: a fresh request
		if r := s.Access(t0+tc.keep-sim.Nanosecond, 0, l, cacheline.RMW, 0); !r.Hit() {
			t.Errorf("window %v: core 0 lost the line %v after the request, want it kept %v", tc.window, tc.keep-sim.Nanosecond, tc.keep)
		}
		if r := s.Access(t0+tc.keep+sim.Nanosecond, 0, l, cacheline.RMW, 0); r.Hit() {
			t.Errorf("window %v: core 0 still had the line %v after the request, want it gone at %v", tc.window, tc.keep+sim.Nanosecond, tc.keep)
		}
	}
}

// An owner's window is its own even when requests queue behind each other:
// cores 1, 2 and 3 ask for the line at once, so each request is taken up
// when the one before it has come (and its atomic is done), and the
// requests after core 1's are taken before core 1 even has the line. Core
// 1 still keeps it for the window after core 2's request is taken up, and
// not after.
func TestWindowSurvivesAQueue(t *testing.T) {
	const hold = 4 * sim.Nanosecond
	s, ls := newSystem(t, grid{n: 4, perSocket: 4}, "counter")
	s.Window = 20 * sim.Nanosecond
	l := ls[0]
	s.Access(0, 0, l, cacheline.RMW, hold) // core 0 owns it, from memory
	t0 := 1000 * sim.Nanosecond
	r1 := s.Access(t0, 1, l, cacheline.RMW, hold)
	r2 := s.Access(t0, 2, l, cacheline.RMW, hold)
	s.Access(t0, 3, l, cacheline.RMW, hold)
	taken2 := r2.Done - testLat[cacheline.SameSocket] // when core 2's request was taken up
	if want := r1.Done + hold; taken2 != want {
		t.Fatalf("core 2's request taken up at %v, want once core 1's has come and its atomic is done, %v", taken2, want)
	}
	// Core 1's second atomic, right after its first, within its window.
	if r := s.Access(r1.Done+hold, 1, l, cacheline.RMW, hold); !r.Hit() {
		t.Errorf("core 1 lost the line to the queue behind it: its atomic %v after the line came missed, its window lasts %v after core 2's request is taken", hold, s.Window)
	}
	if r := s.Access(taken2+s.Window+sim.Nanosecond, 1, l, cacheline.RMW, hold); r.Hit() {
		t.Errorf("core 1 still had the line past its window")
	}
}

// With Write set, the window is also a count: the owner makes no more
// writes in it than the atomics of Write that fit in its time (20 ns of 5 ns
// atomics: four), and its loads are not counted.
func TestWindowCountsWrites(t *testing.T) {
	s, ls := newSystem(t, grid{n: 4, perSocket: 4}, "counter")
	s.Window, s.Write = 20*sim.Nanosecond, 5*sim.Nanosecond
	l := ls[0]
	s.Access(0, 0, l, cacheline.RMW, 0)
	t0 := 1000 * sim.Nanosecond
	s.Access(t0, 2, l, cacheline.RMW, 0)
	at := t0
	for i := range 4 {
		at += sim.Nanosecond
		if r := s.Access(at, 0, l, cacheline.Load, 0); !r.Hit() {
			t.Fatalf("load before write %d missed", i+1)
		}
		if r := s.Access(at, 0, l, cacheline.RMW, 0); !r.Hit() {
			t.Fatalf("write %d of 4 in the window missed", i+1)
		}
	}
	if r := s.Access(at+sim.Nanosecond, 0, l, cacheline.RMW, 0); r.Hit() {
		t.Errorf("a fifth write within the window's time hit; the window allows four")
	}
}

// With Migrate, a load of a line modified in another core's cache takes the
// line: the reader owns it and its store next hits; the old owner's copy
// is gone, and it was told so (a watcher woken). A store the old owner makes
// before the snoop comes still hits, as under any read. A clean line is
// shared as before.
func TestMigrateTakesAModifiedLine(t *testing.T) {
	s, ls := newSystem(t, grid{n: 4, perSocket: 4}, "ball", "clean")
	s.Migrate, s.Window = true, 10*sim.Nanosecond
	ball, clean := ls[0], ls[1]
	s.Access(0, 0, ball, cacheline.Store, 0) // modified at core 0
	w := &wakeRecord{}
	s.Watch(ball, 0, w)
	t0 := 1000 * sim.Nanosecond
	r := s.Access(t0, 2, ball, cacheline.Load, 0)
	if r.Hit() || ball.Owner() != 2 || slices.Contains(ball.Sharers(), 0) {
		t.Errorf("after core 2's load: owner %d, sharers %v; want core 2 the owner alone", ball.Owner(), ball.Sharers())
	}
	if len(w.at) != 1 {
		t.Error("core 0, watching the line, was not told it lost it")
	}
	if r := s.Access(t0+5*sim.Nanosecond, 0, ball, cacheline.Store, 0); !r.Hit() {
		t.Error("core 0's store within its window missed")
	}
	if r := s.Access(r.Done+sim.Microsecond, 2, ball, cacheline.Store, 0); !r.Hit() {
		t.Error("core 2's store after its load missed: the load did not take the line")
	}
	s.Access(0, 0, clean, cacheline.Load, 0) // Exclusive at core 0, not modified
	s.Access(t0, 2, clean, cacheline.Load, 0)
	if clean.Owner() >= 0 || !slices.Equal(clean.Sharers(), []int{0, 2}) {
		t.Errorf("a clean line: owner %d, sharers %v; want it shared by 0 and 2", clean.Owner(), clean.Sharers())
	}
}

// Under a read that takes the line, the old owner's store hits only if it
// commits before the line goes (the store's hold is the time to its
// commit): a ticket lock's unlock waiting in the store buffer behind a
// store that waits for its own line commits after the waiter's spin has
// taken the lock's line, and must take it back, behind that read.
func TestStoreCommitsBeforeTheLineGoes(t *testing.T) {
	for _, tc := range []struct {
		commit sim.Time
		hit    bool
	}{{5 * sim.Nanosecond, true}, {20 * sim.Nanosecond, false}} {
		s, ls := newSystem(t, grid{n: 4, perSocket: 4}, "lock")
		s.Migrate, s.Window = true, 10*sim.Nanosecond
		l := ls[0]
		s.Access(0, 0, l, cacheline.Store, 0) // modified at core 0
		t0 := 1000 * sim.Nanosecond
		read := s.Access(t0, 2, l, cacheline.Load, 0) // core 2's spin takes it
		r := s.Access(t0+2*sim.Nanosecond, 0, l, cacheline.Store, tc.commit)
		if r.Hit() != tc.hit {
			t.Errorf("a store committing %v after it issues, 2 ns into a 10 ns window: hit %v, want %v", tc.commit, r.Hit(), tc.hit)
		}
		if !tc.hit && r.Done < read.Done+testLat[cacheline.SameSocket] {
			t.Errorf("the store that missed had the line at %v, before the read that took it (%v) and a transfer back", r.Done, read.Done)
		}
	}
}

// A line marked read-only is a promise that no store or atomic reaches it:
// a core that has a copy keeps it through every other core's loads, and a
// write that comes all the same, hit or miss, breaks the promise and panics.
func TestReadOnlyLine(t *testing.T) {
	s, ls := newSystem(t, grid{n: 4, perSocket: 4}, "state")
	l := ls[0]
	l.MarkReadOnly()
	now := sim.Time(0)
	for c := range 4 {
		now += 100 * sim.Nanosecond
		s.Access(now, c, l, cacheline.Load, 0)
		for k := 0; k <= c; k++ {
			if !l.Holds(k) {
				t.Fatalf("after core %d's load, core %d has lost its copy of a read-only line", c, k)
			}
		}
	}
	for _, tc := range []struct {
		core int
		op   cacheline.Op
	}{{0, cacheline.Store}, {1, cacheline.RMW}, {2, cacheline.LoadOwn}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("a %v of a read-only line did not panic", tc.op)
				}
			}()
			s.Access(now, tc.core, l, tc.op, 0)
		}()
	}
	// The first reader takes the line Exclusive from memory: its own store
	// would hit, and must panic too.
	s2, ls2 := newSystem(t, grid{n: 2, perSocket: 2}, "state")
	ls2[0].MarkReadOnly()
	s2.Access(0, 0, ls2[0], cacheline.Load, 0)
	defer func() {
		if recover() == nil {
			t.Errorf("a store hitting an Exclusive copy of a read-only line did not panic")
		}
	}()
	s2.Access(sim.Nanosecond, 0, ls2[0], cacheline.Store, 0)
}

// orderRecord notes which watcher a line woke, in order.
type orderRecord struct {
	id    int
	woken *[]int
}

func (w orderRecord) LineLost(sim.Time) { *w.woken = append(*w.woken, w.id) }

// A core that starts watching at a time of its own (WatchFrom) is woken
// among the others in the order they started watching, listed order among
// equal times, and watches nothing before then.
func TestWatchFromOrder(t *testing.T) {
	s, ls := newSystem(t, grid{n: 8, perSocket: 8}, "word")
	l := ls[0]
	froms := []sim.Time{50, 20, 90, 20, 0, 70}
	for c := range froms {
		s.Access(0, c, l, cacheline.Load, 0)
	}
	var woken []int
	for c, from := range froms {
		s.WatchFrom(l, c, orderRecord{id: c, woken: &woken}, from)
	}
	if !l.WatchedByOthers(7, 10) || l.WatchedByOthers(4, 10) {
		t.Errorf("at 10: watched by others than 7 %v, than 4 %v; want true (4 watches from 0) and false",
			l.WatchedByOthers(7, 10), l.WatchedByOthers(4, 10))
	}
	s.Access(100, 7, l, cacheline.Store, 0)
	if want := []int{4, 1, 3, 0, 5, 2}; !slices.Equal(woken, want) {
		t.Errorf("woken in the order %v; want %v (by the time each started watching)", woken, want)
	}
}

// Reads of a shared copy at one instant: those of the copy's socket are
// served together, each after the LLC's occupancy, while those from other
// sockets go through the line's home one after another, a transfer each
// (the re-reads of a ticket lock's waiters after a release). A second
// reader on a socket a read already brought the line to is served there.
func TestRemoteReadsOfASharedLineQueue(t *testing.T) {
	s, ls := newSystem(t, grid{n: 32, perSocket: 8}, "lock")
	s.Occupancy = testOccupancy
	l := ls[0]
	s.Access(0, 0, l, cacheline.Store, 0)
	s.Access(sim.Microsecond, 1, l, cacheline.Load, 0) // now Shared by cores 0 and 1
	at := 2 * sim.Microsecond
	for i, c := range []int{2, 3, 4} {
		if d := s.Access(at, c, l, cacheline.Load, 0).Done - at; d != testLat[cacheline.LLC]+sim.Time(i)*testOccupancy {
			t.Errorf("same-socket read %d took %v, want the LLC's after %d occupancies", i, d, i)
		}
	}
	for i, c := range []int{8, 16, 24} { // sockets 1, 2 and 3
		want := 3*testOccupancy + sim.Time(i+1)*testLat[cacheline.OtherSocket]
		if d := s.Access(at, c, l, cacheline.Load, 0).Done - at; d != want {
			t.Errorf("read %d from another socket took %v, want %v (%d transfers one after another)", i, d, want, i+1)
		}
	}
	if d := s.Access(at, 9, l, cacheline.Load, 0).Done - at; d != 3*testOccupancy+3*testLat[cacheline.OtherSocket]+testLat[cacheline.LLC] {
		t.Errorf("a second reader on socket 1 took %v, want its LLC's after the remote reads", d)
	}
}

// With SiblingClear, a watcher whose SMT sibling writes the line notices
// that long after the write lands: after an atomic's execution, or a
// store's commit. A watcher on another core still notices when the line is
// taken, and without SiblingClear the sibling does too.
func TestSiblingClear(t *testing.T) {
	const clear = 9 * sim.Nanosecond
	const exec = 5 * sim.Nanosecond // the atomic's execution, once the line is there
	for _, on := range []bool{false, true} {
		s, ls := newSystem(t, grid{n: 4, perSocket: 4}, "ball")
		if on {
			s.SiblingClear = clear
		}
		l := ls[0]
		w := make([]*wakeRecord, 4)
		for _, c := range []int{1, 2} { // 1: 0's sibling; 2: another core
			s.Access(sim.Time(c)*sim.Microsecond, c, l, cacheline.Load, 0)
			w[c] = &wakeRecord{}
			s.Watch(l, c, w[c])
		}
		now := 10 * sim.Microsecond
		r := s.Access(now, 0, l, cacheline.RMW, exec)
		sib := r.Done
		if on {
			sib = r.Done + exec + clear
		}
		if !slices.Equal(w[1].at, []sim.Time{sib}) || !slices.Equal(w[2].at, []sim.Time{r.Done}) {
			t.Errorf("SiblingClear %v: sibling woken at %v, want %v; other core at %v, want %v", on, w[1].at, sib, w[2].at, r.Done)
		}
		if !on {
			continue
		}
		// A store commits commit after it is issued, later than its line
		// comes here: the sibling notices the clear after that.
		for _, c := range []int{1, 2} {
			s.Access(20*sim.Microsecond+sim.Time(c), c, l, cacheline.Load, 0)
			w[c].at = nil
			s.Watch(l, c, w[c])
		}
		now, commit := 30*sim.Microsecond, 80*sim.Nanosecond
		r = s.Access(now, 0, l, cacheline.Store, commit)
		if want := now + commit + clear; !slices.Equal(w[1].at, []sim.Time{want}) {
			t.Errorf("after a store: sibling woken at %v, want %v (the commit and the clear)", w[1].at, want)
		}
	}
}
