package sim

import (
	"errors"
	"fmt"
	"math/bits"
	"sync/atomic"
)

// Action is what an Event does when it fires.
type Action interface {
	Fire(now Time)
}

// ActionFunc adapts a function to Action.
type ActionFunc func(now Time)

// Fire calls f.
func (f ActionFunc) Fire(now Time) { f(now) }

// Event is a schedulable occurrence. The zero Event with an Action set is ready
// to schedule; the owner keeps it and may schedule it again after it fires.
type Event struct {
	Action Action
	at     Time
	index  int    // position in the heap, -1 when not scheduled
	id     uint32 // the event's place in the table of the engine it was last scheduled on, from 1; 0 before
	queued bool
}

// Scheduled reports whether ev is waiting in a queue.
func (ev *Event) Scheduled() bool { return ev.queued }

// At returns the time ev is scheduled for (meaningful only when Scheduled).
func (ev *Event) At() Time { return ev.at }

// ErrCanceled is returned by Run when Cancel stopped it.
var ErrCanceled = errors.New("sim: run canceled")

// ErrEventLimit is returned by Run when the run fired Control.MaxEvents
// events without reaching its end.
var ErrEventLimit = errors.New("sim: event limit reached")

// Engine is the event loop. It is not safe for concurrent use, except Cancel.
type Engine struct {
	now      Time
	heap     []slot
	events   []*Event // by id: the heap's slots name their events by id, not by pointer
	seq      uint64
	fired    uint64
	canceled atomic.Bool
	finished bool // the model's work is done (Finish): no more events fire
	obs      observer
	limit    uint64 // fired and inline events at which RunUntil stops; 0: none
	inline   uint64 // steps models ran without an event (see Inline)
	until    Time   // the end of the current RunUntil
	// firing is the event Step is firing, still at the root of the heap
	// though no longer scheduled: most events reschedule themselves, and
	// sinking it from the root once costs less than removing it and pushing
	// it again. Nil when Step has taken it off.
	firing *Event
	// next is what NextAt returns while nextKnown: a model that serves
	// many things before the next event asks for it again and again, and
	// only a change to the queue changes it.
	next      Time
	nextKnown bool
}

// NewEngine returns an engine at time zero.
func NewEngine() *Engine { return &Engine{} }

// Now returns the current simulated time.
func (e *Engine) Now() Time { return e.now }

// Fired returns how many events have fired.
func (e *Engine) Fired() uint64 { return e.fired }

// Inline counts n steps that a model ran without an event of their own
// (ahead of the clock, or at the same instant) toward Control.MaxEvents:
// running ahead saves the queue its work, and the bound is on the work.
func (e *Engine) Inline(n uint64) { e.inline += n }

// Pending returns how many events are scheduled.
func (e *Engine) Pending() int {
	if e.firing != nil {
		return len(e.heap) - 1
	}
	return len(e.heap)
}

// NextAt returns the time of the earliest scheduled event, leaving out the
// one Step is firing, or Never if there is none: a model may do work that
// must come before every other event up to then within the event it fires.
// Cost: O(1).
func (e *Engine) NextAt() Time {
	if !e.nextKnown {
		e.next, e.nextKnown = e.nextAt(), true
	}
	return e.next
}

func (e *Engine) nextAt() Time {
	h := e.heap
	if e.firing == nil {
		if len(h) == 0 {
			return Never
		}
		return e.event(h[0]).at
	}
	// The firing event is still at the root: the earliest other one is
	// among its children.
	n := min(len(h), 5)
	if n <= 1 {
		return Never
	}
	return e.event(h[earliest(h, 1, n)]).at
}

// Schedule puts ev at time at, moving it if it is already scheduled. Events at
// equal times fire in the order they were (re)scheduled. Cost: O(log n).
func (e *Engine) Schedule(ev *Event, at Time) {
	if at < e.now {
		panicPast(at, e.now)
	}
	if ev.Action == nil {
		panicNoAction()
	}
	e.seq++
	e.nextKnown = false
	ev.at = at
	if ev.id == 0 || int(ev.id) > len(e.events) || e.events[ev.id-1] != ev {
		// First scheduled on this engine: give it an id here.
		e.events = append(e.events, ev)
		ev.id = uint32(len(e.events))
	}
	s := slot{key: timeKey(at), seq: e.seq, id: ev.id}
	if ev == e.firing {
		e.firing = nil
		ev.queued = true
		e.down(0, s)
		return
	}
	if ev.queued {
		i := ev.index
		if e.down(i, s) == i {
			e.up(i, s)
		}
		return
	}
	ev.queued = true
	n := len(e.heap)
	e.heap = append(e.heap, slot{})
	e.up(n, s)
}

func panicPast(at, now Time) {
	panic(fmt.Sprintf("sim: schedule at %v, before now %v", at, now))
}

