package cacheline

import (
	"fmt"
	"slices"

	"contend/sim"
)

// Latencies are the costs of serving a miss by where it is served from, and
// of a hit (Local).
type Latencies [NumDistances]sim.Time

// System is the set of lines of one machine and the engine they live in.
type System struct {
	eng    *sim.Engine
	topo   Topology
	lat    Latencies
	lines  []*Line
	byName map[string]*Line
	woken  []watcher           // scratch for wakeLosers; LineLost must not access lines
	order  sim.Sorter[watcher] // puts the woken in the order they started watching

	// Where each CPU sits, looked up once: an access never divides or scans
	// the machine, so its cost does not grow with the number of cores.
	socket, group, phys []int32
	groupSocket         []int32
	siblings            [][]int32 // the other SMT threads of each CPU's core

	// Snoop is the fraction of an ownership transfer that passes before the
	// owner gives the line up: the request travels to the home and the
	// home's snoop on to the owner, which meanwhile goes on using the line.
	Snoop float64

	// Window, when set, is how long an owner keeps a line that another
	// core's request is taking, from when the home takes that request up:
	// a property of the core, measured by the 2-thread add of contend
	// calibrate. It replaces Snoop's fraction of the transfer, and is never
	// longer than the transfer itself.
	Window sim.Time
	// Write, when set, is the time of one of the owner's atomics: it keeps
	// the line for no more writes than the atomics that fit in its time.
	Write sim.Time
	// Migrate says that a load of a line modified in another core's
	// cache takes the line from it, as a request for ownership would: the
	// old owner's copy is invalidated and the reader holds it Exclusive,
	// so its own store or atomic next hits (migratory sharing). Without
	// it the owner keeps a Shared (or Owned) copy and the reader's next
	// write must invalidate it. Which of the two a machine does is
	// measured by contend calibrate.
	Migrate bool
	// SiblingClear, when set, is what a core spinning with loads and no
	// PAUSE pays when its SMT sibling writes the line it reads: the two
	// threads share the L1, so no snoop comes ahead of the write, and the
	// reads the spinner ran ahead are thrown away when the write lands (a
	// memory-ordering machine clear) before it reads again. A watcher the
	// sibling's write wakes notices that long after the write; one on
	// another core notices when the line is taken, as a snoop that comes
	// while the line travels hides its clear.
	SiblingClear sim.Time

	// Occupancy is how long the home of a line spends on a read it serves
	// from the LLC or memory before it takes the next request for that line.
	Occupancy sim.Time

	// Jitter, if set, turns the mean service time of a transfer into a sample.
	Jitter func(mean sim.Time) sim.Time

	// Forward says who serves the readers of a line that its owner shared.
	Forward Forwarding

	// Trace, if set, is told of every request the home of a line serves
	// (a miss), as it is decided: a simulated trace of the coherence traffic.
	Trace func(Transfer)
}

// Transfer is one request the home of a line served: who asked, for what,
// when it was asked for, when the home took it up and when the line came,
// and where it came from.
type Transfer struct {
	Core              int
	Line              *Line
	Op                Op
	Asked, Start, End sim.Time
	From              Distance
	HITM              bool // the line was modified in another core's cache
}

// Forwarding is who serves a read of a line that other cores share after
// its owner gave them copies: the vendor's protocol.
type Forwarding uint8

const (
	// ForwardLLC: the owner's copy is written back as it is shared and the
	// LLC serves the next readers (Intel's MESIF: the inclusive LLC, or
	// its snoop filter, answers).
	ForwardLLC Forwarding = iota
	// ForwardOwner: the owner keeps the line (Owned when it is dirty) and
	// forwards it to every next reader, core to core (AMD's MOESI: the L3
	// is a victim cache, filled only when an L2 evicts).
	ForwardOwner
)

// NewSystem returns an empty system.
func NewSystem(eng *sim.Engine, topo Topology, lat Latencies) *System {
	s := &System{eng: eng, topo: topo, lat: lat, byName: map[string]*Line{}}
	s.order.At = func(w *watcher) sim.Time { return w.from }
	n := topo.NumCores()
	s.socket, s.group, s.phys = make([]int32, n), make([]int32, n), make([]int32, n)
	byPhys := map[int32][]int32{}
	for c := range n {
		so, g, p := topo.Place(c)
		s.socket[c], s.group[c], s.phys[c] = int32(so), int32(g), int32(p)
		byPhys[int32(p)] = append(byPhys[int32(p)], int32(c))
		for len(s.groupSocket) <= g {
			s.groupSocket = append(s.groupSocket, -1)
		}
		s.groupSocket[g] = int32(so)
	}
	s.siblings = make([][]int32, n)
	for c := range n {
		for _, o := range byPhys[s.phys[c]] {
			if int(o) != c {
				s.siblings[c] = append(s.siblings[c], o)
			}
		}
	}
	return s
}

