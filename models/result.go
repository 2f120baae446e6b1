package models

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"contend/cpu"
	"contend/sim"
)

// Result is what a run measured, in units a kernel engineer quotes. It
// marshals to JSON; slices are never nil.
type Result struct {
	Seconds    float64       `json:"seconds"` // measured interval
	GHz        float64       `json:"ghz"`     // the profile's clock, for cycle counts
	Packets    uint64        `json:"packets"`
	PPS        float64       `json:"pps"`          // all flood CPUs together
	PPSPerCore float64       `json:"pps_per_core"` // mean over flood CPUs
	Offered    uint64        `json:"offered"`      // open loop: packets that arrived
	Dropped    uint64        `json:"dropped"`      // open loop: ring full
	Cores      []CoreResult  `json:"cores"`
	Profile    []LabelResult `json:"profile"` // simulated perf report, largest first
	Lines      []LineResult  `json:"lines"`   // simulated perf c2c, most transfers first
	Locks      []LockResult  `json:"locks"`
	Cmpxchg    []WordResult  `json:"cmpxchg,omitempty"` // the words cmpxchg loops update, by name
	Seqcounts  []SeqResult   `json:"seqcounts,omitempty"`
	RCU        RCUResult     `json:"rcu"`
	Batch      *BatchResult  `json:"batch,omitempty"`
	// Halves are the flood's packets in the first and the second half of
	// the measured interval (a flood without a batch): Unsteady compares
	// them.
	Halves []uint64 `json:"halves,omitempty"`
}

// CoreResult is one CPU's share.
type CoreResult struct {
	CPU     int     `json:"cpu"`
	Role    string  `json:"role"` // "flood" or "batch"
	Packets uint64  `json:"packets"`
	PPS     float64 `json:"pps"`
	Busy    float64 `json:"busy"` // fraction of the interval on-CPU
}

// LabelResult is one symbol of the simulated perf report (and off-CPU time).
type LabelResult struct {
	Label         string  `json:"label"`
	WorkNs        float64 `json:"work_ns"`
	StallNs       float64 `json:"stall_ns"`
	SpinNs        float64 `json:"spin_ns"`
	SleepNs       float64 `json:"sleep_ns"`
	CyclesPct     float64 `json:"cycles_pct"`    // share of on-CPU time
	NsPerPacket   float64 `json:"ns_per_packet"` // on-CPU ns per packet (or operation)
	OffCPUPerOpNs float64 `json:"offcpu_ns_per_packet"`
}

// LineResult is one line of the simulated perf c2c.
type LineResult struct {
	Name               string  `json:"name"`
	PerCPU             bool    `json:"percpu"`
	Accesses           uint64  `json:"accesses"`
	Transfers          uint64  `json:"transfers"`
	HITM               uint64  `json:"hitm"`
	Remote             uint64  `json:"remote"`
	Invalidations      uint64  `json:"invalidations"`
	TransfersPerPacket float64 `json:"transfers_per_packet"`
	HITMPerPacket      float64 `json:"hitm_per_packet"`
	QueueNsPerPacket   float64 `json:"queue_ns_per_packet"`
	MeanQueueNs        float64 `json:"mean_queue_ns"` // per transfer
	MaxQueueNs         float64 `json:"max_queue_ns"`
	// BusyPct is the share of the run its home could serve no other
	// request (cacheline.Stats.Busy): near 100, the line is a bottleneck.
	BusyPct float64 `json:"busy_pct"`
	// TransfersByCPU is the transfers each CPU's misses caused, by CPU id.
	TransfersByCPU []uint64 `json:"transfers_by_cpu"`
	// SiblingClears is how many times a spinner on the line was thrown
	// back by its SMT sibling's write (cacheline.Stats.SiblingClears).
	SiblingClears uint64 `json:"sibling_clears,omitempty"`
}

// LockResult counts one lock's acquisitions.
type LockResult struct {
	Name         string `json:"name"`
	Kind         string `json:"kind"`
	Acquisitions uint64 `json:"acquisitions"`
	Contended    uint64 `json:"contended"`
	Retries      uint64 `json:"retries,omitempty"` // failed atomics that went round again
	// WaitedNs is the time its contended acquisitions waited, in all
	// (lock_stat's waittime-total), in nanoseconds.
	WaitedNs float64 `json:"waited_ns"`
}

// WordResult is what the cmpxchg loops on one word did.
type WordResult struct {
	Name      string `json:"name"`
	Attempts  uint64 `json:"attempts"`  // cmpxchgs executed
	Failures  uint64 `json:"failures"`  // cmpxchgs that found the word changed
	Fallbacks uint64 `json:"fallbacks"` // loops that left for their fallback
	// Saturations are refcount_t operations that saturated the count.
	Saturations uint64 `json:"saturations,omitempty"`
}

