package hostbench

import (
	"math"
	"math/rand/v2"
	"time"
)

// fakeMachine is a machine whose costs are known: each loop's time per
// iteration follows from a few latencies the way contend's model composes
// them, with multiplicative noise, an occasional disturbed sample (another
// process took the CPU) and a slow first run (cold caches).
type fakeMachine struct {
	topo                                             Topology
	unit, atomic, overlap, drain, l1, llc, mem, xfer float64 // ns, except overlap; xfer is a one-way ping-pong
	after                                            float64 // ns: a load of the word an atomic just wrote, after it
	storeAfter                                       float64 // ns: a store to the line an atomic just wrote commits, after it
	noise                                            float64 // relative
	outliers                                         float64 // fraction of disturbed samples
	rng                                              *rand.Rand
	seen                                             map[string]bool
	// A burst of noise: once a sample of burstAt's loop starts (a run of
	// a count that is not the sizing's power of two), the next burstRuns
	// runs of any loop take burstFactor times as long.
	burstAt     string
	burstRuns   int
	burstFactor float64
	burstLeft   int
	// A guest whose vCPUs move: every flipRuns runs of a loop of two
	// CPUs or more, the transfer is flipFactor times as long, or back.
	flipRuns   int
	flipFactor float64
	flipCount  int
	// A ping-pong whose first slowRuns runs take slowFactor times as long:
	// a placement the guest leaves soon after the loops begin.
	slowRuns   int
	slowFactor float64
	ppRuns     int
}

func newFake(topo Topology) *fakeMachine {
	return &fakeMachine{topo: topo, unit: 1.25, atomic: 6, overlap: 0.5, drain: 1, l1: 1.5, llc: 12, mem: 90, xfer: 50, after: 3, storeAfter: 4,
		noise: 0.01, outliers: 0.2, rng: rand.New(rand.NewPCG(1, 2)), seen: map[string]bool{}}
}

func (m *fakeMachine) Topology() Topology   { return m.topo }
func (m *fakeMachine) Supports(Kernel) bool { return true }

// cost is the time of one iteration of job.
func (m *fakeMachine) cost(j Job) float64 {
	work := m.unit * float64(j.Work)
	switch j.Kernel {
	case Work:
		return work
	case Add, CAS, Swap, Padded:
		return m.atomic + work - math.Min(m.overlap*m.atomic, work)
	case StoreAdd:
		return m.unit/cyclesPerUnit + m.drain + m.atomic
	case AddStoreLine:
		// The next add waits for the store, which commits storeAfter
		// after the add, or a cycle and the drain after it is issued.
		return m.atomic + math.Max(m.storeAfter, m.unit/cyclesPerUnit+m.drain)
	case SharedLoadAdd:
		if len(j.CPUs) == 1 {
			// The load waits for the add before it, and its store.
			return m.atomic + m.after
		}
	case Chase:
		switch {
		case j.Bytes <= 32<<10:
			return m.l1
		case j.Bytes <= 8<<20:
			return m.llc
		}
		return m.mem
	case PingPong:
		// Two passes, each a read and a CAS of the other's line: two
		// transfers (xfer less the atomic) and the atomic.
		return 2 * (2*(m.xfer-m.atomic) + m.atomic)
	case LoadModified, RMWModified, RMWShared:
		return m.xfer
	case RMWWork:
		return 0 // the work after the atomic waits for it
	case Pause:
		return 10
	case Wakeup:
		return 40e3
	}
	// Contended loops: every operation moves the line.
	return float64(len(j.CPUs)) * (m.xfer + work)
}

func (m *fakeMachine) Run(j Job, iters int) (time.Duration, error) {
	c := m.cost(j)
	if m.flipRuns > 0 && len(j.CPUs) > 1 {
		if m.flipCount/m.flipRuns%2 == 1 {
			x := m.xfer
			m.xfer *= m.flipFactor
			c = m.cost(j)
			m.xfer = x
		}
		m.flipCount++
	}
	if j.Kernel == PingPong {
		if m.ppRuns < m.slowRuns {
			c *= m.slowFactor
		}
		m.ppRuns++
	}
	d := c * float64(iters) * (1 + m.noise*(2*m.rng.Float64()-1))
	if !m.seen[j.String()] {
		m.seen[j.String()] = true
		d *= 5
	}
	if m.rng.Float64() < m.outliers {
		d *= 3
	}
	if m.burstAt != "" && j.String() == m.burstAt && iters&(iters-1) != 0 {
		m.burstAt, m.burstLeft = "", m.burstRuns
	}
	if m.burstLeft > 0 {
		m.burstLeft--
		d *= m.burstFactor
	}
	return time.Duration(d), nil
}