func panicNoAction() {
	panic("sim: schedule of an event with no action")
}

// After schedules ev d after now.
func (e *Engine) After(ev *Event, d Time) { e.Schedule(ev, e.now+d) }

// Unschedule removes ev from the queue and reports whether it was there.
// Cost: O(log n).
func (e *Engine) Unschedule(ev *Event) bool {
	if !ev.queued {
		return false
	}
	e.nextKnown = false
	i := ev.index
	h := e.heap
	n := len(h) - 1
	last := h[n]
	h[n] = slot{}
	e.heap = h[:n]
	if i != n {
		if e.down(i, last) == i {
			e.up(i, last)
		}
	}
	ev.queued, ev.index = false, -1
	return true
}

// Step fires the earliest event and reports whether there was one. While it
// fires, the event is not scheduled but keeps its place at the root of the
// heap (every other event sorts after it); if it has not scheduled itself
// again by the end, Step takes it off.
func (e *Engine) Step() bool {
	if len(e.heap) == 0 {
		return false
	}
	ev := e.event(e.heap[0])
	ev.queued, ev.index = false, -1
	e.firing, e.nextKnown = ev, false
	e.now = ev.at
	e.fired++
	ev.Action.Fire(ev.at)
	if e.firing == ev {
		e.firing = nil
		e.removeRoot()
	}
	return true
}

// Cancel asks a running Run to stop at the next event. It is safe to call from
// any goroutine; Run then returns ErrCanceled.
func (e *Engine) Cancel() { e.canceled.Store(true) }

// Finish ends the run at the event being fired, as a model whose work is
// done does: Run returns nil, the clock stays at that event and no later
// event fires. Unlike Cancel it is the model's own call, on the goroutine
// that runs it, and not an interruption.
func (e *Engine) Finish() { e.finished = true }

// RunUntil fires events up to and including time t, then sets the clock to t.
// It returns ErrCanceled if Cancel was called, and nil at once, the clock
// where Finish left it, if the run is finished.
func (e *Engine) RunUntil(t Time) error {
	e.until = t
	defer func() { e.until = e.now }()
	tk := timeKey(t)
	for len(e.heap) > 0 && e.heap[0].key <= tk && !e.finished {
		if e.canceled.Load() {
			return ErrCanceled
		}
		if e.fired+e.inline > e.limit-1 { // a limit of 0, none, wraps round to the largest
			return ErrEventLimit
		}
		if e.obs.every > 0 {
			if at := e.event(e.heap[0]).at; e.obs.next <= at {
				e.observe(at)
			}
		}
		e.Step()
	}
	if e.canceled.Load() {
		return ErrCanceled
	}
	if e.finished {
		return nil
	}
	if e.obs.every > 0 && e.obs.next <= t {
		e.observe(t)
	}
	if t > e.now {
		e.now = t
	}
	return nil
}

// Horizon returns how far ahead of Now a model may run work that touches
// nothing shared without scheduling an event for it: to the end of the
// current RunUntil, so that the end of warm-up and of the run see no work
// from beyond them. Outside RunUntil it is Now. It does not depend on the
// observer: observing must not change a run, so an observation may count
// time a core has already charged a little ahead of it.
func (e *Engine) Horizon() Time {
	return max(e.until, e.now)
}

// Control describes a run: events before Warmup run but their statistics are
// discarded by OnWarmupEnd; the run stops at Until.
type Control struct {
	Warmup      Time
	Until       Time
	OnWarmupEnd func(now Time)
	// MaxEvents, if not 0, bounds the events the run fires: a run that
	// would fire more stops with ErrEventLimit.
	MaxEvents uint64
}

// Run executes a run described by c.
func (e *Engine) Run(c Control) error {
	if c.Until < c.Warmup {
		return fmt.Errorf("sim: run until %v is before the end of warm-up %v", c.Until, c.Warmup)
	}
	if c.MaxEvents > 0 {
		e.limit = e.fired + e.inline + c.MaxEvents
	}
	if c.Warmup > 0 {
		if err := e.RunUntil(c.Warmup); err != nil || e.finished {
			return err
		}
	}
	if c.OnWarmupEnd != nil {
		c.OnWarmupEnd(e.now)
	}
	return e.RunUntil(c.Until)
}

type observer struct {
	every Time
	next  Time
	fn    func(now Time)
}

// Observe calls fn with the simulated time every interval of simulated time,
// between events, without scheduling anything: observing a run does not change
// it. A zero interval removes the observer.
func (e *Engine) Observe(every Time, fn func(now Time)) {
	if every < 0 {
		panic("sim: negative observer interval")
	}
	e.obs = observer{every: every, next: e.now + every, fn: fn}
}

// observe calls the observer for every boundary up to t.
func (e *Engine) observe(t Time) {
	for e.obs.next <= t {
		at := e.obs.next
		e.obs.next += e.obs.every
		e.obs.fn(at)
	}
}

