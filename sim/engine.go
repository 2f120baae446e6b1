package sim

import (
	"errors"
	"fmt"
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
	seq    uint64
	index  int // position in the heap, -1 when not scheduled
	queued bool
}

// Scheduled reports whether ev is waiting in a queue.
func (ev *Event) Scheduled() bool { return ev.queued }

// At returns the time ev is scheduled for (meaningful only when Scheduled).
func (ev *Event) At() Time { return ev.at }

// ErrCanceled is returned by Run when Cancel stopped it.
var ErrCanceled = errors.New("sim: run canceled")

// Engine is the event loop. It is not safe for concurrent use, except Cancel.
type Engine struct {
	now      Time
	heap     []*Event
	seq      uint64
	fired    uint64
	canceled atomic.Bool
	obs      observer
}

// NewEngine returns an engine at time zero.
func NewEngine() *Engine { return &Engine{} }

// Now returns the current simulated time.
func (e *Engine) Now() Time { return e.now }

// Fired returns how many events have fired.
func (e *Engine) Fired() uint64 { return e.fired }

// Pending returns how many events are scheduled.
func (e *Engine) Pending() int { return len(e.heap) }

// Schedule puts ev at time at, moving it if it is already scheduled. Events at
// equal times fire in the order they were (re)scheduled. Cost: O(log n).
func (e *Engine) Schedule(ev *Event, at Time) {
	if at < e.now {
		panic(fmt.Sprintf("sim: schedule at %v, before now %v", at, e.now))
	}
	if ev.Action == nil {
		panic("sim: schedule of an event with no action")
	}
	e.seq++
	ev.at, ev.seq = at, e.seq
	if ev.queued {
		e.fix(ev.index)
		return
	}
	ev.queued = true
	ev.index = len(e.heap)
	e.heap = append(e.heap, ev)
	e.up(ev.index)
}

// After schedules ev d after now.
func (e *Engine) After(ev *Event, d Time) { e.Schedule(ev, e.now+d) }

// Unschedule removes ev from the queue and reports whether it was there.
// Cost: O(log n).
func (e *Engine) Unschedule(ev *Event) bool {
	if !ev.queued {
		return false
	}
	i := ev.index
	n := len(e.heap) - 1
	if i != n {
		e.swap(i, n)
	}
	e.heap[n] = nil
	e.heap = e.heap[:n]
	if i != n {
		e.fix(i)
	}
	ev.queued, ev.index = false, -1
	return true
}

// Step fires the earliest event and reports whether there was one.
func (e *Engine) Step() bool {
	if len(e.heap) == 0 {
		return false
	}
	ev := e.pop()
	e.now = ev.at
	e.fired++
	ev.Action.Fire(e.now)
	return true
}

// Cancel asks a running Run to stop at the next event. It is safe to call from
// any goroutine; Run then returns ErrCanceled.
func (e *Engine) Cancel() { e.canceled.Store(true) }

// RunUntil fires events up to and including time t, then sets the clock to t.
// It returns ErrCanceled if Cancel was called.
func (e *Engine) RunUntil(t Time) error {
	for len(e.heap) > 0 && e.heap[0].at <= t {
		if e.canceled.Load() {
			return ErrCanceled
		}
		if e.obs.every > 0 && e.obs.next <= e.heap[0].at {
			e.observe(e.heap[0].at)
		}
		e.Step()
	}
	if e.canceled.Load() {
		return ErrCanceled
	}
	if e.obs.every > 0 && e.obs.next <= t {
		e.observe(t)
	}
	if t > e.now {
		e.now = t
	}
	return nil
}

// Control describes a run: events before Warmup run but their statistics are
// discarded by OnWarmupEnd; the run stops at Until.
type Control struct {
	Warmup      Time
	Until       Time
	OnWarmupEnd func(now Time)
}

// Run executes a run described by c.
func (e *Engine) Run(c Control) error {
	if c.Until < c.Warmup {
		return fmt.Errorf("sim: run until %v is before the end of warm-up %v", c.Until, c.Warmup)
	}
	if c.Warmup > 0 {
		if err := e.RunUntil(c.Warmup); err != nil {
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

// heap: a binary min-heap on (at, seq) that keeps Event.index current.

func (e *Engine) less(i, j int) bool {
	a, b := e.heap[i], e.heap[j]
	return a.at < b.at || (a.at == b.at && a.seq < b.seq)
}

func (e *Engine) swap(i, j int) {
	h := e.heap
	h[i], h[j] = h[j], h[i]
	h[i].index = i
	h[j].index = j
}

func (e *Engine) up(j int) {
	for j > 0 {
		i := (j - 1) / 2
		if !e.less(j, i) {
			break
		}
		e.swap(i, j)
		j = i
	}
}

func (e *Engine) down(i int) bool {
	i0, n := i, len(e.heap)
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		j := l
		if r := l + 1; r < n && e.less(r, l) {
			j = r
		}
		if !e.less(j, i) {
			break
		}
		e.swap(i, j)
		i = j
	}
	return i > i0
}

func (e *Engine) fix(i int) {
	if !e.down(i) {
		e.up(i)
	}
}

func (e *Engine) pop() *Event {
	n := len(e.heap) - 1
	ev := e.heap[0]
	if n > 0 {
		e.swap(0, n)
	}
	e.heap[n] = nil
	e.heap = e.heap[:n]
	if n > 0 {
		e.down(0)
	}
	ev.queued, ev.index = false, -1
	return ev
}
