package cpu

import (
	"slices"

	"contend/cacheline"
	"contend/sim"
)

// A ticket lock's release makes every waiter read the lock word again, and
// all but one of them find it is not their turn and go on spinning. Run as
// an event a waiter, the re-reads of N waiters cost 2N events a hand-over.
// A core that spins with SpinRereads instead has its re-reads served by
// the machine: in time order, each where the line's home serves it, all
// those that come before the engine's next event within one event, and only
// the core whose read finds its turn wakes.

// SpinRereads blocks c spinning on l from from, charging the wait to label
// as spin, until one of its reads of l finds what c waits for. Whenever the
// line is taken from it, the core notices somewhere in the pause it is in
// (Notices) and reads the line again; the home serves that read in turn
// with every other request for the line. When the read is served, served
// says whether it found the core's turn: if so the core wakes when the read
// completes and runs its step again, which must then take what the read
// found without reading again; if not it goes on spinning on its new copy.
// A core that does not hold l at from reads it at once, or, if its copy is
// leaving but the snoop has not come, in the pause after it goes. Served is
// asked when a read is served, before it completes: what it looks at must
// change only where l is written or poked (Machine.Poke), so that the
// answer holds when the read completes.
func (c *Core) SpinRereads(l *cacheline.Line, from sim.Time, label Label, served func(*Core) bool) (Outcome, sim.Time) {
	c.spin.line, c.spin.served = l, served
	c.BlockFrom(from, label, Spin)
	c.spinOn(from)
	return Block, 0
}

// spinner is what a line tells when it is taken from a core that spins with
// SpinRereads.
type spinner struct {
	c      *Core
	line   *cacheline.Line
	served func(*Core) bool
	// reading is when the core's latest read completes: a write asked
	// for before then finds the core looking at what it read, not yet
	// spinning on its copy.
	reading sim.Time
}

// LineLost queues the core's next read, when it notices; or, if the line
// is written while the core's read is under way, its look at what the
// read found when it completes: its turn, or no copy to spin on.
//
// A core that is the only one the write wakes, with no other spinner's
// read waiting to be served (a lock two CPUs share), wakes to read the
// line itself instead: the same read at the same time, at an event of its
// own, which then costs less than the queue.
func (s *spinner) LineLost(at sim.Time) {
	c := s.c
	if s.reading > c.M.asked() {
		c.M.reread(c, s.reading, true)
		return
	}
	notice := c.Notices(at)
	if q := &c.M.rereads; c.M.lines.Waking() == 1 && !c.M.rereading && q.empty() {
		c.spin.line, c.spin.served = nil, nil
		c.Wake(notice, Again)
		return
	}
	c.M.reread(c, notice, false)
}

// asked returns when the access being made was asked for: the time of the
// queued read being served, or the engine's (a core's access to a shared
// line is made at an event of its own).
func (m *Machine) asked() sim.Time {
	if m.rereading {
		return m.rereadAt
	}
	return m.eng.Now()
}

// spinOn watches the spinning core's line from from, as its cached copy
// serves its reads, or queues a read if it has no copy.
func (c *Core) spinOn(from sim.Time) {
	l := c.spin.line
	if l.Holds(c.ID) {
		c.M.lines.WatchFrom(l, c.ID, &c.spin, from)
		return
	}
	at := from
	if kept := l.KeptUntil(c.ID); kept > from {
		at = c.Notices(kept)
	}
	c.M.reread(c, at, false)
}

// reread queues a read of its line by the spinning core c at at, or with
// look, a look at what its latest read found when it completes at at.
func (m *Machine) reread(c *Core, at sim.Time, look bool) {
	if m.rereading {
		m.rereads.pushNear(at, c, look)
		return
	}
	m.rereads.push(at, c, look)
	if !m.rereading && (!m.rereadEv.Scheduled() || at < m.rereadEv.At()) {
		m.eng.Schedule(&m.rereadEv, at)
	}
}

// serveRereads serves, in time order, the queued reads of spinning cores
// that come before every other event and within the run: each at its own
// time, as the home takes it up. A read that finds its core's turn wakes
// the core; the others leave their core spinning on the copy they brought.
func (m *Machine) serveRereads(sim.Time) {
	m.rereading = true
	q := &m.rereads
	n := 0
	for {
		it := q.first()
		if it == nil || it.at >= m.eng.NextAt() || it.at > m.eng.Horizon() {
			break
		}
		at, c, look := it.at, m.cores[it.core], it.look
		q.pop(it)
		n++
		if !c.waiting || c.spin.line == nil {
			panic("cpu: a queued re-read of a core that no longer spins")
		}
		if look {
			c.look(at)
			continue
		}
		m.asking, m.rereadAt = -1, at
		done := m.lines.Access(at, c.ID, c.spin.line, cacheline.Load, 0).Done
		if done <= at {
			c.look(at)
			continue
		}
		// The core looks at what it read when the read completes and spins
		// on its copy from then. Whether that is its turn is known now:
		// the turn changes only where the line is written or poked, and
		// one asked for before then finds the core still reading
		// (LineLost), to look again then.
		if c.spin.served(c) {
			c.spin.line, c.spin.served = nil, nil
			c.Wake(done, Again)
			continue
		}
		c.spin.reading = done
		m.lines.WatchFrom(c.spin.line, c.ID, &c.spin, done)
	}
	m.rereading = false
	m.eng.Inline(uint64(n))
	if it := q.first(); it != nil {
		m.eng.Schedule(&m.rereadEv, it.at)
	}
}

