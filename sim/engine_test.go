package sim_test

import (
	"cmp"
	"errors"
	"fmt"
	"math/rand"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/quick"

	"contend/sim"
)

// firing is one event firing: which event, and the clock when it fired.
type firing struct {
	id int
	at sim.Time
}

// refQueue is the naive reference for Engine: an unordered slice that is
// sorted by (time, schedule sequence) before every pop. It shares no code with
// the heap, so agreement means the heap orders events as the doc promises.
type refQueue struct {
	seq  uint64
	evs  []refEvent
	now  sim.Time
	fire []firing
}

type refEvent struct {
	id  int
	at  sim.Time
	seq uint64
}

func (q *refQueue) find(id int) int {
	return slices.IndexFunc(q.evs, func(r refEvent) bool { return r.id == id })
}

func (q *refQueue) unschedule(id int) bool {
	i := q.find(id)
	if i < 0 {
		return false
	}
	q.evs = slices.Delete(q.evs, i, i+1)
	return true
}

// schedule takes a fresh sequence number even for a reschedule: an event moved
// to a time ties behind everything already scheduled there.
func (q *refQueue) schedule(id int, at sim.Time) {
	q.unschedule(id)
	q.seq++
	q.evs = append(q.evs, refEvent{id: id, at: at, seq: q.seq})
}

func (q *refQueue) step() bool {
	if len(q.evs) == 0 {
		return false
	}
	slices.SortFunc(q.evs, func(a, b refEvent) int {
		if a.at != b.at {
			return cmp.Compare(a.at, b.at)
		}
		return cmp.Compare(a.seq, b.seq)
	})
	r := q.evs[0]
	q.evs = q.evs[1:]
	q.now = r.at
	q.fire = append(q.fire, firing{r.id, r.at})
	return true
}

// engineOp is one step of a random script. A step's event, when it fires,
// makes the schedules and unschedules in react (of itself or of others), as
// models do from inside an event.
type engineOp struct {
	kind  opKind
	ev    int
	delay sim.Time
	react []engineOp
}

type opKind uint8

const (
	opSchedule opKind = iota // also a reschedule when the event is pending
	opUnschedule
	opStep
)

func (o engineOp) String() string {
	return fmt.Sprintf("%v(ev%d,+%d)", [...]string{"schedule", "unschedule", "step"}[o.kind], o.ev, o.delay)
}

type engineScript []engineOp

const scriptEvents = 8 // few events, so reschedules and unschedules of pending events are common

// Generate makes scripts with delays of 0..3 ps, so many events tie in time
// and the sequence tie-break is exercised, not just the time order.
func (engineScript) Generate(r *rand.Rand, size int) reflect.Value {
	s := make(engineScript, r.Intn(4*size+1))
	for i := range s {
		k := opSchedule
		switch p := r.Intn(10); {
		case p >= 7:
			k = opStep
		case p >= 5:
			k = opUnschedule
		}
		s[i] = randomOp(r, k)
		if k == opStep {
			for range r.Intn(3) {
				s[i].react = append(s[i].react, randomOp(r, opKind(r.Intn(2))))
			}
		}
	}
	return reflect.ValueOf(s)
}

func randomOp(r *rand.Rand, k opKind) engineOp {
	return engineOp{kind: k, ev: r.Intn(scriptEvents), delay: sim.Time(r.Intn(4))}
}

