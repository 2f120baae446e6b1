package cacheline_test

import (
	"fmt"
	"maps"
	"math/rand"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/quick"

	"contend/cacheline"
	"contend/sim"
)

// The property test drives System and a naive reference with the same random
// accesses and compares them after every one.

const (
	quickCores = 70 // more than one 64-bit word of sharers
	quickLines = 3  // the last one is per-cpu
)

var quickTopo = grid{n: quickCores, perSocket: 32}

type access struct {
	Gap  sim.Time // since the previous access; 0 makes requests collide
	Core int
	Line int
	Op   cacheline.Op
	Hold sim.Time
}

type trace []access

// Generate draws a few active cores out of all of them, so lines are shared,
// stolen and hit again rather than touched once each.
func (trace) Generate(r *rand.Rand, size int) reflect.Value {
	active := r.Perm(quickCores)[:1+r.Intn(6)]
	tr := make(trace, 1+r.Intn(4*size))
	for i := range tr {
		a := access{
			Core: active[r.Intn(len(active))],
			Line: r.Intn(quickLines),
			Op:   cacheline.Op(r.Intn(4)),
		}
		if r.Intn(3) > 0 {
			a.Gap = sim.Time(r.Intn(200)) * sim.Nanosecond
		}
		if r.Intn(2) == 0 {
			a.Hold = sim.Time(r.Intn(20)) * sim.Nanosecond
		}
		tr[i] = a
	}
	return reflect.ValueOf(tr)
}

// GoString keeps a failing input readable in quick's report.
func (tr trace) GoString() string {
	var b strings.Builder
	for _, a := range tr {
		fmt.Fprintf(&b, "+%v cpu%d %c %v hold %v; ", a.Gap, a.Core, 'a'+a.Line, a.Op, a.Hold)
	}
	return b.String()
}

// refLine is the reference: an owner, a set of sharers, the time the line is
// free, all in plain maps and the words of the table in doc.go.
type refLine struct {
	perCPU  bool
	owner   int
	sharers map[int]bool
	freeAt  sim.Time
	graced  bool // the last access was a previous owner's, in its grace
	snoop   float64
	// every previous owner's own window: until when it keeps the line, and
	// whether the request that took it asked to own it (its plain stores
	// then no longer hit)
	till    map[int]sim.Time
	taken   map[int]bool
	forward bool // ForwardOwner
	fwd     int

	accesses, hits, transfers, invalidations uint64
	queued                                   sim.Time
}

func (r *refLine) holds(core int) bool { return r.perCPU || r.owner == core || r.sharers[core] }

// access returns whether the access hits, when it is done and where it was
// served from. A hit is immediate; so is an access by the previous owner
// before the request that took the line, or read it, is served. A miss waits for the
// line's earlier requests. A load travels from the owner, or is served by
// the LLC when a sharer shares the requester's LLC, else by the nearest
// sharer, else by memory; an ownership request takes the line from the owner
// or pays for the farthest sharer it invalidates (the LLC when it is the
// only sharer). Reads served from the LLC, memory or a copy on the same
// socket free the line after the occupancy; everything else (a copy read
// from another socket included) after the transfer and the hold.
// A store's hold is how long until it commits: it counts only for whether
// the store commits before a core giving the line up lets it go.
func (r *refLine) access(now sim.Time, core int, op cacheline.Op, hold sim.Time) (bool, sim.Time, cacheline.Distance) {
	r.accesses++
	until := hold
	if op == cacheline.Store {
		hold = 0
	}
	grace := !(op == cacheline.Store && r.taken[core]) && now < r.till[core] && now+until <= r.till[core]
	r.graced = grace && !r.holds(core)
	if r.perCPU || r.owner == core || (op == cacheline.Load && r.sharers[core]) || grace {
		r.hits++
		if op != cacheline.Load {
			r.freeAt = max(r.freeAt, now+hold)
		}
		return true, now, cacheline.Local
	}
	var others []cacheline.Distance
	sameLLC := false
	for c := range r.sharers {
		if c != core {
			others = append(others, quickDistance(c, core))
			sameLLC = sameLLC || c/quickTopo.perSocket == core/quickTopo.perSocket
		}
	}
	start := max(now, r.freeAt)
	var from cacheline.Distance
	serial := true
	switch {
	case r.owner >= 0:
		from = quickDistance(r.owner, core)
	case op == cacheline.Load && r.fwd >= 0:
		from = quickDistance(r.fwd, core)
		serial = from == cacheline.OtherSocket
	case op == cacheline.Load && len(r.sharers) > 0:
		from = slices.Min(others)
		if sameLLC {
			from = cacheline.LLC
		}
		serial = from == cacheline.OtherSocket
	case len(r.sharers) == 0:
		from, serial = cacheline.Memory, op != cacheline.Load
	case len(others) == 0:
		from = cacheline.LLC
	default:
		from = slices.Max(others)
	}
	lat := testLat[from]
	snooped := start + sim.Time(r.snoop*float64(lat))
	done := start + lat
	if serial {
		r.freeAt = done + hold
	} else {
		r.freeAt = start + testOccupancy
	}
	r.transfers++
	r.queued += start - now
	switch {
	case op == cacheline.Load && r.owner >= 0:
		r.till[r.owner], r.taken[r.owner] = snooped, false
		if r.forward {
			r.fwd = r.owner
		}
		r.sharers[r.owner] = true
		r.owner = -1
		r.sharers[core] = true
	case op == cacheline.Load && len(r.sharers) > 0:
		r.sharers[core] = true
	case op == cacheline.Load:
		r.owner = core
	default:
		r.invalidations += uint64(len(others))
		if r.owner >= 0 {
			r.invalidations++
			r.till[r.owner], r.taken[r.owner] = snooped, true
		}
		clear(r.sharers)
		r.owner, r.fwd = core, -1
	}
	return false, done, from
}