// Latencies returns the system's miss costs.
func (s *System) Latencies() Latencies { return s.lat }

// Topology returns the system's topology.
func (s *System) Topology() Topology { return s.topo }

// Distance classifies a transfer between two CPUs' caches.
func (s *System) Distance(from, to int) Distance {
	switch {
	case from == to:
		return Local
	case s.phys[from] == s.phys[to]:
		return SMTSibling
	}
	return s.groupDistance(to, int(s.group[from]))
}

// groupDistance classifies a transfer between core and a core of LLC group g
// that is not its SMT sibling.
func (s *System) groupDistance(core int, g int) Distance {
	switch {
	case int(s.group[core]) == g:
		return SameSocket
	case s.groupSocket[g] == s.socket[core]:
		return OtherLLC
	}
	return OtherSocket
}

// NewLine adds a line. Names are unique.
func (s *System) NewLine(name string, perCPU bool) (*Line, error) {
	if _, dup := s.byName[name]; dup {
		return nil, fmt.Errorf("cacheline: line %q defined twice; give each line its own name", name)
	}
	n := s.topo.NumCores()
	l := &Line{
		Name: name, ID: len(s.lines), PerCPU: perCPU, owner: -1, prev: -1, fwd: -1,
		sharers: make([]uint64, (n+63)/64), byGroup: make([]int32, len(s.groupSocket)),
		grace: make([]grace, n),
	}
	l.Stats.ByCore = make([]uint64, n)
	l.Stats.TransfersBy = make([]uint64, n)
	s.lines = append(s.lines, l)
	s.byName[name] = l
	return l, nil
}

// Line returns the line called name, or nil.
func (s *System) Line(name string) *Line { return s.byName[name] }

// Lines returns every line in creation order.
func (s *System) Lines() []*Line { return s.lines }

// ResetStats zeroes every line's counters.
func (s *System) ResetStats() {
	for _, l := range s.lines {
		l.ResetStats()
	}
}

// Result says how an access was served. It keeps to four fields, so the
// compiler holds it in registers: every simulated access returns one.
type Result struct {
	Done     sim.Time // when the data (or ownership) is at the requester
	Queued   sim.Time // time spent waiting for earlier requests of the line
	Transfer sim.Time // time the transfer itself took; 0 on a hit
	From     Distance // Local exactly when the access hits
}

// Hit reports whether the requester's own copy served the access.
func (r Result) Hit() bool { return r.From == Local }

