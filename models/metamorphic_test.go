package models_test

import (
	"fmt"
	"math/rand"
	"testing"

	"contend/cacheline"
	"contend/cpu"
	"contend/models"
	"contend/sim"
)

// contendedCase is a random contended packet loop: work outside, a spinlock
// of a random kind around a critical section that writes a shared stats
// line, on n CPUs of a two-socket machine with the default variability and
// spin loop.
type contendedCase struct {
	kind           models.LockKind
	n              int
	outside, cs    sim.Time
	socket, remote sim.Time
	seed           uint64
	// window and migrate: the coherence calibrate measures on a host
	// (an owner's window of its own, a load that takes a modified line)
	// instead of the default snoop fraction.
	window  sim.Time
	migrate bool
}

func (c contendedCase) String() string {
	return fmt.Sprintf("%v on %d cpus, %v outside, %v inside, same_socket %v, other_socket %v, window %v, migrate %v, seed %d",
		c.kind, c.n, c.outside, c.cs, c.socket, c.remote, c.window, c.migrate, c.seed)
}

func randomCase(r *rand.Rand) contendedCase {
	ns := func(lo, hi int) sim.Time { return sim.Time(lo+r.Intn(hi-lo)) * sim.Nanosecond }
	c := contendedCase{
		// Not test-and-set: its waiters' atomics steal the line from the
		// holder, so a slower line can mean fewer thefts and a faster
		// hand-over, on hardware as here. Nor qspinlock with the
		// cmpxchg claim of kernels before 4.2: in 2 of these 16 cases a
		// 50% longer critical section gave 10-13% more per CPU (5.00
		// lock-word transfers per acquisition fell to 4.44; no claim
		// failed).
		kind: []models.LockKind{models.Ticket, models.MCS, models.Qspinlock}[r.Intn(3)],
		n:    2 + r.Intn(11), outside: ns(20, 200), cs: ns(5, 60),
		socket: ns(30, 90), remote: ns(100, 200), seed: uint64(r.Int63()),
	}
	if r.Intn(2) == 0 {
		c.window, c.migrate = ns(4, 20), r.Intn(2) == 0
	}
	return c
}

// perCore runs the case and returns the throughput per flood CPU.
func (c contendedCase) perCore(t *testing.T) float64 {
	t.Helper()
	p := testProfile(cpu.UniformJitter)
	p.CV, p.Pause = cpu.DefaultCV, p.Cycles(cpu.DefaultPauseCycles)
	p.Sockets, p.CoresPerSocket = 2, 8
	p.SameSocket, p.OtherSocket = c.socket, c.remote
	p.Window, p.Migrate = c.window, c.migrate
	w := newWorld(t, p, c.seed, models.DefaultKernel())
	l := newSpinlock(t, w, c.kind)
	stats := newLine(t, w, "stats", false)
	prog := &cpu.Program{Name: "rx", Steps: []cpu.Step{
		compute(w, "rx", c.outside), &models.LockStep{L: l}, compute(w, "cs", c.cs),
		access(w, "stats", stats, cacheline.Store), &models.UnlockStep{L: l},
	}}
	// Long enough for a few thousand acquisitions even when they take a
	// microsecond each: the 3% tolerance is then well above the noise.
	return flood(t, w, prog, c.n, 20*sim.Microsecond, sim.Time(c.n)*300*sim.Microsecond).PPSPerCore
}

// A contended variant never speeds up (beyond 3%)
// when a transfer gets slower, its critical section longer, or more CPUs
// share its line: the resonances of a lockstep run are what this catches.
func TestContendedThroughputIsMonotone(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for range 16 {
		base := randomCase(r)
		got := base.perCore(t)
		for _, m := range []struct {
			what string
			edit func(c *contendedCase)
		}{
			{"same_socket +25%", func(c *contendedCase) { c.socket += c.socket / 4 }},
			{"other_socket +25%", func(c *contendedCase) { c.remote += c.remote / 4 }},
			{"critical section +50%", func(c *contendedCase) { c.cs += c.cs / 2 }},
			{"2 more CPUs", func(c *contendedCase) { c.n += 2 }},
		} {
			c := base
			m.edit(&c)
			if slower := c.perCore(t); slower > got*1.03 {
				t.Errorf("%v: %s raises throughput per CPU from %.4g to %.4g pps", base, m.what, got, slower)
			}
		}
	}
}

// A variant that touches only per-cpu lines scales linearly: N CPUs do N
// times what one does, to within the variability of the steps.
func TestPerCPUOnlyScalesLinearly(t *testing.T) {
	one := 0.0
	for _, n := range []int{1, 2, 4, 8, 16} {
		p := testProfile(cpu.UniformJitter)
		p.CV = cpu.DefaultCV
		w := newWorld(t, p, 3, models.DefaultKernel())
		pcpu := newLine(t, w, "stats", true)
		prog := &cpu.Program{Name: "rx", Steps: []cpu.Step{
			compute(w, "rx", 90*sim.Nanosecond), access(w, "stats", pcpu, cacheline.RMW), access(w, "stats", pcpu, cacheline.Store),
		}}
		total := flood(t, w, prog, n, 0, 200*sim.Microsecond).PPS
		if n == 1 {
			one = total
		}
		if !within(total, float64(n)*one, 0.01) {
			t.Errorf("%d cpus: %.4g pps in total, want %d × %.4g", n, total, n, one)
		}
	}
}

// Two CPUs on a test-and-test-and-set lock around a few ns of work, as
// calibrate's loop runs them on its host (AMD, ping-pong about 120 ns a
// transfer): whether the waiter's read finds the lock free depends on where
// in the holder's short loop the snoop of that read arrives. Throughput may
// drift with the transfer latency, but not jump: 2 ns more latency moves it
// by under 15%. (While the snoop was timed on the nominal latency, the one
// duration no jitter moved, this loop went 16.3 → 25.0 → 31.8 → 19.5 M/s
// between 124 and 130 ns; it now gives 18.0-19.8 M/s from 110 to 138.)
func TestTestAndTestAndSetHasNoResonance(t *testing.T) {
	prev := 0.0
	for ss := sim.Time(110); ss <= 138; ss += 2 {
		p := testProfile(cpu.UniformJitter)
		p.CV, p.Pause = cpu.DefaultCV, p.Cycles(cpu.DefaultPauseCycles)
		p.GHz, p.Atomic, p.AtomicOverlap, p.L1Hit = 3.28, 6174*sim.Picosecond, 0.99, 1562*sim.Picosecond
		p.Snoop, p.Forward, p.StoreDrain = cpu.DefaultSnoop, cacheline.ForwardOwner, 107*sim.Picosecond
		p.SameSocket = ss * sim.Nanosecond
		w := newWorld(t, p, 1, models.DefaultKernel())
		l := newSpinlock(t, w, models.TestAndTestAndSet)
		protected := newLine(t, w, "protected", false)
		prog := &cpu.Program{Name: "loop", Steps: []cpu.Step{
			&models.LockStep{L: l}, access(w, "cs", protected, cacheline.Load), access(w, "cs", protected, cacheline.Store),
			compute(w, "cs", 6*sim.Nanosecond), &models.UnlockStep{L: l},
		}}
		got := flood(t, w, prog, 2, 5*sim.Microsecond, 200*sim.Microsecond).PPS
		if prev > 0 && !within(got, prev, 0.15) {
			t.Errorf("same_socket %v: %.4g acquisitions/s, %.4g at %v", p.SameSocket, got, prev, p.SameSocket-2*sim.Nanosecond)
		}
		prev = got
	}
}