// quickDistance classifies two CPUs of quickTopo from their numbers alone.
func quickDistance(a, b int) cacheline.Distance {
	switch {
	case a == b:
		return cacheline.Local
	case a/2 == b/2:
		return cacheline.SMTSibling
	case a/quickTopo.perSocket == b/quickTopo.perSocket:
		return cacheline.SameSocket
	}
	return cacheline.OtherSocket
}

// The previous owner keeps the line until the snoop, with or without one,
// and shared lines are served by the LLC or by their last owner.
func TestAccessMatchesReference(t *testing.T) {
	for _, snoop := range []float64{0, 0.5} {
		for _, fw := range []cacheline.Forwarding{cacheline.ForwardLLC, cacheline.ForwardOwner} {
			t.Run(fmt.Sprintf("snoop %v forward %d", snoop, fw), func(t *testing.T) { matchReference(t, snoop, fw) })
		}
	}
}

func matchReference(t *testing.T, snoop float64, fw cacheline.Forwarding) {
	check := func(tr trace) bool {
		s := cacheline.NewSystem(sim.NewEngine(), quickTopo, testLat)
		s.Occupancy, s.Snoop, s.Forward = testOccupancy, snoop, fw
		lines := make([]*cacheline.Line, quickLines)
		refs := make([]*refLine, quickLines)
		for i := range lines {
			perCPU := i == quickLines-1
			var err error
			if lines[i], err = s.NewLine(string(rune('a'+i)), perCPU); err != nil {
				t.Fatal(err)
			}
			refs[i] = &refLine{perCPU: perCPU, owner: -1, sharers: map[int]bool{}, till: map[int]sim.Time{}, taken: map[int]bool{}, snoop: snoop, forward: fw == cacheline.ForwardOwner, fwd: -1}
		}
		now := sim.Time(0)
		for i, a := range tr {
			now += a.Gap
			l, ref := lines[a.Line], refs[a.Line]
			res := s.Access(now, a.Core, l, a.Op, a.Hold)
			hit, done, from := ref.access(now, a.Core, a.Op, a.Hold)
			fail := func(format string, args ...any) bool {
				t.Logf("access %d of %d (%+v at %v) on line %s: "+format,
					append([]any{i + 1, len(tr), a, now, l.Name}, args...)...)
				return false
			}
			sharers := l.Sharers()
			switch {
			case res.Done < now:
				return fail("done %v before it was asked", res.Done)
			case res.Hit() != hit || res.Done != done || res.From != from:
				return fail("result %+v, reference hit=%v done=%v from=%v", res, hit, done, from)
			case res.Hit() != (res.Transfer == 0 && res.Queued == 0 && res.Done == now):
				return fail("result %+v mixes hit and miss", res)
			case !l.Holds(a.Core) && !ref.graced:
				return fail("requesting cpu does not hold the line afterwards")
			case l.Owner() >= 0 && len(sharers) > 0:
				return fail("owner %d and sharers %v at once", l.Owner(), sharers)
			case l.Owner() != ref.owner:
				return fail("owner %d, reference %d", l.Owner(), ref.owner)
			case !slices.Equal(sharers, slices.Sorted(maps.Keys(ref.sharers))):
				return fail("sharers %v, reference %v", sharers, slices.Sorted(maps.Keys(ref.sharers)))
			}
			st := l.Stats
			if st.Accesses != ref.accesses || st.Hits != ref.hits || st.Transfers != ref.transfers ||
				st.Invalidations != ref.invalidations || st.QueueDelay != ref.queued {
				return fail("stats %+v, reference %+v", st, *ref)
			}
		}
		return true
	}
	if err := quick.Check(check, &quick.Config{MaxCount: 400, Rand: rand.New(rand.NewSource(1))}); err != nil {
		t.Fatal(err)
	}
}