// Access performs op by core on l at now; doc.go gives the state machine and
// the cost of every case. A hit completes at now: executing the instruction
// is the core's business. Hold is how long the requester keeps the line
// locked once it has it (an atomic's execution); later ownership requests
// wait for it. For a store, hold is instead how long after now it commits
// (leaves the store buffer): a core giving the line up may still write it
// only if the store commits before the line goes (graceHit).
func (s *System) Access(now sim.Time, core int, l *Line, op Op, hold sim.Time) Result {
	if op != Load && l.readOnly {
		panicReadOnly(l, op)
	}
	commit := sim.Time(0)
	if op == Store {
		commit, hold = hold, 0
	}
	if s.Hit(now, core, l, op, hold) {
		return Result{Done: now, From: Local}
	}
	st := &l.Stats
	st.Accesses++
	st.ByCore[core]++
	if l.graceHit(now, core, op, max(hold, commit)) {
		g := &l.grace[core]
		if op != Load && g.left > 0 {
			g.left--
		}
		st.Hits++
		if op != Load {
			if s.Migrate && core == l.prev && !g.taken && l.owner < 0 {
				// The read that is taking the line finds it modified
				// when the snoop comes: the line migrates to the reader.
				s.clearSharers(l)
				l.owner, l.dirty, l.fwd = l.prevBy, true, -1
			}
			l.occupy(now, now+hold)
			// The previous owner writes before the line leaves it:
			// whoever is waiting for the line will get this value, so
			// cores watching it must look again.
			s.wakeLosers(l, core, now, now+max(hold, commit))
		}
		return Result{Done: now, From: Local}
	}
	start := max(now, l.freeAt)
	hitm := st.HITM
	var from Distance
	serial := true
	snoop, taken := -1, false // the previous owner, kept until the snoop reaches it
	migrated := false         // a read took the line from its owner
	switch {
	case op == Load && l.owner >= 0 && l.dirty && s.Migrate:
		// A read all the same: until the snoop comes the owner writes
		// as it would under any read, and the reader gets that too.
		var owner int
		from, owner = s.ownership(core, l)
		snoop, migrated = owner, true
		l.dirty = false // Exclusive: the next reader shares it
	case op == Load && l.owner >= 0:
		from = s.Distance(l.owner, core)
		if l.dirty {
			st.HITM++
		}
		// Modified or Exclusive elsewhere: the owner forwards the line and
		// keeps a Shared copy (Owned, and the forwarder, under
		// ForwardOwner); the LLC gets one too. Until the snoop reaches
		// it, the owner may still write: the reader gets that.
		snoop = l.owner
		if s.Forward == ForwardOwner {
			l.fwd = l.owner
		}
		s.addSharer(l, l.owner)
		l.owner, l.dirty = -1, false
		s.addSharer(l, core)
	case op == Load && l.fwd >= 0:
		from = s.Distance(l.fwd, core)
		serial = from == OtherSocket // see below
		s.addSharer(l, core)
	case op == Load && l.nsharers > 0:
		// A copy is read from the nearest sharer or the LLC. Within a
		// socket the LLC serves such reads one after another at its
		// occupancy; from another socket each goes through the line's
		// home agent, which handles one request for a line at a time
		// (conflicting requests to one address are serialized there), so
		// it holds the line for the whole transfer: the re-reads of a
		// ticket lock's waiters on other sockets queue, one transfer each.
		from = s.nearest(core, l)
		serial = from == OtherSocket
		s.addSharer(l, core)
	case op == Load:
		from, serial = Memory, false
		l.owner, l.dirty = core, false // Exclusive
	default:
		var owner int
		from, owner = s.ownership(core, l)
		snoop, taken = owner, true
	}
	service := s.lat[from]
	if s.Jitter != nil {
		service = s.Jitter(service)
	}
	if snoop >= 0 {
		s.keepUntilSnoop(l, snoop, core, start, service, taken)
	}
	done := start + service
	if serial {
		l.occupy(start, done+hold)
	} else {
		l.occupy(start, start+s.Occupancy)
	}
	if taken || migrated {
		s.wakeLosers(l, core, done, max(done+hold, now+commit))
	}
	st.Transfers++
	st.TransfersBy[core]++
	st.TransferTime += service
	if from == OtherSocket {
		st.Remote++
	}
	q := start - now
	st.QueueDelay += q
	st.MaxQueueDelay = max(st.MaxQueueDelay, q)
	if s.Trace != nil {
		s.Trace(Transfer{Core: core, Line: l, Op: op, Asked: now, Start: start, End: done, From: from, HITM: st.HITM != hitm})
	}
	return Result{Done: done, Queued: q, Transfer: service, From: from}
}

func panicReadOnly(l *Line, op Op) {
	panic(fmt.Sprintf("cacheline: %v of line %q, which was marked read-only", op, l.Name))
}

// keepUntilSnoop lets owner, which a request started at start is taking the
// line (or its right to write it) from, go on using the line until the
// home's snoop reaches it, a Snoop fraction of the transfer: of this
// transfer's own time, jitter included, so that the moment the owner lets
// go varies as the transfer does. With a Window, the owner keeps it that
// long (jittered) after the home takes the request up, whatever the
// transfer costs, and never past the transfer's end. The window is the
// owner's own: with requests queued behind each other, the ones after this
// may be taken up before the owner even has the line, and it keeps it for
// its window all the same (Line.grace).
func (s *System) keepUntilSnoop(l *Line, owner, by int, start, service sim.Time, taken bool) {
	till := start + sim.Time(s.Snoop*float64(service))
	if s.Window > 0 {
		w := s.Window
		if s.Jitter != nil {
			w = s.Jitter(w)
		}
		till = start + min(w, service)
	}
	left := -1
	if s.Write > 0 {
		left = max(1, int((till-start+s.Write/2)/s.Write))
	}
	l.prev, l.prevBy = owner, by
	l.grace[owner] = grace{till: till, taken: taken, left: int32(left)}
}

