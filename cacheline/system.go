package cacheline

import (
	"fmt"
	"math/bits"

	"contend/sim"
)

// Latencies are the costs of serving a miss by distance, and of a hit.
type Latencies [NumDistances]sim.Time

// System is the set of lines of one machine and the engine they live in.
type System struct {
	eng    *sim.Engine
	topo   Topology
	lat    Latencies
	lines  []*Line
	byName map[string]*Line
	woken  []watcher // scratch for wakeLosers; LineLost must not access lines
	// Jitter, if set, turns the mean service time of a transfer into a sample.
	Jitter func(mean sim.Time) sim.Time
}

// NewSystem returns an empty system.
func NewSystem(eng *sim.Engine, topo Topology, lat Latencies) *System {
	return &System{eng: eng, topo: topo, lat: lat, byName: map[string]*Line{}}
}

// Latencies returns the system's miss costs.
func (s *System) Latencies() Latencies { return s.lat }

// Topology returns the system's topology.
func (s *System) Topology() Topology { return s.topo }

// NewLine adds a line. Names are unique.
func (s *System) NewLine(name string, perCPU bool) (*Line, error) {
	if _, dup := s.byName[name]; dup {
		return nil, fmt.Errorf("cacheline: line %q defined twice; give each line its own name", name)
	}
	n := s.topo.NumCores()
	l := &Line{
		Name: name, ID: len(s.lines), PerCPU: perCPU, owner: -1,
		sharers: make([]uint64, (n+63)/64),
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

// Result says how an access was served.
type Result struct {
	Done     sim.Time // when the data (or ownership) is at the requester
	Queued   sim.Time // time spent waiting for earlier transfers of the line
	Transfer sim.Time // time the transfer itself took; 0 on a hit
	Hit      bool
	From     Distance
}

// Access performs op by core on l at now. A hit completes at now: the cost of
// executing the instruction is the core's business. A miss waits for the line
// to be free, then takes the latency of the distance it travels. Hold is how
// long the requester keeps the line locked once it has it (an atomic's
// execution); later requests queue behind that too.
func (s *System) Access(now sim.Time, core int, l *Line, op Op, hold sim.Time) Result {
	st := &l.Stats
	st.Accesses++
	st.ByCore[core]++
	if l.PerCPU || l.owner == core || (op == Load && l.isSharer(core)) {
		st.Hits++
		if op != Load {
			l.dirty = true
			l.freeAt = max(l.freeAt, now+hold)
		}
		return Result{Done: now, Hit: true, From: Local}
	}
	from, lat := s.source(core, l, op)
	start := max(now, l.freeAt)
	service := lat
	if s.Jitter != nil {
		service = s.Jitter(lat)
	}
	done := start + service
	l.freeAt = done + hold
	st.Transfers++
	st.TransfersBy[core]++
	st.TransferTime += service
	if l.owner >= 0 && l.dirty {
		st.HITM++
	}
	if from == OtherSocket {
		st.Remote++
	}
	q := start - now
	st.QueueDelay += q
	st.MaxQueueDelay = max(st.MaxQueueDelay, q)

	if op == Load {
		if l.owner >= 0 {
			l.addSharer(l.owner)
			l.owner = -1
		}
		l.dirty = false
		l.addSharer(core)
	} else {
		lost := l.nsharers
		if l.isSharer(core) {
			lost--
		}
		if l.owner >= 0 {
			lost++
		}
		st.Invalidations += uint64(lost)
		s.wakeLosers(l, core, done)
		l.clearSharers()
		l.owner = core
		l.dirty = true
	}
	return Result{Done: done, Queued: q, Transfer: service, From: from}
}

// source picks where a miss is served from and what it costs. An ownership
// request that finds sharers pays for the farthest invalidation as well.
func (s *System) source(core int, l *Line, op Op) (Distance, sim.Time) {
	if l.owner >= 0 {
		d := s.topo.Distance(l.owner, core)
		return d, s.lat[d]
	}
	if l.nsharers == 0 {
		return Memory, s.lat[Memory]
	}
	near, far := Memory, Local
	for w, word := range l.sharers {
		for word != 0 {
			b := bits.TrailingZeros64(word)
			word &^= 1 << uint(b)
			if c := w*64 + b; c != core {
				d := s.topo.Distance(c, core)
				near = min(near, d)
				far = max(far, d)
			}
		}
	}
	if op == Load || !l.isSharer(core) {
		// A fetch from the nearest sharer; a store also waits for the farthest.
		d := near
		if op != Load {
			d = max(near, far)
		}
		return d, s.lat[d]
	}
	// An upgrade: the core has the data and needs the others' copies gone.
	if far == Local {
		return Local, s.lat[Local]
	}
	return far, s.lat[far]
}

// Watch asks for w to be woken when core loses its copy of l. The core must
// hold the line; a core that does not is woken at once by the caller's logic.
func (s *System) Watch(l *Line, core int, w Waker) {
	l.watchers = append(l.watchers, watcher{core: core, w: w})
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

func (s *System) wakeLosers(l *Line, writer int, at sim.Time) {
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
	for _, x := range woken {
		x.w.LineLost(at)
	}
}
