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
	UniformJitter                   // uniform around the mean with the profile's coefficient of variation
)

// DefaultCV is the coefficient of variation of step and transfer durations
// when a scenario does not give one: enough that no two cores stay in
// lockstep, too little to move an uncontended figure.
const DefaultCV = 0.05

// DefaultPauseCycles is one spin-loop iteration (PAUSE, the load of the lock
// word, the compare and branch) when a profile does not give pause: PAUSE is
// about 10 cycles before Skylake and 140 since, so this errs short. Spinners
// that notice a write at different points of their loop do not all ask for
// the line at the same instant.
const DefaultPauseCycles = 25

// DefaultSpinClearCycles is how long after its SMT sibling writes the line
// it spins on a tight spinner reads it again, where the profile does not
// give spin_clear: fitted once over the published cases with a sibling
// pair and a tight spin, perfbook's On-Core CAS rows of the Xeon Platinum
// 8176 and the Core i7-8750H (18.0 and 16.2 ns a pass, where a pass of
// CAS spinners is 7.2 and 6.5 ns: 41 and 40 cycles more). Each row alone
// gives 31 and 39 cycles, and each predicts the other within 12%
// (docs/calibration.md, "A spinner's sibling writes the line").
const DefaultSpinClearCycles = 35

// DefaultSnoop is the fraction of a transfer before the owner gives the line
// up when a scenario's profile does not say (snoop or snoop_window): one
// value for every published profile, which no calibrate loop measures for
// them, fitted over every published case at once, each case weighed once
// and each left out in turn (contend fit --corpus profile.snoop: 0.225, and
// 0.2 to 0.3 with any one case left out; 0.5, half the request's path,
// before). Archived hosts take no part: calibrate measures each one's
// snoop_window.
const DefaultSnoop = 0.225

// DefaultStoreBuffer is the store buffer's capacity in entries when a profile
// does not give it (Skylake's 56).
const DefaultStoreBuffer = 56

