package cpu

import (
	"fmt"
	"math"

	"contend/cacheline"
	"contend/sim"
)

// Label names what a core is doing, as a symbol in a perf report does.
type Label int32

// Machine is a profile made concrete: an engine, the lines, the cores.
type Machine struct {
	Eng   *sim.Engine
	Prof  Profile
	Topo  Topology
	Lines *cacheline.System
	Rand  *sim.Rand
	Cores []*Core

	labels   []string
	labelIdx map[string]Label
	err      error
	started  sim.Time // start of the measured interval
}

// NewMachine builds the machine described by p, its randomness drawn from seed.
func NewMachine(p Profile, seed uint64) (*Machine, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	m := &Machine{Eng: sim.NewEngine(), Prof: p, Rand: sim.NewRand(seed, 0), labelIdx: map[string]Label{}}
	m.Topo = Topology{p: &m.Prof}
	m.Lines = cacheline.NewSystem(m.Eng, m.Topo, p.Latencies())
	m.Lines.Occupancy = p.Occupancy()
	m.Lines.Snoop = p.Snoop
	if p.Jitter != NoJitter {
		m.Lines.Jitter = m.Duration
	}
	m.Label("idle")
	m.Cores = make([]*Core, p.NumCPUs())
	for i := range m.Cores {
		c := &Core{ID: i, M: m, idle: true, sb: make([]sim.Time, storeBuffer(&p))}
		c.ev.Action = c
		m.Cores[i] = c
	}
	return m, nil
}

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
	m.Eng.Cancel()
}

// Err returns the model error that stopped the run, if any.
func (m *Machine) Err() error { return m.err }

// Duration samples a step duration with the profile's jitter. Uniform jitter
// with coefficient of variation cv spreads it over mean·(1 ± √3·cv).
func (m *Machine) Duration(mean sim.Time) sim.Time {
	switch m.Prof.Jitter {
	case ExponentialJitter:
		return m.Rand.Exp(mean)
	case UniformJitter:
		if mean <= 0 || m.Prof.CV == 0 {
			return mean
		}
		return mean + sim.Time(float64(mean)*m.Prof.CV*math.Sqrt(3)*(2*m.Rand.Float64()-1))
	}
	return mean
}

// Uniform samples a time in [0, d), or returns d/2 without jitter.
func (m *Machine) Uniform(d sim.Time) sim.Time {
	if d <= 0 {
		return 0
	}
	if m.Prof.Jitter == NoJitter {
		return d / 2
	}
	return sim.Time(m.Rand.Float64() * float64(d))
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
	m.Lines.ResetStats()
	for _, c := range m.Cores {
		c.resetStats(now)
	}
}

// Started returns the start of the measured interval.
func (m *Machine) Started() sim.Time { return m.started }

// Run runs the machine for the control's span and returns a model error if one
// stopped it.
func (m *Machine) Run(ctl sim.Control) error {
	ctl.OnWarmupEnd = chain(m.ResetStats, ctl.OnWarmupEnd)
	err := m.Eng.Run(ctl)
	if m.err != nil {
		return m.err
	}
	// A run a model ends early (a batch that finished) still closes the
	// open idle and blocked spans, so every core's time adds up.
	now := m.Eng.Now()
	for _, c := range m.Cores {
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
