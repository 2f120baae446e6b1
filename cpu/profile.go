package cpu

import (
	"fmt"

	"contend/cacheline"
	"contend/sim"
)

// Jitter selects how step durations vary around their mean.
type Jitter uint8

// Jitter kinds.
const (
	NoJitter          Jitter = iota // every duration is its mean
	ExponentialJitter               // compute and transfer times are exponential with that mean
)

// Profile is the hardware profile of one machine.
type Profile struct {
	Name           string
	GHz            float64
	Sockets        int
	CoresPerSocket int
	ThreadsPerCore int // SMT siblings per physical core

	// Latency of a miss by where the line is, and of an L1 hit.
	L1Hit       sim.Time
	SMTSibling  sim.Time
	SameSocket  sim.Time
	OtherSocket sim.Time
	Memory      sim.Time

	// Atomic is the latency of an uncontended atomic RMW on an owned line.
	// AtomicOverlap is the fraction of it that independent work after the
	// atomic can hide (out-of-order execution); a tight loop hides none.
	Atomic        sim.Time
	AtomicOverlap float64
	// StoreDrain is how long a store sits in the store buffer before it
	// commits. A locked instruction waits for the buffer to drain, so in a
	// tight lock/unlock loop every lock pays for the previous unlock's store;
	// in a real code path the drain finishes under other work.
	StoreDrain sim.Time

	// Wakeup is the time from a wake-up to the task running again.
	Wakeup sim.Time

	Jitter Jitter
}

// NumCPUs returns the number of logical CPUs.
func (p *Profile) NumCPUs() int { return p.Sockets * p.CoresPerSocket * p.ThreadsPerCore }

// Validate checks p and returns an error naming the field and the fix.
func (p *Profile) Validate() error {
	bad := func(field, format string, args ...any) error {
		return fmt.Errorf("profile %q: %s: %s", p.Name, field, fmt.Sprintf(format, args...))
	}
	switch {
	case !(p.GHz > 0) || p.GHz > 100:
		return bad("ghz", "%v is not a clock rate; give the core clock in GHz, e.g. 2.8", p.GHz)
	case p.Sockets < 1:
		return bad("sockets", "%d; a machine has at least 1 socket", p.Sockets)
	case p.CoresPerSocket < 1:
		return bad("cores_per_socket", "%d; a socket has at least 1 core", p.CoresPerSocket)
	case p.ThreadsPerCore < 1:
		return bad("threads_per_core", "%d; use 1 without SMT, 2 with hyper-threading", p.ThreadsPerCore)
	case p.ThreadsPerCore > p.CoresPerSocket && p.ThreadsPerCore > 1:
		return bad("threads_per_core", "%d SMT siblings but only %d cores per socket; siblings share a core, so use at most %d", p.ThreadsPerCore, p.CoresPerSocket, p.CoresPerSocket)
	case p.ThreadsPerCore > 8:
		return bad("threads_per_core", "%d; no supported CPU has more than 8 SMT threads per core", p.ThreadsPerCore)
	case p.CoresPerSocket > MaxCPUs:
		return bad("cores_per_socket", "%d; contend models at most %d CPUs", p.CoresPerSocket, MaxCPUs)
	case p.Sockets > MaxCPUs/p.CoresPerSocket/p.ThreadsPerCore:
		// Divided rather than multiplied: the product of huge counts wraps.
		return bad("sockets", "%d of %d cores with %d threads each is more than the %d CPUs contend models", p.Sockets, p.CoresPerSocket, p.ThreadsPerCore, MaxCPUs)
	case !(p.AtomicOverlap >= 0 && p.AtomicOverlap <= 1):
		return bad("atomic_overlap", "%v; it is a fraction of the atomic's latency, between 0 and 1", p.AtomicOverlap)
	}
	for _, f := range []struct {
		name string
		v    sim.Time
	}{
		{"l1_hit", p.L1Hit}, {"smt_sibling", p.SMTSibling}, {"same_socket", p.SameSocket},
		{"other_socket", p.OtherSocket}, {"memory", p.Memory}, {"atomic", p.Atomic}, {"wakeup", p.Wakeup}, {"store_drain", p.StoreDrain},
	} {
		if f.v < 0 {
			return bad(f.name, "negative latency %v; latencies are durations such as \"40ns\"", f.v)
		}
	}
	return nil
}

// MaxCPUs is the largest machine contend models.
const MaxCPUs = 1024

// Cycles converts a cycle count to time at the profile's clock.
func (p *Profile) Cycles(n float64) sim.Time { return sim.FromNanoseconds(n / p.GHz) }

// Latencies returns the miss costs by distance for package cacheline.
func (p *Profile) Latencies() cacheline.Latencies {
	return cacheline.Latencies{
		cacheline.Local:       p.L1Hit,
		cacheline.SMTSibling:  p.SMTSibling,
		cacheline.SameSocket:  p.SameSocket,
		cacheline.OtherSocket: p.OtherSocket,
		cacheline.Memory:      p.Memory,
	}
}

// Topology maps logical CPUs to sockets and physical cores: CPU i is thread
// i / (sockets·cores) of physical core i mod (sockets·cores), and physical core
// k sits on socket k / cores_per_socket.
type Topology struct {
	p *Profile
}

// NumCores returns the number of logical CPUs.
func (t Topology) NumCores() int { return t.p.NumCPUs() }

// Physical returns the physical core of a logical CPU.
func (t Topology) Physical(cpu int) int { return cpu % (t.p.Sockets * t.p.CoresPerSocket) }

// Socket returns the socket of a logical CPU.
func (t Topology) Socket(cpu int) int { return t.Physical(cpu) / t.p.CoresPerSocket }

// Distance classifies a transfer from one CPU's cache to another's.
func (t Topology) Distance(from, to int) cacheline.Distance {
	switch {
	case from == to:
		return cacheline.Local
	case t.Physical(from) == t.Physical(to):
		return cacheline.SMTSibling
	case t.Socket(from) == t.Socket(to):
		return cacheline.SameSocket
	}
	return cacheline.OtherSocket
}