// Profile is the hardware profile of one machine.
type Profile struct {
	Name           string
	GHz            float64
	Sockets        int
	CoresPerSocket int
	ThreadsPerCore int // SMT siblings per physical core

	// CoresPerLLC is how many physical cores share one last-level cache
	// (an AMD CCX); 0 means the whole socket.
	CoresPerLLC int

	// L1Hit and LLCHit are load latencies: a hit, and a line read Shared
	// from the LLC. SMTSibling, SameSocket (cores sharing an LLC), OtherLLC
	// and OtherSocket are one-way CAS ping-pong times between two such CPUs,
	// the figure core-to-core tables publish: the transfer of a modified
	// line plus the atomic that wanted it. Memory is a load from DRAM.
	L1Hit       sim.Time
	LLCHit      sim.Time
	SMTSibling  sim.Time
	SameSocket  sim.Time
	OtherLLC    sim.Time
	OtherSocket sim.Time
	Memory      sim.Time

	// Atomic is the latency of an uncontended atomic RMW on an owned line.
	// AtomicOverlap is the fraction of it that independent work after the
	// atomic can hide (out-of-order execution); a tight loop hides none.
	Atomic        sim.Time
	AtomicOverlap float64
	// MissOverlap is the share of the time an atomic waits for a line
	// another core holds that the core spends running the independent
	// work after it (as far as the reorder window reaches): the work
	// runs ahead, and the atomics behind it execute one after another
	// once the line is there. On the Zen 4 guest the 2-thread add with 10
	// units of work after it runs at 88% of what its work allows (it fits
	// 0.61); on the Intel guest the work waits (0.07; 0 is the default).
	// Calibrate's 2-thread add-work10 measures it, where it did not time
	// RunAhead.
	MissOverlap float64
	// RunAhead, when set, replaces MissOverlap's share of the wait: of
	// the work after an atomic that waits for its line, the share that
	// runs meanwhile, as far as the reorder window reaches and never
	// longer than the wait. Timed alone on the Sapphire Rapids guest, 20
	// units of work after such an atomic hide 0.60-0.64 of their time and
	// 100 units no more than 50-53 ns (calibrate's rmw-work loops, which
	// set it); the share of the wait that MissOverlap fits to the 2-thread
	// add with 10 units (0.06-0.16 there) hides at most a quarter of a
	// wait, and a second add of the same visit after 50 units of work
	// never comes, where the machine makes one about every other visit.
	RunAhead float64
	// ReorderReach is how far, in cycles, the core runs independent work
	// past an access that waits for its line: the reorder window. 0 is
	// the default, DefaultReorderReach. Calibrate's timed rmw-work loops
	// measure it on x86: an atomic on a line the other CPU just wrote,
	// followed by 100 units of work, hides at most 45-48 ns of the work on
	// the Sapphire Rapids guest, 113-118 cycles.
	ReorderReach float64
	// StoreDrain is how long a store sits in the store buffer before it
	// commits. A locked instruction waits for the buffer to drain, so in a
	// tight lock/unlock loop every lock pays for the previous unlock's store;
	// in a real code path the drain finishes under other work.
	StoreDrain sim.Time
	// LoadAfterAtomic is how long after an atomic completes a load of
	// the word it wrote returns: on x86 no load passes a locked
	// instruction, and the one that reads its result waits for its store
	// to reach the cache, its latency not hidden under the atomic's. The
	// Intel guest's load-then-add loop costs its add and 3.1 ns. Calibrate's
	// 1-thread shared-load-add measures it; 0, the default, lets such a
	// load hit in the atomic's shadow as any other does.
	LoadAfterAtomic sim.Time
	// StoreAfterAtomic is how long after an atomic completes a store to
	// its line (another word of it) commits: the unlock of an uncontended
	// lock, a test-and-set's store after its CAS or a ticket lock's store
	// of its head after the xadd of its tail, which the next lock's atomic
	// waits for. On the Sapphire Rapids guest an add and then a store to
	// its line cost the add and 3.3 ns, where a store to another line
	// costs it 1. Calibrate's add-store-line measures it; 0, the default,
	// commits the store as a store after any atomic.
	StoreAfterAtomic sim.Time

	// LLCOccupancy is how long the home (LLC slice) of a line is busy with
	// one read it serves: the lookup, without the trip over the ring or mesh.
	// Reads of one line queue behind each other for that long, so N spinners
	// re-reading a lock word are served in a burst, not all at once. 0 means
	// half of LLCHit.
	LLCOccupancy sim.Time

	// Snoop is the fraction of a transfer of a modified line that passes
	// before its owner gives it up (the request's trip to the home, and the
	// home's snoop on to the owner): an owner issuing atomics back to back
	// keeps doing them meanwhile. Scenarios default it to DefaultSnoop.
	Snoop float64
	// Window, when set, replaces Snoop: how long an owner keeps a line
	// another core is taking, from when the home takes the request up (a
	// property of the core, which contend calibrate measures with its
	// 2-thread add), never longer than the transfer (cacheline.System).
	Window sim.Time
	// Migrate: a load of a line modified in another core's cache takes
	// the line from it (cacheline.System.Migrate).
	Migrate bool

	// Forward is who serves readers of a line its owner shared: the LLC
	// (Intel's MESIF, the zero value) or that owner (AMD's MOESI).
	Forward cacheline.Forwarding

	// StoreBuffer is how many stores may wait for their lines before the
	// core stalls; 0 means DefaultStoreBuffer.
	StoreBuffer int
	// Pause is one iteration of a spin loop (cpu_relax): a spinning core
	// notices that its line was written only at the end of an iteration.
	Pause sim.Time
	// SpinClear is what a core spinning with loads and no PAUSE pays when
	// its SMT sibling writes the line it reads: the reads it ran ahead are
	// thrown away (a memory-ordering machine clear) before it reads again
	// (cacheline.System.SiblingClear). Scenarios whose spin loops are
	// tight set it, to DefaultSpinClearCycles where the profile does not
	// say; a PAUSE in the loop avoids the clear, so kernel spinners
	// (cpu_relax) never pay it.
	SpinClear sim.Time

	// Wakeup is the time from a wake-up to the task running again.
	Wakeup sim.Time

	Jitter Jitter
	CV     float64 // UniformJitter's coefficient of variation
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
	case p.CoresPerLLC < 0 || p.CoresPerLLC > p.CoresPerSocket || (p.CoresPerLLC > 0 && p.CoresPerSocket%p.CoresPerLLC != 0):
		return bad("cores_per_llc", "%d does not divide the %d cores of a socket into LLC groups; give a divisor of cores_per_socket", p.CoresPerLLC, p.CoresPerSocket)
	case p.StoreBuffer < 0 || p.StoreBuffer > 4096:
		return bad("store_buffer", "%d entries; give the store buffer's size, e.g. 56", p.StoreBuffer)
	case !(p.Snoop >= 0 && p.Snoop <= 1):
		return bad("snoop", "%v; it is the fraction of a transfer before the owner gives the line up, between 0 and 1", p.Snoop)
	case !(p.CV >= 0 && p.CV <= 0.5):
		return bad("cv", "%v; the coefficient of variation of a step is a fraction between 0 and 0.5, e.g. 0.05", p.CV)
	case !(p.AtomicOverlap >= 0 && p.AtomicOverlap <= 1):
		return bad("atomic_overlap", "%v; it is a fraction of the atomic's latency, between 0 and 1", p.AtomicOverlap)
	case !(p.MissOverlap >= 0 && p.MissOverlap <= 1):
		return bad("miss_overlap", "%v; it is a fraction of an atomic's wait for its line, between 0 and 1", p.MissOverlap)
	case !(p.RunAhead >= 0 && p.RunAhead <= 1):
		return bad("run_ahead", "%v; it is the share of the work after a waiting atomic that runs while it waits, between 0 and 1 (0: miss_overlap's share of the wait instead)", p.RunAhead)
	case !(p.ReorderReach >= 0 && p.ReorderReach <= 10000):
		return bad("reorder_reach", "%v cycles; give how far the core runs work past a waiting access, e.g. 112 (0: the default, %d)", p.ReorderReach, DefaultReorderReach)
	}
	for _, f := range []struct {
		name string
		v    sim.Time
	}{
		{"l1_hit", p.L1Hit}, {"llc_hit", p.LLCHit}, {"smt_sibling", p.SMTSibling}, {"same_socket", p.SameSocket},
		{"other_llc", p.OtherLLC}, {"other_socket", p.OtherSocket}, {"memory", p.Memory}, {"atomic", p.Atomic},
		{"wakeup", p.Wakeup}, {"store_drain", p.StoreDrain}, {"pause", p.Pause}, {"llc_occupancy", p.LLCOccupancy},
		{"load_after_atomic", p.LoadAfterAtomic}, {"store_after_atomic", p.StoreAfterAtomic},
		{"spin_clear", p.SpinClear},
	} {
		if f.v < 0 {
			return bad(f.name, "negative latency %v; latencies are durations such as \"40ns\"", f.v)
		}
	}
	return nil
}