// runScript plays s on an Engine and on the reference and returns the first
// disagreement, or "" when they agree on every return value, every firing and,
// after a final drain, the whole firing order.
func runScript(s engineScript) string {
	e := sim.NewEngine()
	var ref refQueue
	var got []firing
	var react []engineOp // what the event firing now does
	var inFire string    // the first disagreement found inside an event
	evs := make([]sim.Event, scriptEvents)
	for i := range evs {
		evs[i].Action = sim.ActionFunc(func(now sim.Time) {
			got = append(got, firing{i, now})
			for _, op := range react {
				if msg := apply(e, evs, &ref, op); msg != "" && inFire == "" {
					inFire = fmt.Sprintf("inside ev%d: %s", i, msg)
				}
				if msg := sameState(e, evs, &ref); msg != "" && inFire == "" {
					inFire = fmt.Sprintf("inside ev%d after %v: %s", i, op, msg)
				}
			}
		})
	}
	for n, op := range s {
		if op.kind == opStep {
			// The reference pops first, so that the event's reactions
			// reach both queues in the same state.
			react = op.react
			w := ref.step()
			if g := e.Step(); g != w {
				return fmt.Sprintf("op %d %v: Step = %v, reference %v", n, op, g, w)
			}
			react = nil
		} else if msg := apply(e, evs, &ref, op); msg != "" {
			return fmt.Sprintf("op %d %v: %s", n, op, msg)
		}
		if inFire != "" {
			return fmt.Sprintf("op %d %v: %s", n, op, inFire)
		}
		if msg := sameState(e, evs, &ref); msg != "" {
			return fmt.Sprintf("after op %d %v: %s", n, op, msg)
		}
	}
	for e.Step() {
	}
	for ref.step() {
	}
	if !slices.Equal(got, ref.fire) {
		return fmt.Sprintf("firing order\n got %v\nwant %v", got, ref.fire)
	}
	return ""
}

// apply makes a schedule or unschedule on both queues.
func apply(e *sim.Engine, evs []sim.Event, ref *refQueue, op engineOp) string {
	ev := &evs[op.ev]
	if op.kind == opSchedule {
		at := e.Now() + op.delay
		e.Schedule(ev, at)
		ref.schedule(op.ev, at)
		return ""
	}
	if g, w := e.Unschedule(ev), ref.unschedule(op.ev); g != w {
		return fmt.Sprintf("Unschedule(ev%d) = %v, reference %v", op.ev, g, w)
	}
	return ""
}

func sameState(e *sim.Engine, evs []sim.Event, ref *refQueue) string {
	if e.Now() != ref.now {
		return fmt.Sprintf("Now = %v, reference %v", e.Now(), ref.now)
	}
	if e.Pending() != len(ref.evs) {
		return fmt.Sprintf("Pending = %d, reference %d", e.Pending(), len(ref.evs))
	}
	if e.Fired() != uint64(len(ref.fire)) {
		return fmt.Sprintf("Fired = %d, reference %d", e.Fired(), len(ref.fire))
	}
	for id := range evs {
		i := ref.find(id)
		if evs[id].Scheduled() != (i >= 0) {
			return fmt.Sprintf("ev%d Scheduled = %v, reference %v", id, evs[id].Scheduled(), i >= 0)
		}
		if i >= 0 && evs[id].At() != ref.evs[i].at {
			return fmt.Sprintf("ev%d At = %v, reference %v", id, evs[id].At(), ref.evs[i].at)
		}
	}
	return ""
}

func TestEngineMatchesReference(t *testing.T) {
	cfg := &quick.Config{MaxCount: 1000, Rand: rand.New(rand.NewSource(1))}
	f := func(s engineScript) bool {
		if msg := runScript(s); msg != "" {
			t.Log(msg)
			return false
		}
		return true
	}
	if err := quick.Check(f, cfg); err != nil {
		t.Fatal(err)
	}
}

// The reference is only worth trusting if the scripts reach the cases it is
// meant to check; a script that only ever schedules could not catch a heap bug.
func TestEngineScriptsCoverReschedule(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	var resched, unsched, ties int
	for range 100 {
		s := engineScript(nil).Generate(r, 50).Interface().(engineScript)
		pending := map[int]bool{}
		for _, op := range s {
			switch op.kind {
			case opSchedule:
				if pending[op.ev] {
					resched++
				}
				if op.delay == 0 {
					ties++
				}
				pending[op.ev] = true
			case opUnschedule:
				if pending[op.ev] {
					unsched++
				}
				delete(pending, op.ev)
			}
		}
	}
	if resched < 100 || unsched < 100 || ties < 100 {
		t.Errorf("100 scripts hold %d reschedules, %d unschedules of pending events, %d zero delays; want >= 100 each",
			resched, unsched, ties)
	}
}