// SeqResult is what one seqcount's sections did.
type SeqResult struct {
	Name    string `json:"name"`
	Reads   uint64 `json:"reads"`   // read sections that returned
	Retries uint64 `json:"retries"` // read sections that went round again
	Writes  uint64 `json:"writes"`
}

// RCUResult summarises grace periods and deferred frees.
type RCUResult struct {
	GracePeriods     uint64  `json:"grace_periods"`
	MeanGPMs         float64 `json:"mean_gp_ms"`
	P99GPMs          float64 `json:"p99_gp_ms"`
	MaxGPMs          float64 `json:"max_gp_ms"`
	Callbacks        uint64  `json:"callbacks"`
	FreedBytes       int64   `json:"freed_bytes"`
	PendingBytesMean float64 `json:"pending_bytes_mean"`
	PendingBytesMax  float64 `json:"pending_bytes_max"`
	FQSScans         uint64  `json:"fqs_scans"`
	CallbacksPerGP   float64 `json:"callbacks_per_gp"`
	// KthreadHoldouts counts the first scans that found the grace-period
	// kthread's own CPU still owed (Kernel.TimerPull).
	KthreadHoldouts uint64 `json:"kthread_holdouts,omitempty"`
	// GPLatency is the distribution of grace periods, from rcu_gp_init to
	// rcu_gp_cleanup (what bpftrace on those two measures).
	GPLatency Latency `json:"gp_latency"`
	// Calls is the latency of every kind of RCU call the workload made;
	// Timeline the mean of each phase of its synchronize_rcu calls.
	Calls    []RCUCallResult `json:"calls"`
	Timeline []RCUPhase      `json:"timeline"`
}

// BatchResult is what a batch of operations took.
type BatchResult struct {
	Ops        int64    `json:"ops"`
	Seconds    float64  `json:"seconds"`
	CPUSeconds float64  `json:"cpu_seconds"`
	CPUUtil    float64  `json:"cpu_util"` // fraction of the batch's time on-CPU
	MeanOpUs   float64  `json:"mean_op_us"`
	P99OpUs    float64  `json:"p99_op_us"`
	OffCPU     []OffCPU `json:"offcpu"` // by cause, largest first
	// Profile is the batch CPU's own perf report, per operation, when a
	// flood runs beside it (Result.Profile is then the flood's).
	Profile []LabelResult `json:"profile,omitempty"`
}

// OffCPU is time blocked, by the label of the step that blocked.
type OffCPU struct {
	Label   string  `json:"label"`
	Seconds float64 `json:"seconds"`
}

