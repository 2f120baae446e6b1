package cpu

import (
	"fmt"
	"math"

	"contend/cacheline"
	"contend/sim"
)

// Label names what a core is doing, as a symbol in a perf report does.
type Label int32

// Machine is a profile made concrete: an engine, the lines, the cores. Models
// reach them through its methods and the cores', never by their fields.
type Machine struct {
	eng   *sim.Engine
	prof  Profile
	topo  Topology
	lines *cacheline.System
	rand  *sim.Rand
	cores []*Core

	labels   []string
	labelIdx map[string]Label
	err      error
	started  sim.Time // start of the measured interval
	// halfway splits the measured interval in two: each core counts the
	// programs it completes before it (Core.FirstHalf), so that a run can
	// tell whether it had settled (0: no split).
	halfway sim.Time
	// reorderReach is the profile's Reach, worked
	// out once: every atomic step needs it.
	reorderReach sim.Time
	storeIssue   sim.Time // a store that does not wait: a cycle to issue into the store buffer

	// The reads of cores spinning with SpinRereads, queued until they are
	// served, and the event that serves them.
	rereads   rereadQueue
	rereadEv  sim.Event
	rereading bool     // serveRereads is serving them
	rereadAt  sim.Time // the time of the one it serves

	// asking is, while TraceTransfers' function listens, the symbol of the
	// access in progress (-1: a spinning core's re-read).
	asking Label
}

// Traced is a line transfer as TraceTransfers reports it: what the home
// served, and the symbol of the step that asked (empty for the re-read of
// a core spinning on a cached copy, which no step charges).
type Traced struct {
	cacheline.Transfer
	Label string
}

// TraceTransfers has f told of every line transfer asked for at from or
// later, in the order the homes serve them. Without it nothing is traced
// and an access pays one test for the hook.
func (m *Machine) TraceTransfers(from sim.Time, f func(Traced)) {
	m.lines.Trace = func(t cacheline.Transfer) {
		if t.Asked < from {
			return
		}
		label := ""
		if m.asking >= 0 {
			label = m.labels[m.asking]
		}
		f(Traced{Transfer: t, Label: label})
	}
}

// NewMachine builds the machine described by p, its randomness drawn from seed.
func NewMachine(p Profile, seed uint64) (*Machine, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	m := &Machine{eng: sim.NewEngine(), prof: p, rand: sim.NewRand(seed, 0), labelIdx: map[string]Label{}}
	m.topo = Topology{p: &m.prof}
	m.lines = cacheline.NewSystem(m.eng, m.topo, p.Latencies())
	m.lines.Occupancy = p.Occupancy()
	m.lines.Snoop = p.Snoop
	m.lines.Window, m.lines.Migrate = p.Window, p.Migrate
	m.lines.SiblingClear = p.SpinClear
	m.lines.Write = p.Atomic
	m.reorderReach = m.prof.Reach()
	m.storeIssue = m.prof.Cycles(1)
	m.lines.Forward = p.Forward
	if p.Jitter != NoJitter {
		m.lines.Jitter = m.Duration
	}
	m.rereadEv.Action = sim.ActionFunc(m.serveRereads)
	m.rereads.sorter.At = func(r *reread) sim.Time { return r.at }
	m.Label("idle")
	m.cores = make([]*Core, p.NumCPUs())
	for i := range m.cores {
		c := &Core{ID: i, M: m, idle: true, sb: make([]sim.Time, storeBuffer(&p))}
		c.ev.Action = c
		c.spin.c = c
		m.cores[i] = c
	}
	return m, nil
}

// Profile returns the profile the machine was built from.
func (m *Machine) Profile() Profile { return m.prof }

// Topology returns where each CPU sits.
func (m *Machine) Topology() Topology { return m.topo }

// Cores returns the cores, indexed by CPU number. The slice is the
// machine's own: read it, do not change it.
func (m *Machine) Cores() []*Core { return m.cores }

// NumCPUs returns how many CPUs (SMT threads) the machine has.
func (m *Machine) NumCPUs() int { return len(m.cores) }

// NewLine declares a cache line; names are unique.
func (m *Machine) NewLine(name string, perCPU bool) (*cacheline.Line, error) {
	return m.lines.NewLine(name, perCPU)
}

// Line returns the line called name, or nil.
func (m *Machine) Line(name string) *cacheline.Line { return m.lines.Line(name) }

// Lines returns every line in the order they were declared.
func (m *Machine) Lines() []*cacheline.Line { return m.lines.Lines() }

// Poke wakes the cores watching l, as a write to it landing at at does:
// a lock's release that is decided when its store lands.
func (m *Machine) Poke(l *cacheline.Line, at sim.Time) { m.lines.Poke(l, at) }

// Now returns the simulated time.
func (m *Machine) Now() sim.Time { return m.eng.Now() }

// Schedule puts ev at at, moving it if it is already scheduled.
func (m *Machine) Schedule(ev *sim.Event, at sim.Time) { m.eng.Schedule(ev, at) }