func TestEngineEqualTimesFireFIFO(t *testing.T) {
	e := sim.NewEngine()
	var got []int
	evs := make([]sim.Event, 6)
	for i := range evs {
		evs[i].Action = sim.ActionFunc(func(sim.Time) { got = append(got, i) })
	}
	// Scheduling order 3 1 4 0 5 2, then 4 rescheduled to the same time: a
	// reschedule counts as the latest schedule, so 4 moves behind 2.
	for _, i := range []int{3, 1, 4, 0, 5, 2, 4} {
		e.Schedule(&evs[i], 7)
	}
	for e.Step() {
	}
	if want := []int{3, 1, 0, 5, 2, 4}; !slices.Equal(got, want) {
		t.Errorf("firing order %v, want %v", got, want)
	}
}

func TestEngineScheduleInPastPanics(t *testing.T) {
	e := sim.NewEngine()
	if err := e.RunUntil(10); err != nil {
		t.Fatal(err)
	}
	ev := sim.Event{Action: sim.ActionFunc(func(sim.Time) {})}
	msg := panicOf(func() { e.Schedule(&ev, 9) })
	if !strings.HasPrefix(msg, "sim: ") {
		t.Errorf("Schedule at 9 after now=10: panic %q, want one starting \"sim: \"", msg)
	}
	if ev.Scheduled() || e.Pending() != 0 {
		t.Errorf("after the panic: Scheduled=%v Pending=%d, want false 0", ev.Scheduled(), e.Pending())
	}
	// Now itself is not the past.
	e.Schedule(&ev, 10)
	if !ev.Scheduled() {
		t.Error("Schedule at now did not schedule")
	}
}

func panicOf(f func()) (msg string) {
	defer func() { msg = fmt.Sprint(recover()) }()
	f()
	return "<no panic>"
}

func TestEngineRunUntil(t *testing.T) {
	e := sim.NewEngine()
	var got []sim.Time
	evs := make([]sim.Event, 3)
	for i := range evs {
		evs[i].Action = sim.ActionFunc(func(now sim.Time) { got = append(got, now) })
		e.Schedule(&evs[i], sim.Time(5*(i+1))) // 5, 10, 15
	}
	// RunUntil includes t: 5 and 10 fire, 15 stays.
	if err := e.RunUntil(10); err != nil {
		t.Fatal(err)
	}
	if want := []sim.Time{5, 10}; !slices.Equal(got, want) || e.Now() != 10 || e.Pending() != 1 || !evs[2].Scheduled() {
		t.Fatalf("RunUntil(10): fired at %v, Now %v, Pending %d; want %v, 10, 1", got, e.Now(), e.Pending(), want)
	}
	// With nothing due, the clock still moves to t.
	if err := e.RunUntil(12); err != nil {
		t.Fatal(err)
	}
	if e.Now() != 12 || e.Pending() != 1 {
		t.Errorf("RunUntil(12): Now %v, Pending %d; want 12, 1", e.Now(), e.Pending())
	}
}