func (w *World) result(d *driver, spec RunSpec) *Result {
	m := w.M
	now := m.Now()
	from := m.Started()
	var cores []int
	res := &Result{Cores: []CoreResult{}, Profile: []LabelResult{}, Lines: []LineResult{}, Locks: []LockResult{}}
	if spec.Batch != nil {
		now = d.batchEnd
	}
	span := now - from
	res.Seconds = span.Seconds()
	res.GHz = m.Profile().GHz
	if f := spec.Flood; f != nil {
		for _, id := range f.CPUs {
			c := m.Cores()[id]
			res.Packets += c.Completed
			res.Cores = append(res.Cores, w.coreResult(c, "flood", span))
		}
		cores = append(cores, f.CPUs...)
		if span > 0 {
			res.PPS = float64(res.Packets) / span.Seconds()
			res.PPSPerCore = res.PPS / float64(len(f.CPUs))
		}
		res.Offered, res.Dropped = d.arrived, d.dropped
	}
	if f := spec.Flood; f != nil && spec.Batch == nil {
		var first uint64
		for _, id := range f.CPUs {
			first += m.Cores()[id].FirstHalf
		}
		res.Halves = []uint64{first, res.Packets - first}
	}
	perOp := res.Packets
	if b := spec.Batch; b != nil {
		c := m.Cores()[b.CPU]
		res.Cores = append(res.Cores, w.coreResult(c, "batch", span))
		br := &BatchResult{Ops: d.opsDone, Seconds: span.Seconds(), OffCPU: []OffCPU{},
			MeanOpUs: d.opLatency.Mean() / float64(sim.Microsecond),
			P99OpUs:  d.opLatency.Quantile(0.99) / float64(sim.Microsecond)}
		var on sim.Time
		for l := range m.Labels() {
			lab := cpu.Label(l)
			on += c.Time(lab, cpu.Work) + c.Time(lab, cpu.Stall) + c.Time(lab, cpu.Spin)
			if s := c.Time(lab, cpu.Sleep); s > 0 {
				br.OffCPU = append(br.OffCPU, OffCPU{Label: m.LabelName(lab), Seconds: s.Seconds()})
			}
		}
		sort.SliceStable(br.OffCPU, func(i, j int) bool { return br.OffCPU[i].Seconds > br.OffCPU[j].Seconds })
		br.CPUSeconds = on.Seconds()
		if span > 0 {
			br.CPUUtil = float64(on) / float64(span)
		}
		res.Batch = br
		if spec.Flood == nil {
			cores = []int{b.CPU}
			perOp = uint64(d.opsDone)
		} else {
			br.Profile = w.profile([]int{b.CPU}, uint64(d.opsDone))
		}
	}
	res.Profile = w.profile(cores, perOp)
	res.Lines = w.lineResults(perOp, span)
	for _, l := range w.locks {
		res.Locks = append(res.Locks, lockResult(l))
	}
	sort.Slice(res.Locks, func(i, j int) bool { return res.Locks[i].Name < res.Locks[j].Name })
	for _, wd := range w.words {
		st := &wd.Stats
		res.Cmpxchg = append(res.Cmpxchg, WordResult{Name: wd.Name, Attempts: st.Attempts, Failures: st.Failures, Fallbacks: st.Fallbacks, Saturations: st.Saturations})
	}
	sort.Slice(res.Cmpxchg, func(i, j int) bool { return res.Cmpxchg[i].Name < res.Cmpxchg[j].Name })
	for _, s := range w.seqcounts {
		res.Seqcounts = append(res.Seqcounts, SeqResult{Name: s.Name, Reads: s.Stats.Reads, Retries: s.Stats.Retries, Writes: s.Stats.Writes})
	}
	sort.Slice(res.Seqcounts, func(i, j int) bool { return res.Seqcounts[i].Name < res.Seqcounts[j].Name })
	r := &w.RCU.Stats
	res.RCU = RCUResult{
		GracePeriods: r.GracePeriods, Callbacks: r.Callbacks, FreedBytes: r.FreedBytes,
		MeanGPMs:         r.GPLatency.Mean() / float64(sim.Millisecond),
		P99GPMs:          r.GPLatency.Quantile(0.99) / float64(sim.Millisecond),
		MaxGPMs:          float64(r.GPLatency.Max()) / float64(sim.Millisecond),
		PendingBytesMean: r.Pending.Mean(now), PendingBytesMax: r.Pending.Max(),
	}
	w.RCU.fillResult(&res.RCU)
	return res
}

func (w *World) coreResult(c *cpu.Core, role string, span sim.Time) CoreResult {
	var on sim.Time
	for l := range w.M.Labels() {
		for s := cpu.Work; s <= cpu.Spin; s++ {
			on += c.Time(cpu.Label(l), s)
		}
	}
	cr := CoreResult{CPU: c.ID, Role: role, Packets: c.Completed}
	if span > 0 {
		cr.PPS = float64(c.Completed) / span.Seconds()
		cr.Busy = min(1, float64(on)/float64(span))
	}
	return cr
}

func perPacket(x float64, n uint64) float64 {
	if n == 0 {
		return 0
	}
	return x / float64(n)
}

func (w *World) profile(cores []int, n uint64) []LabelResult {
	m := w.M
	out := []LabelResult{}
	var total float64
	for l, name := range m.Labels() {
		lr := LabelResult{Label: name}
		for _, id := range cores {
			c := m.Cores()[id]
			lab := cpu.Label(l)
			lr.WorkNs += c.Time(lab, cpu.Work).Nanoseconds()
			lr.StallNs += c.Time(lab, cpu.Stall).Nanoseconds()
			lr.SpinNs += c.Time(lab, cpu.Spin).Nanoseconds()
			lr.SleepNs += c.Time(lab, cpu.Sleep).Nanoseconds()
		}
		on := lr.WorkNs + lr.StallNs + lr.SpinNs
		if on == 0 && lr.SleepNs == 0 {
			continue
		}
		total += on
		lr.NsPerPacket = perPacket(on, n)
		lr.OffCPUPerOpNs = perPacket(lr.SleepNs, n)
		out = append(out, lr)
	}
	for i := range out {
		if total > 0 {
			out[i].CyclesPct = 100 * (out[i].WorkNs + out[i].StallNs + out[i].SpinNs) / total
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].CyclesPct != out[j].CyclesPct {
			return out[i].CyclesPct > out[j].CyclesPct
		}
		return out[i].Label < out[j].Label
	})
	return out
}