// The queue is a 4-ary min-heap of slots ordered by (time, sequence). Each slot
// holds its sort key inline, so comparisons never dereference an Event, and
// Event.index is kept current so that Unschedule and reschedule are O(log n).
// The children of slot i are slots 4i+1 .. 4i+4.

// slot is one heap entry. It names its event by id rather than by pointer:
// a heap of slots without pointers moves them without write barriers while
// the garbage collector runs, and is not scanned.
type slot struct {
	key uint64 // the event time, mapped by timeKey to sort as unsigned
	seq uint64 // schedule sequence: FIFO among equal times
	id  uint32 // the event's id
}

// event returns the event in slot s.
func (e *Engine) event(s slot) *Event { return e.events[s.id-1] }

// timeKey maps t to a uint64 with the same order.
func timeKey(t Time) uint64 { return uint64(t) ^ 1<<63 }

// before reports whether a sorts before b, as 1 or 0, without branches: it is
// the borrow out of the 128-bit subtraction (a.key, a.seq) - (b.key, b.seq).
func before(a, b *slot) uint64 {
	_, c := bits.Sub64(a.seq, b.seq, 0)
	_, c = bits.Sub64(a.key, b.key, c)
	return c
}

// min4 returns the index in g of its earliest slot, without branches. It
// selects keys with masks rather than reloading them by index, which keeps the
// dependency chain of a heap level short.
func min4(g *[4]slot) uint64 {
	k0, q0 := g[0].key, g[0].seq
	k1, q1 := g[1].key, g[1].seq
	k2, q2 := g[2].key, g[2].seq
	k3, q3 := g[3].key, g[3].seq
	_, x := bits.Sub64(q1, q0, 0)
	_, x = bits.Sub64(k1, k0, x)
	_, y := bits.Sub64(q3, q2, 0)
	_, y = bits.Sub64(k3, k2, y)
	mx, my := -x, -y
	kx, qx := k0^(k0^k1)&mx, q0^(q0^q1)&mx
	ky, qy := k2^(k2^k3)&my, q2^(q2^q3)&my
	_, b := bits.Sub64(qy, qx, 0)
	_, b = bits.Sub64(ky, kx, b)
	y += 2
	return (x ^ (x^y)&-b) & 3
}

// up moves s from position j towards the root to its place and stores it.
func (e *Engine) up(j int, s slot) {
	h := e.heap
	for j > 0 {
		p := (j - 1) >> 2
		if before(&s, &h[p]) == 0 {
			break
		}
		h[j] = h[p]
		e.events[h[j].id-1].index = j
		j = p
	}
	h[j] = s
	e.events[s.id-1].index = j
}

// down moves s from position i towards the leaves to its place, stores it and
// returns its position.
func (e *Engine) down(i int, s slot) int {
	h := e.heap
	n := len(h)
	for {
		c := 4*i + 1
		if c+4 > n {
			break
		}
		// The earliest of the four children, without branches.
		g := (*[4]slot)(h[c : c+4])
		m := min4(g)
		if before(&g[m], &s) == 0 {
			h[i] = s
			e.events[s.id-1].index = i
			return i
		}
		h[i] = g[m]
		e.events[g[m].id-1].index = i
		i = c + int(m)
	}
	if c := 4*i + 1; c < n {
		// The last, partial group: these slots have no children.
		m := earliest(h, c, n)
		if before(&h[m], &s) != 0 {
			h[i] = h[m]
			e.events[h[i].id-1].index = i
			i = m
		}
	}
	h[i] = s
	e.events[s.id-1].index = i
	return i
}

// removeRoot removes the earliest slot. The root's hole sinks along the
// earliest children to a leaf first, and the last slot then rises from there:
// it came from the bottom, so it seldom rises far, and the way down needs no
// comparisons with it.
func (e *Engine) removeRoot() {
	e.nextKnown = false
	h := e.heap
	n := len(h) - 1
	s := h[n]
	h[n] = slot{}
	h = h[:n]
	e.heap = h
	if n == 0 {
		return
	}
	i := 0
	for {
		c := 4*i + 1
		if c+4 > n {
			break
		}
		g := (*[4]slot)(h[c : c+4])
		m := min4(g)
		h[i] = g[m]
		e.events[g[m].id-1].index = i
		i = c + int(m)
	}
	if c := 4*i + 1; c < n {
		m := earliest(h, c, n)
		h[i] = h[m]
		e.events[h[i].id-1].index = i
		i = m
	}
	e.up(i, s)
}

// earliest returns the index of the earliest slot in h[c:n].
func earliest(h []slot, c, n int) int {
	m := c
	for k := c + 1; k < n; k++ {
		if before(&h[k], &h[m]) != 0 {
			m = k
		}
	}
	return m
}