func TestEngineRunWarmup(t *testing.T) {
	const period, warmup, until = 7, 100, 300
	e := sim.NewEngine()
	var fired []sim.Time
	var ev sim.Event
	ev.Action = sim.ActionFunc(func(now sim.Time) {
		fired = append(fired, now)
		e.After(&ev, period)
	})
	e.Schedule(&ev, period)
	var calls []sim.Time
	var firedAtWarmup int
	err := e.Run(sim.Control{Warmup: warmup, Until: until, OnWarmupEnd: func(now sim.Time) {
		calls = append(calls, now)
		firedAtWarmup = len(fired)
	}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(calls, []sim.Time{warmup}) {
		t.Fatalf("OnWarmupEnd called at %v, want once at %v", calls, sim.Time(warmup))
	}
	// Events fire at 7k: floor(100/7) = 14 by the end of warm-up, floor(300/7) = 42 by the end.
	if firedAtWarmup != warmup/period || len(fired) != until/period || e.Now() != until {
		t.Errorf("fired %d by warm-up, %d by the end, Now %v; want %d, %d, %v",
			firedAtWarmup, len(fired), e.Now(), warmup/period, until/period, sim.Time(until))
	}
	if err := e.Run(sim.Control{Warmup: 500, Until: 400}); err == nil {
		t.Error("Run with Until before Warmup returned nil, want an error")
	}
}

// cancelFallback bounds a run whose Cancel is ignored: the event stops
// rescheduling itself, RunUntil returns nil and the test fails instead of hanging.
const cancelFallback = 1 << 22

// selfRescheduling schedules an event that fires every picosecond until
// cancelFallback firings, calling hook on each firing.
func selfRescheduling(e *sim.Engine, hook func(n int)) {
	ev := new(sim.Event)
	n := 0
	ev.Action = sim.ActionFunc(func(sim.Time) {
		n++
		hook(n)
		if n < cancelFallback {
			e.After(ev, 1)
		}
	})
	e.Schedule(ev, 0)
}

func TestEngineCancelFromGoroutine(t *testing.T) {
	t.Run("while running", func(t *testing.T) {
		e := sim.NewEngine()
		started := make(chan struct{})
		selfRescheduling(e, func(n int) {
			if n == 1 {
				close(started)
			}
		})
		go func() {
			<-started
			e.Cancel()
		}()
		if err := e.RunUntil(sim.Never); !errors.Is(err, sim.ErrCanceled) {
			t.Fatalf("RunUntil = %v after %d firings, want ErrCanceled", err, e.Fired())
		}
	})
	// The first firing waits until the goroutine has called Cancel, so the run
	// must stop at the very next event: exactly one firing.
	t.Run("stops at the next event", func(t *testing.T) {
		e := sim.NewEngine()
		started, canceled := make(chan struct{}), make(chan struct{})
		selfRescheduling(e, func(n int) {
			if n == 1 {
				close(started)
				<-canceled
			}
		})
		go func() {
			<-started
			e.Cancel()
			close(canceled)
		}()
		err := e.RunUntil(sim.Never)
		if !errors.Is(err, sim.ErrCanceled) || e.Fired() != 1 {
			t.Fatalf("RunUntil = %v after %d firings, want ErrCanceled after 1", err, e.Fired())
		}
	})
}

// observedRun runs events with exponential gaps (mean 0.7 of the observer
// interval, so some intervals hold several events and some none) in two
// RunUntil calls, and logs firings and, if every > 0, observations as id -1.
func observedRun(t *testing.T, every sim.Time) []firing {
	const until = 1000 * sim.Nanosecond
	e := sim.NewEngine()
	r := sim.NewRand(7, 0)
	var log []firing
	evs := make([]sim.Event, 4)
	for i := range evs {
		evs[i].Action = sim.ActionFunc(func(now sim.Time) {
			log = append(log, firing{i, now})
			e.After(&evs[i], r.Exp(7*sim.Nanosecond))
		})
		e.Schedule(&evs[i], r.Exp(7*sim.Nanosecond))
	}
	if every > 0 {
		e.Observe(every, func(now sim.Time) { log = append(log, firing{-1, now}) })
	}
	for _, t1 := range []sim.Time{until / 3, until} {
		if err := e.RunUntil(t1); err != nil {
			t.Fatal(err)
		}
	}
	return log
}

func TestEngineObserve(t *testing.T) {
	const every = 10 * sim.Nanosecond
	plain := observedRun(t, 0)
	logged := observedRun(t, every)

	var observed []sim.Time
	var events []firing
	for i, f := range logged {
		if i > 0 && f.at < logged[i-1].at {
			t.Fatalf("log goes back in time at %d: %v after %v", i, f, logged[i-1])
		}
		if f.id < 0 {
			observed = append(observed, f.at)
		} else {
			events = append(events, f)
		}
	}
	// until = 1000 ns, so the observer sees 10, 20, ..., 1000 ns, once each,
	// including 330 ns across the split at 333.3 ns.
	var want []sim.Time
	for at := every; at <= 1000*sim.Nanosecond; at += every {
		want = append(want, at)
	}
	if !slices.Equal(observed, want) {
		t.Errorf("observed at %v\nwant %v", observed, want)
	}
	if !slices.Equal(events, plain) {
		t.Errorf("observing changed the run: %d firings with observer, %d without", len(events), len(plain))
	}
	if len(plain) < 300 {
		t.Errorf("only %d firings; the run is too short to test anything", len(plain))
	}
}

// A run that would fire more than MaxEvents stops with ErrEventLimit after
// exactly that many, wherever its clock is; a run within the bound is not
// touched by it.
func TestEngineEventLimit(t *testing.T) {
	for _, tc := range []struct {
		max, want uint64
		err       error
	}{{100, 100, sim.ErrEventLimit}, {1, 1, sim.ErrEventLimit}, {2000, 1000, nil}, {0, 1000, nil}} {
		e := sim.NewEngine()
		var ev sim.Event
		// An event that reschedules itself 1 ps later: 1000 fire by 999 ps.
		ev.Action = sim.ActionFunc(func(now sim.Time) { e.Schedule(&ev, now+1) })
		e.Schedule(&ev, 0)
		err := e.Run(sim.Control{Until: 999, MaxEvents: tc.max})
		if !errors.Is(err, tc.err) || e.Fired() != tc.want {
			t.Errorf("MaxEvents %d: fired %d, error %v; want %d and %v", tc.max, e.Fired(), err, tc.want, tc.err)
		}
	}
}

// A model that finishes ends the run where it is: no error, the clock at
// the finishing event, nothing after it fired, and no end of warm-up if it
// finished before one.
func TestEngineFinish(t *testing.T) {
	for _, c := range []struct {
		name   string
		warmup sim.Time
	}{{"after warm-up", 2}, {"during warm-up", 10}} {
		t.Run(c.name, func(t *testing.T) {
			e := sim.NewEngine()
			var fired []sim.Time
			for _, at := range []sim.Time{1, 3, 5, 7} {
				ev := new(sim.Event)
				ev.Action = sim.ActionFunc(func(now sim.Time) {
					fired = append(fired, now)
					if now == 5 {
						e.Finish()
					}
				})
				e.Schedule(ev, at)
			}
			warmedUp := false
			err := e.Run(sim.Control{Warmup: c.warmup, Until: 100, OnWarmupEnd: func(sim.Time) { warmedUp = true }})
			if err != nil || e.Now() != 5 || !slices.Equal(fired, []sim.Time{1, 3, 5}) {
				t.Fatalf("Run = %v at %v after firing %v; want nil at 5 after 1, 3, 5", err, e.Now(), fired)
			}
			if warmedUp != (c.warmup < 5) {
				t.Errorf("warm-up ended: %v; warm-up to %v, finished at 5", warmedUp, c.warmup)
			}
			if err := e.RunUntil(100); err != nil || len(fired) != 3 || e.Now() != 5 {
				t.Errorf("RunUntil after Finish = %v at %v, firing %v; want nothing to happen", err, e.Now(), fired)
			}
		})
	}
}

// NextAt is the earliest time among the scheduled events other than the one
// firing, checked against a naive minimum over every event still scheduled,
// while events fire and reschedule at random.
func TestEngineNextAt(t *testing.T) {
	e := sim.NewEngine()
	if got := e.NextAt(); got != sim.Never {
		t.Fatalf("NextAt of an empty engine = %v, want Never", got)
	}
	r := rand.New(rand.NewSource(5))
	evs := make([]sim.Event, 40)
	naive := func(skip *sim.Event) sim.Time {
		next := sim.Never
		for i := range evs {
			if ev := &evs[i]; ev != skip && ev.Scheduled() {
				next = min(next, ev.At())
			}
		}
		return next
	}
	fired := 0
	for i := range evs {
		ev := &evs[i]
		ev.Action = sim.ActionFunc(func(now sim.Time) {
			fired++
			if got, want := e.NextAt(), naive(ev); got != want {
				t.Fatalf("firing at %v: NextAt = %v, want %v", now, got, want)
			}
			if r.Intn(20) > 0 {
				e.Schedule(ev, now+sim.Time(r.Intn(50)))
				if got, want := e.NextAt(), naive(nil); got != want {
					t.Fatalf("after rescheduling at %v: NextAt = %v, want %v", now, got, want)
				}
			}
		})
		e.Schedule(ev, sim.Time(r.Intn(100)))
	}
	if got, want := e.NextAt(), naive(nil); got != want {
		t.Fatalf("NextAt = %v, want %v", got, want)
	}
	for e.Step() {
	}
	if fired < 400 {
		t.Fatalf("only %d events fired", fired)
	}
}