// look has the spinning core c look at what its read found, at at: its
// turn, and it wakes, or not, and it spins on the copy it has, or reads
// again if the line went while the read was under way.
func (c *Core) look(at sim.Time) {
	if c.spin.served(c) {
		c.spin.line, c.spin.served = nil, nil
		c.Wake(at, Again)
		return
	}
	c.spinOn(at)
}

// rereadQueue holds queued reads in time order, first queued first among
// equal times. A write to a line queues every spinner's read at once, in
// the order the line lists its watchers: those are sorted once, when the
// queue is next looked at, and merged with what is left, rather than
// pushed into a heap one by one. What is queued while they are served
// goes into a heap (pushNear), or, if it comes before everything queued
// (a spinner that looks, finds its copy gone and reads again at once), into
// the one slot front, to be served next without the heap's work.
type rereadQueue struct {
	sorted   []reread // in order from head on
	head     int
	in       []reread // queued since sorted was made, in any order
	spare    []reread // the next sorted, made by merging
	near     []reread // queued while serving: a binary heap
	front    reread   // queued while serving, before the heads of sorted and near, if hasFront
	hasFront bool
	seq      uint64
	sorter   sim.Sorter[reread]
}

// reread names its core by number, not by pointer: a queue of values
// without pointers moves them without write barriers and is not scanned.
type reread struct {
	at   sim.Time
	seq  uint64
	core int32
	look bool // not a read: a look at what the latest read found
}

func (q *rereadQueue) push(at sim.Time, c *Core, look bool) {
	q.seq++
	q.in = append(q.in, reread{at: at, seq: q.seq, core: int32(c.ID), look: look})
}

// pushNear queues a read while the queue is being served, into a binary
// heap: those are few (a look when a write comes while a read is under
// way, a read again when that look finds no copy), and merging each into
// the sorted run would cost the whole run every time.
func (q *rereadQueue) pushNear(at sim.Time, c *Core, look bool) {
	q.seq++
	it := reread{at: at, seq: q.seq, core: int32(c.ID), look: look}
	switch {
	case q.hasFront:
		if it.before(&q.front) {
			it, q.front = q.front, it
		}
	case (q.head == len(q.sorted) || it.before(&q.sorted[q.head])) && (len(q.near) == 0 || it.before(&q.near[0])):
		q.front, q.hasFront = it, true
		return
	}
	h := append(q.near, it)
	j := len(h) - 1
	for j > 0 {
		p := (j - 1) / 2
		if !it.before(&h[p]) {
			break
		}
		h[j] = h[p]
		j = p
	}
	h[j] = it
	q.near = h
}

// popNear removes the earliest read of the heap.
func (q *rereadQueue) popNear() {
	h := q.near
	n := len(h) - 1
	last := h[n]
	h = h[:n]
	q.near = h
	if n == 0 {
		return
	}
	i := 0
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && h[c+1].before(&h[c]) {
			c++
		}
		if !h[c].before(&last) {
			break
		}
		h[i] = h[c]
		i = c
	}
	h[i] = last
}

func (a *reread) before(b *reread) bool { return a.at < b.at || a.at == b.at && a.seq < b.seq }

// empty reports whether no read is queued.
func (q *rereadQueue) empty() bool {
	return len(q.in) == 0 && q.head == len(q.sorted) && len(q.near) == 0 && !q.hasFront
}

// first returns the earliest queued read, or nil if none is queued.
func (q *rereadQueue) first() *reread {
	if len(q.in) > 0 {
		q.in = q.sorter.Sort(q.in)
		q.spare = mergeRereads(q.spare[:0], q.sorted[q.head:], q.in)
		q.sorted, q.spare, q.head = q.spare, q.sorted, 0
		q.in = q.in[:0]
	}
	a, b := q.head < len(q.sorted), len(q.near) > 0
	switch {
	case q.hasFront && (!a || q.front.before(&q.sorted[q.head])) && (!b || q.front.before(&q.near[0])):
		return &q.front
	case a && (!b || q.sorted[q.head].before(&q.near[0])):
		return &q.sorted[q.head]
	case b:
		return &q.near[0]
	}
	return nil
}

// pop removes it, the read first returned.
func (q *rereadQueue) pop(it *reread) {
	if it == &q.front {
		q.hasFront = false
		return
	}
	if len(q.near) > 0 && it == &q.near[0] {
		q.popNear()
		return
	}
	if q.head++; q.head == len(q.sorted) {
		q.sorted, q.head = q.sorted[:0], 0
	}
}

// mergeRereads appends the sorted a and b to out, in order, a's first
// among equal reads (there are none: each has its own seq).
func mergeRereads(out, a, b []reread) []reread {
	n := len(out)
	out = slices.Grow(out, len(a)+len(b))[:n+len(a)+len(b)]
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if b[j].before(&a[i]) {
			out[n] = b[j]
			j++
		} else {
			out[n] = a[i]
			i++
		}
		n++
	}
	n += copy(out[n:], a[i:])
	copy(out[n:], b[j:])
	return out
}
