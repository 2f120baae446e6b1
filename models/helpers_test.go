package models_test

import (
	"math"
	"testing"

	"contend/cacheline"
	"contend/cpu"
	"contend/models"
	"contend/sim"
)

// testProfile is one socket of 64 cores without SMT, with round latencies: a
// transfer between two CPUs costs SameSocket (40 ns), an uncontended atomic
// 7 ns of which 60% overlaps the work that follows it.
func testProfile(j cpu.Jitter) cpu.Profile {
	return cpu.Profile{
		Name: "t", GHz: 3, Sockets: 1, CoresPerSocket: 64, ThreadsPerCore: 1,
		L1Hit: 1 * sim.Nanosecond, SMTSibling: 15 * sim.Nanosecond, SameSocket: 40 * sim.Nanosecond,
		OtherSocket: 120 * sim.Nanosecond, Memory: 90 * sim.Nanosecond,
		Atomic: 7 * sim.Nanosecond, AtomicOverlap: 0.6, Wakeup: 5 * sim.Microsecond,
		Jitter: j,
	}
}

// newWorld builds a world on p with kernel k.
func newWorld(t testing.TB, p cpu.Profile, seed uint64, k models.Kernel) *models.World {
	t.Helper()
	m, err := cpu.NewMachine(p, seed)
	if err != nil {
		t.Fatal(err)
	}
	w, err := models.NewWorld(m, k)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func newSpinlock(t testing.TB, w *models.World, kind models.LockKind) *models.Spinlock {
	t.Helper()
	l, err := w.NewSpinlock("lock", kind, "_raw_spin_lock", "_raw_spin_unlock")
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func newLine(t testing.TB, w *models.World, name string, perCPU bool) *cacheline.Line {
	t.Helper()
	l, err := w.M.NewLine(name, perCPU)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// probe is a test-only step that takes no time: it calls f on the core that
// runs it, at the instant it runs.
type probe func(c *cpu.Core)

func (p probe) Exec(c *cpu.Core) (cpu.Outcome, sim.Time) {
	p(c)
	return cpu.Next, c.Now()
}

// onlyOn runs the n steps after it only on the CPUs where on is true: a
// branch, so one flood program can give CPUs different roles.
type onlyOn struct {
	on func(cpu int) bool
	n  int
}

func (s onlyOn) Exec(c *cpu.Core) (cpu.Outcome, sim.Time) {
	if !s.on(c.ID) {
		c.Skip(s.n)
	}
	return cpu.Next, c.Now()
}

func compute(w *models.World, label string, d sim.Time) cpu.Step {
	return &cpu.ComputeStep{Label: w.M.Label(label), D: d}
}

func access(w *models.World, label string, l *cacheline.Line, op cacheline.Op) cpu.Step {
	return &cpu.AccessStep{Label: w.M.Label(label), Line: l, Op: op}
}

func firstN(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// flood runs p in a closed loop on CPUs 0..n-1 of w.
func flood(t testing.TB, w *models.World, p *cpu.Program, n int, warmup, d sim.Time) *models.Result {
	t.Helper()
	res, err := w.Run(models.RunSpec{Flood: &models.Flood{CPUs: firstN(n), Program: p}, Warmup: warmup, Duration: d})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func within(got, want, rel float64) bool { return math.Abs(got-want) <= rel*math.Abs(want) }