func (w *World) lineResults(n uint64, span sim.Time) []LineResult {
	out := []LineResult{}
	for _, l := range w.M.Lines() {
		st := &l.Stats
		if st.Accesses == 0 {
			continue
		}
		lr := LineResult{
			Name: l.Name, PerCPU: l.PerCPU, Accesses: st.Accesses, Transfers: st.Transfers,
			HITM: st.HITM, Remote: st.Remote, Invalidations: st.Invalidations,
			TransfersPerPacket: perPacket(float64(st.Transfers), n),
			HITMPerPacket:      perPacket(float64(st.HITM), n),
			QueueNsPerPacket:   perPacket(st.QueueDelay.Nanoseconds(), n),
			MeanQueueNs:        perPacket(st.QueueDelay.Nanoseconds(), st.Transfers),
			MaxQueueNs:         st.MaxQueueDelay.Nanoseconds(),
			TransfersByCPU:     slices.Clone(st.TransfersBy),
			SiblingClears:      st.SiblingClears,
		}
		if span > 0 {
			lr.BusyPct = 100 * min(1, float64(st.Busy)/float64(span))
		}
		out = append(out, lr)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Transfers != out[j].Transfers {
			return out[i].Transfers > out[j].Transfers
		}
		return out[i].Name < out[j].Name
	})
	return out
}

func lockResult(l locker) LockResult {
	switch l := l.(type) {
	case *Spinlock:
		return LockResult{Name: l.Name, Kind: l.Kind.String(), Acquisitions: l.Stats.Acquisitions, Contended: l.Stats.Contended, Retries: l.Stats.Retries, WaitedNs: l.Stats.Waited.Nanoseconds()}
	case *RWLock:
		return LockResult{Name: l.Name, Kind: "rwlock", Acquisitions: l.Stats.Acquisitions, Contended: l.Stats.Contended, WaitedNs: l.Stats.Waited.Nanoseconds()}
	case *RWSem:
		return LockResult{Name: l.Name, Kind: l.kind, Acquisitions: l.Stats.Acquisitions, Contended: l.Stats.Contended, WaitedNs: l.Stats.Waited.Nanoseconds()}
	case *PercpuRWSem:
		return LockResult{Name: l.Name, Kind: "percpu_rw_semaphore", Acquisitions: l.Stats.FastReads + l.Stats.SlowReads + l.Stats.Writes, Contended: l.Stats.Slept}
	}
	panic("models: unknown lock type")
}

// MinPacketsPerCPU is the fewest packets a flood CPU completes, on
// average, in a measured interval whose rate Unsteady trusts: one packet
// more or less is then a tenth of the figure at most.
const MinPacketsPerCPU = 10

// Unsteady says why the measured interval of a flood does not give its
// rate, or is "": too few packets a CPU (MinPacketsPerCPU) for a rate
// that one packet more or less does not move, or a second half whose rate
// differs from the first's by more than a fifth and by more than chance
// explains (four standard deviations of a count, and a packet a CPU for
// the programs that straddle the halfway mark). A fifth leaves room for a
// run whose bursts fall unevenly in the two halves: netdev-refcnt's
// measured interval spans five grace periods, each with its burst of
// callbacks, and its halves differ by up to 12%. Either way the run has not
// shown what the flood does once it has settled: a lock or a cmpxchg loop
// can take far longer than the interval to fall into the mode it keeps
// (lib/lockref.c's, on the lock), and the interval then holds the one it
// started in.
func (r *Result) Unsteady() string {
	var cpus uint64
	for _, c := range r.Cores {
		if c.Role == "flood" {
			cpus++
		}
	}
	if cpus == 0 || len(r.Halves) != 2 || r.Packets == 0 {
		return ""
	}
	if r.Packets < MinPacketsPerCPU*cpus {
		return fmt.Sprintf("only %d packets in the measured interval on %d CPUs, fewer than %d a CPU: the rate is not settled; lengthen [run] duration (and warmup)", r.Packets, cpus, MinPacketsPerCPU)
	}
	a, b := float64(r.Halves[0]), float64(r.Halves[1])
	diff := math.Abs(a - b)
	if diff > 0.2*(a+b)/2 && diff > 4*math.Sqrt(a+b)+float64(cpus) {
		return fmt.Sprintf("the measured interval's second half completed %d packets and its first %d: the run had not settled when it was measured; lengthen [run] warmup", r.Halves[1], r.Halves[0])
	}
	return ""
}

// Idle says why a flood completed no packet in the measured interval: not
// idle (a packet completed, or no CPU floods), too short (the CPUs worked,
// but no packet finished), or waiting (the CPUs spun or slept most of the
// run: a deadlock or starvation).
func (r *Result) Idle() (idle, waiting bool) {
	if r.Packets > 0 || !slices.ContainsFunc(r.Cores, func(c CoreResult) bool { return c.Role == "flood" }) {
		return false, false
	}
	var wait, all float64
	for _, l := range r.Profile {
		wait += l.SpinNs + l.SleepNs
		all += l.WorkNs + l.StallNs + l.SpinNs + l.SleepNs
	}
	return true, wait > all/2
}