// MaxCPUs is the largest machine contend models.
const MaxCPUs = 1024

// Reach returns the reorder window: ReorderReach cycles, or
// DefaultReorderReach where the profile does not say.
func (p *Profile) Reach() sim.Time {
	if p.ReorderReach > 0 {
		return p.Cycles(p.ReorderReach)
	}
	return p.Cycles(DefaultReorderReach)
}

// Cycles converts a cycle count to time at the profile's clock.
func (p *Profile) Cycles(n float64) sim.Time { return sim.FromNanoseconds(n / p.GHz) }

// Latencies returns the transfer costs by source for package cacheline. A
// ping-pong time is a transfer plus the atomic that follows it, so the
// transfer is the rest; a load latency is a transfer plus an L1 hit. A
// profile thus gives back, when its ping-pong is simulated, the table it was
// made from.
func (p *Profile) Latencies() cacheline.Latencies {
	less := func(t, d sim.Time) sim.Time { return max(t-d, 0) }
	llc := p.LLCHit
	if llc == 0 {
		llc = p.SameSocket
	}
	otherLLC := p.OtherLLC
	if otherLLC == 0 {
		otherLLC = p.SameSocket
	}
	return cacheline.Latencies{
		cacheline.Local:       p.L1Hit,
		cacheline.SMTSibling:  less(p.SMTSibling, p.Atomic),
		cacheline.LLC:         less(llc, p.L1Hit),
		cacheline.SameSocket:  less(p.SameSocket, p.Atomic),
		cacheline.OtherLLC:    less(otherLLC, p.Atomic),
		cacheline.OtherSocket: less(p.OtherSocket, p.Atomic),
		cacheline.Memory:      less(p.Memory, p.L1Hit),
	}
}

// Occupancy returns how long the home is busy with one read it serves.
func (p *Profile) Occupancy() sim.Time {
	if p.LLCOccupancy > 0 {
		return p.LLCOccupancy
	}
	llc := p.LLCHit
	if llc == 0 {
		llc = p.SameSocket
	}
	return llc / 2
}

// Topology maps logical CPUs to sockets, LLC groups and physical cores: CPU
// i is thread i / (sockets·cores) of physical core i mod (sockets·cores),
// physical core k sits on socket k / cores_per_socket and in LLC group
// k / cores_per_llc.
type Topology struct {
	p *Profile
}

// NumCores returns the number of logical CPUs.
func (t Topology) NumCores() int { return t.p.NumCPUs() }

// Physical returns the physical core of a logical CPU.
func (t Topology) Physical(cpu int) int { return cpu % (t.p.Sockets * t.p.CoresPerSocket) }

// Socket returns the socket of a logical CPU.
func (t Topology) Socket(cpu int) int { return t.Physical(cpu) / t.p.CoresPerSocket }

// LLCGroup returns the LLC group of a logical CPU, numbered across sockets.
func (t Topology) LLCGroup(cpu int) int {
	per := t.p.CoresPerLLC
	if per == 0 {
		per = t.p.CoresPerSocket
	}
	return t.Physical(cpu) / per
}

// Place implements cacheline.Topology.
func (t Topology) Place(cpu int) (socket, llc, core int) {
	return t.Socket(cpu), t.LLCGroup(cpu), t.Physical(cpu)
}