// Unschedule takes ev off the clock; false if it was not on it.
func (m *Machine) Unschedule(ev *sim.Event) bool { return m.eng.Unschedule(ev) }

// Observe calls fn every interval of simulated time while the run goes on.
func (m *Machine) Observe(every sim.Time, fn func(now sim.Time)) { m.eng.Observe(every, fn) }

// Cancel stops the run at the next event; it may be called from another
// goroutine (a browser that stops a run).
func (m *Machine) Cancel() { m.eng.Cancel() }

// Finish ends the run at the current event, as a model whose work is done
// does (a batch that ran all its operations): Run returns without error.
func (m *Machine) Finish() { m.eng.Finish() }

// Fired returns how many events have run: what a benchmark divides by.
func (m *Machine) Fired() uint64 { return m.eng.Fired() }

// Exp samples an exponential time of the given mean from the machine's
// randomness: the gap between arrivals of a Poisson stream.
func (m *Machine) Exp(mean sim.Time) sim.Time { return m.rand.Exp(mean) }

// Label interns name.
func (m *Machine) Label(name string) Label {
	if l, ok := m.labelIdx[name]; ok {
		return l
	}
	l := Label(len(m.labels))
	m.labels = append(m.labels, name)
	m.labelIdx[name] = l
	return l
}

// LabelName returns the name of l.
func (m *Machine) LabelName(l Label) string { return m.labels[l] }

// Labels returns every label name, indexed by Label.
func (m *Machine) Labels() []string { return m.labels }

// Fail stops the run with a model error (a deadlock, an unlock of a lock not
// held). The first error wins.
func (m *Machine) Fail(err error) {
	if m.err == nil {
		m.err = err
	}
	m.eng.Cancel()
}

// Err returns the model error that stopped the run, if any.
func (m *Machine) Err() error { return m.err }

// Duration samples a step duration with the profile's jitter. Uniform jitter
// with coefficient of variation cv spreads it over mean·(1 ± √3·cv).
func (m *Machine) Duration(mean sim.Time) sim.Time {
	// Uniform, the default, first.
	if spread := m.spread(mean); spread > 0 {
		return mean + sim.Time(spread*m.rand.Centered())
	}
	if m.prof.Jitter == ExponentialJitter {
		return m.rand.Exp(mean)
	}
	return mean
}

// spread returns what uniform jitter scales a draw in [-1, 1) by for a
// step of the given mean: positive exactly when the step is to draw
// (a positive mean and CV give at least the smallest positive float).
// A compute step works it out once, when its program is loaded.
func (m *Machine) spread(mean sim.Time) float64 {
	if m.prof.Jitter == UniformJitter && mean > 0 && m.prof.CV != 0 {
		return float64(mean) * m.prof.CV * math.Sqrt(3)
	}
	return 0
}

// Uniform samples a time in [0, d), or returns d/2 without jitter.
func (m *Machine) Uniform(d sim.Time) sim.Time {
	if d <= 0 {
		return 0
	}
	if m.prof.Jitter == NoJitter {
		return d / 2
	}
	return sim.Time(m.rand.Float64() * float64(d))
}

func storeBuffer(p *Profile) int {
	if p.StoreBuffer > 0 {
		return p.StoreBuffer
	}
	return DefaultStoreBuffer
}

// ResetStats starts the measured interval at now: time accounting, completion
// counts and line counters restart; state (ownership, programs) is kept.
func (m *Machine) ResetStats(now sim.Time) {
	m.started = now
	m.lines.ResetStats()
	for _, c := range m.cores {
		c.resetStats(now)
	}
}

// Started returns the start of the measured interval.
func (m *Machine) Started() sim.Time { return m.started }

// SetHalfway makes every core count the programs it completes before t
// apart (Core.FirstHalf): t is the middle of the measured interval.
func (m *Machine) SetHalfway(t sim.Time) { m.halfway = t }

// Run runs the machine for the control's span and returns a model error if one
// stopped it.
func (m *Machine) Run(ctl sim.Control) error {
	ctl.OnWarmupEnd = chain(m.ResetStats, ctl.OnWarmupEnd)
	err := m.eng.Run(ctl)
	if m.err != nil {
		return m.err
	}
	// A run a model ends early (a batch that finished) still closes the
	// open idle and blocked spans, so every core's time adds up.
	now := m.eng.Now()
	for _, c := range m.cores {
		c.settle(now)
	}
	return err
}

func chain(a, b func(sim.Time)) func(sim.Time) {
	if b == nil {
		return a
	}
	return func(t sim.Time) { a(t); b(t) }
}

// ModelError is a fault in a scenario's program found while running it.
type ModelError struct {
	At      sim.Time
	Core    int
	Program string
	Step    int
	What    string
}

func (e *ModelError) Error() string {
	return fmt.Sprintf("at %v on cpu %d: %s step %d: %s", e.At, e.Core, e.Program, e.Step+1, e.What)
}