// Hit performs op by core on l at now, as Access does, when the core's own
// copy serves it and nothing else happens: the line is per-cpu or owned by
// the core, or op is a load of a copy the core shares. It reports whether it
// did; if not, nothing has changed and the caller uses Access. It inlines
// into the caller: the commonest accesses cost no call. Unlike Access it
// does not look for a write to a read-only line: a caller that may make
// one looks itself (package cpu does, for the steps it runs).
func (s *System) Hit(now sim.Time, core int, l *Line, op Op, hold sim.Time) bool {
	if !l.PerCPU && l.owner != core && (op != Load || !l.isSharer(core)) {
		return false
	}
	l.Stats.Accesses++
	l.Stats.ByCore[core]++
	l.Stats.Hits++
	if op != Load {
		l.freeAt = max(l.freeAt, now+hold)
		l.dirty = l.dirty || l.owner == core
	}
	return true
}

// graceHit reports whether core, whose own copy does not serve op (Hit said
// so), still holds the line as its previous owner. That owner keeps the line
// until the snoop of the request that took it arrives, so an access it makes
// before then (and, for a locked one, finishes before then) is a hit too;
// but not a plain store when another core asked to own the line: the store
// leaves the store buffer after the snoop has come, while a locked
// instruction holds the line as it executes. Nor, under a read, a store
// that commits after the snoop comes (hold is then the time to its
// commit): a ticket lock's unlock behind a store that waits for its line
// leaves the buffer once the waiter's re-read has taken the lock's line,
// and must take it back.
// Nor a write past the count the window allows (grace.left, from Write).
// Each core's window is its own (Line.grace), so a core that requests after
// its own have been taken up keeps it all the same.
func (l *Line) graceHit(now sim.Time, core int, op Op, hold sim.Time) bool {
	g := l.grace[core]
	return !(op == Store && g.taken) && !(op != Load && g.left == 0) && now < g.till && now+hold <= g.till
}

// Poke wakes, at at, every core watching l: what the line holds changed in
// a way its watchers must look at again.
func (s *System) Poke(l *Line, at sim.Time) { s.wakeLosers(l, -1, at, at) }

// Watch asks for w to be woken when core loses its copy of l. The core must
// hold the line; a core that does not is woken at once by the caller's logic.
func (s *System) Watch(l *Line, core int, w Waker) { s.WatchFrom(l, core, w, s.eng.Now()) }

// WatchFrom is Watch for a core that starts watching at from, not at the
// engine's time: one whose read, made ahead, brings the copy it watches
// then. Watchers are woken in the order they started watching, first
// asked first among equal times, as if each had asked at its time.
func (s *System) WatchFrom(l *Line, core int, w Waker, from sim.Time) {
	l.watchers = append(l.watchers, watcher{core: core, w: w, from: from})
}

// Unwatch removes w from l's watchers.
func (s *System) Unwatch(l *Line, w Waker) {
	for i, x := range l.watchers {
		if x.w == w {
			l.watchers = append(l.watchers[:i], l.watchers[i+1:]...)
			return
		}
	}
}

// wakeLosers wakes the watchers of l other than writer, whose access took
// the line at at and writes it at wrote: each notices at at, or, an SMT
// sibling of the writer, SiblingClear after wrote.
func (s *System) wakeLosers(l *Line, writer int, at, wrote sim.Time) {
	if len(l.watchers) == 0 {
		return
	}
	keep := l.watchers[:0]
	woken := s.woken[:0]
	for _, x := range l.watchers {
		if x.core == writer {
			keep = append(keep, x)
			continue
		}
		woken = append(woken, x)
	}
	l.watchers = keep
	s.woken = woken
	// In the order they started watching.
	woken = s.order.Sort(woken)
	s.woken = woken
	for _, x := range woken {
		if s.SiblingClear > 0 && writer >= 0 && slices.Contains(s.siblings[writer], int32(x.core)) {
			l.Stats.SiblingClears++
			x.w.LineLost(wrote + s.SiblingClear)
			continue
		}
		x.w.LineLost(at)
	}
	s.woken = woken[:0]
}

// Waking returns how many watchers the line being written is waking, while
// their LineLost runs: a waker alone may do what a crowd may not.
func (s *System) Waking() int { return len(s.woken) }

// HoldUntil keeps l at its owner until at: later requests wait for it. The
// owner holds it from the access that brought it, so the line is busy
// until then.
func (s *System) HoldUntil(l *Line, at sim.Time) { l.occupy(l.freeAt, at) }
