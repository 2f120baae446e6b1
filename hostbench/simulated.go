package hostbench

import (
	"fmt"
	"time"

	"contend/scenarios"
)

// Simulated is a machine whose loops run on contend's own model: each loop
// that is a variant of Scenario is simulated on a profile, and the rest
// (work, loads, PAUSE, wake-up) cost what the profile says. Calibrating it
// must give the profile back, and its check must show no error: the test of
// the whole calibration against a machine whose answer is known.
type Simulated struct {
	s     *scenarios.Scenario
	prof  *scenarios.Profile
	topo  Topology
	costs map[string]float64 // ns per iteration per thread, by job
}

// NewSimulated makes the machine of profile p.
func NewSimulated(p *scenarios.Profile) (*Simulated, error) {
	s, err := scenarios.LoadBuiltin(Scenario)
	if err != nil {
		return nil, err
	}
	s.UseProfile(p)
	return &Simulated{s: s, prof: p, topo: topologyOf(p), costs: map[string]float64{}}, nil
}

// topologyOf lays out the CPUs of a profile's machine as Linux numbers
// them: every core's first thread, then the siblings; an LLC group is
// named by its lowest CPU.
func topologyOf(p *scenarios.Profile) Topology {
	var t Topology
	phys := p.Sockets * p.CoresPerSocket
	for id := range p.NumCPUs() {
		c := CPU{ID: id, Socket: id % phys / p.CoresPerSocket, Core: id % phys % p.CoresPerSocket}
		c.LLC = c.Socket * p.CoresPerSocket
		if p.CoresPerLLC > 0 {
			c.LLC += c.Core / p.CoresPerLLC * p.CoresPerLLC
		}
		t.CPUs = append(t.CPUs, c)
	}
	return t
}

// Topology implements Machine.
func (m *Simulated) Topology() Topology { return m.topo }

// Supports implements Machine.
func (m *Simulated) Supports(Kernel) bool { return true }

// Run implements Machine. The model is deterministic, so each job is
// simulated once.
func (m *Simulated) Run(job Job, iters int) (time.Duration, error) {
	c, ok := m.costs[job.String()]
	if !ok {
		var err error
		if c, err = m.cost(job); err != nil {
			return 0, err
		}
		m.costs[job.String()] = c
	}
	return time.Duration(c * float64(iters)), nil
}

func (m *Simulated) cost(job Job) (float64, error) {
	p := m.prof
	switch job.Kernel {
	case Work:
		return float64(job.Work*cyclesPerUnit) / p.GHz, nil
	case Chase:
		switch {
		case job.Bytes <= 32<<10:
			return p.L1Hit.Nanoseconds(), nil
		case job.Bytes <= 8<<20 && p.LLCHit > 0:
			return p.LLCHit.Nanoseconds(), nil
		case job.Bytes <= 8<<20:
			return p.SameSocket.Nanoseconds(), nil // the model's llc_hit when none is given
		}
		return p.Memory.Nanoseconds(), nil
	case Pause:
		return p.Pause.Nanoseconds(), nil
	case Wakeup:
		return 2 * p.Wakeup.Nanoseconds(), nil
	case LoadModified, RMWModified, RMWShared, RMWWork:
		// The model has one latency for a transfer at each distance,
		// whatever the line's state and the access.
		c := m.topo.Class(m.topo.CPUs[job.CPUs[0]], m.topo.CPUs[job.CPUs[1]])
		lat := map[PairClass]float64{SMTSibling: p.SMTSibling.Nanoseconds(), SameLLC: p.SameSocket.Nanoseconds(),
			OtherLLC: p.OtherLLC.Nanoseconds(), OtherSocket: p.OtherSocket.Nanoseconds()}[c]
		if job.Kernel == RMWWork {
			// What Core.hide hides of the work after an atomic that
			// waited lat for its line, up to the reorder window: the
			// share RunAhead of the work, no longer than the wait, or
			// without it the share MissOverlap of the wait, no longer
			// than the work.
			reach := p.Reach().Nanoseconds()
			work := float64(job.Work*cyclesPerUnit) / p.GHz
			if p.RunAhead > 0 {
				return min(p.RunAhead*work, reach, lat), nil
			}
			return min(p.MissOverlap*lat, reach, work), nil
		}
		return lat, nil
	case Readers:
		// Four transfers a round: one ping-pong round trip where a load
		// leaves the writer a copy, two where it takes the line
		// (loadModified).
		rt, err := m.cost(Job{Kernel: PingPong, CPUs: job.CPUs})
		if p.Migrate {
			rt *= 2
		}
		return rt, err
	}
	variant, ok := variantOf(job)
	if !ok {
		return 0, fmt.Errorf("%v: no variant of %s runs this loop", job, Scenario)
	}
	r, err := m.s.Simulate(scenarios.Point{Variant: variant, Axis: "threads", X: float64(len(job.CPUs)), Seed: m.s.Run.Seed})
	if err != nil {
		return 0, err
	}
	if r.PPSPerCore <= 0 {
		return 0, fmt.Errorf("%v: no operation completed in the simulated run", job)
	}
	return 1e9 / r.PPSPerCore, nil
}
