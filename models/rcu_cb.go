package models

import (
	"slices"

	"contend/cpu"
	"contend/sim"
)

// CallKind is an RCU call a workload makes.
type CallKind uint8

const (
	KindSynchronizeRCU CallKind = iota // synchronize_rcu: call to running again
	KindExpedited                      // synchronize_rcu_expedited
	KindCallRCU                        // call_rcu: call to the object freed
	KindKfreeRCU                       // kfree_rcu: call to the object freed
	KindQueueRCUWork                   // queue_rcu_work: call to the work done
	numCallKinds
)

var callNames = [numCallKinds]string{"synchronize_rcu", "synchronize_rcu_expedited", "call_rcu", "kfree_rcu", "queue_rcu_work"}

func (k CallKind) String() string { return callNames[k] }

// CallNames returns the names of the RCU calls a latency may be asked of.
func CallNames() []string { return slices.Clone(callNames[:]) }

// Phase is one stage of a synchronize_rcu call, for the timeline of a
// typical grace period.
type Phase uint8

const (
	PhaseStart  Phase = iota // call to the kthread starting the grace period
	PhaseGP                  // the grace period: FQS waits and scans
	PhaseInvoke              // end to the callback (the caller CPU's next tick) or the kthread's wake-up
	PhaseWake                // callback to the caller running (a scheduler wake-up)
	numPhases
)

var phaseNames = [numPhases]string{
	"wait for the grace period to start",
	"grace period (until every CPU reported)",
	"end of grace period to the callback",
	"callback to the caller running",
}

func (p Phase) String() string { return phaseNames[p] }

// RCUStats summarise RCU in the measured interval.
type RCUStats struct {
	GracePeriods uint64
	GPLatency    latencyRecord // from the kthread starting a GP to its end, ps
	Pending      sim.TimeWeighted
	FreedBytes   int64
	Callbacks    uint64
	FQSScans     uint64
	Holdouts     uint64                      // grace periods whose first scan found the kthread's CPU owed (Kernel.TimerPull)
	Calls        [numCallKinds]latencyRecord // latency of each call, ps
	Phases       [numPhases]sim.Histogram    // synchronize_rcu calls, by phase, ps
}

func (s *RCUStats) reset(now sim.Time) {
	s.GracePeriods, s.Callbacks, s.FreedBytes, s.FQSScans, s.Holdouts = 0, 0, 0, 0, 0
	s.GPLatency.Reset()
	for i := range s.Calls {
		s.Calls[i].Reset()
	}
	for i := range s.Phases {
		s.Phases[i].Reset()
	}
	s.Pending.Reset(now)
}

type cbKind uint8

const (
	cbWake       cbKind = iota // wakeme_after_rcu: wake a synchronize_rcu caller
	cbWakeGP                   // rcu_normal_wake_from_gp: the kthread wakes the caller
	cbFree                     // call_rcu or per-object kfree_rcu: free in the callback
	cbWork                     // queue_rcu_work: a kworker runs the work
	cbKfreeBatch               // kfree_rcu_work: a kworker frees a whole batch
)

type callback struct {
	kind    cbKind
	call    CallKind
	gp      int64 // grace period that must end first; 0: not yet asked for
	core    *cpu.Core
	bytes   int64
	lazy    bool
	at      sim.Time // when the call was made
	gpStart sim.Time // its grace period
	gpEnd   sim.Time
	steps   []cpu.Step // what the callback does to shared lines, run in softirq on core
	work    sim.Time   // a kfree_rcu batch: what its steps spend freeing it
}

// enqueue queues cb on its CPU. Like call_rcu, it asks for no grace period
// itself (__call_rcu_core starts one only past qhimark callbacks): the CPU's
// next tick does (rcu_pending: "Has RCU gone idle with this CPU needing
// another grace period?"). An immediate callback (start_poll_synchronize_rcu)
// asks at once.
func (r *RCU) enqueue(cb callback, now sim.Time, immediate bool) {
	s := &r.cpus[cb.core.ID]
	cb.at = now
	if cb.lazy {
		if s.lazy == 0 {
			s.lazyFrom = now
		}
		s.lazy++
	}
	s.waiting = append(s.waiting, cb)
	r.ncbs++
	if r.nocb != nil {
		r.nocbEnqueue(cb.core.ID, cb.lazy, now)
	}
	if immediate || len(s.waiting) > qhimark {
		r.register(cb.core.ID, now, true)
	}
	r.ensureTick(now)
}

// register ties cpu's new callbacks to the next grace period that starts
// after now (rcu_accelerate_cbs) and asks for it. Lazy callbacks wait until
// a non-lazy one comes (and carries them), LazyFlush has passed or qhimark
// of them wait. New callbacks are always the tail of the list.
func (r *RCU) register(cpu int, now sim.Time, force bool) {
	s := &r.cpus[cpu]
	end := len(s.waiting) - s.bypass
	if s.nreg == end {
		return
	}
	lazyOnly := s.lazy == end-s.nreg
	if !force && lazyOnly && s.lazy < qhimark && now-s.lazyFrom < r.k().LazyFlush {
		return
	}
	r.tie(cpu)
	r.request(now)
}

// tie ties cpu's callbacks not yet tied (bypass aside) to the next grace
// period to start (rcu_seq_snap), and reports whether there were any.
func (r *RCU) tie(cpu int) bool {
	s := &r.cpus[cpu]
	end := len(s.waiting) - s.bypass
	if s.nreg == end {
		return false
	}
	for i := s.nreg; i < end; i++ {
		s.waiting[i].gp = r.gpSeq + 1
	}
	s.nreg, s.lazy = end, 0
	return true
}

// invokeReady runs cpu's callbacks whose grace period ended before this
// tick, in RCU softirq (or the rcuc kthread, one wake-up later).
func (r *RCU) invokeReady(cpu int, now sim.Time) {
	s := &r.cpus[cpu]
	at := now
	if r.k().RCUC {
		at += r.wakeup()
	}
	n := 0
	for n < len(s.ready) && s.ready[n].gpEnd < now {
		r.invoke(s.ready[n], at)
		n++
	}
	s.ready = s.ready[:copy(s.ready, s.ready[n:])]
}

func (r *RCU) invoke(cb callback, at sim.Time) {
	r.Stats.Callbacks++
	r.ncbs--
	switch cb.kind {
	case cbWake:
		run := at + r.wakeup()
		r.recordPhases(cb, at, run)
		r.resume(cb.core, KindSynchronizeRCU, cb.at, run)
	case cbFree:
		r.freed(cb, at)
		if len(cb.steps) > 0 {
			r.w.raise(cb.core.ID, cb.steps)
		}
	case cbWork:
		r.freed(cb, at+r.wakeup())
		r.kworkerRan(cb.core.ID)
	case cbKfreeBatch:
		// kfree_rcu_work: a kworker on the batch's CPU frees it, taking
		// the CPU from what runs there (as its steps, before its next
		// operation); the objects are freed when it is done.
		r.freed(cb, at+r.wakeup()+cb.work)
		if len(cb.steps) > 0 {
			r.w.raise(cb.core.ID, cb.steps)
		}
		r.cpus[cb.core.ID].krc.inflight--
		r.kworkerRan(cb.core.ID)
	}
}

// kworkerRan notes that a work item ran in a kworker on cpu: the switch to
// it and back is a context switch, a quiescent state once the CPU has
// noticed the grace period (rcu_note_context_switch).
func (r *RCU) kworkerRan(cpu int) {
	s := &r.cpus[cpu]
	if r.active && s.pending && s.noticed {
		s.qs = true
	}
}

// wakeFromGP is rcu_sr_normal_gp_cleanup(): the kthread completes the first
// SR_MAX_USERS_WAKE_FROM_GP (5) waiters of the grace period that ended
// itself and hands the rest to a work item (one more wake-up). It reports
// whether waiters for a later grace period remain.
func (r *RCU) wakeFromGP(now sim.Time) bool {
	const maxUsersWakeFromGP = 5
	woken := 0
	keep := r.srs[:0]
	for _, cb := range r.srs {
		if cb.gp > r.gpDone {
			keep = append(keep, cb)
			continue
		}
		r.Stats.Callbacks++
		at := now
		if woken >= maxUsersWakeFromGP {
			at += r.wakeup()
		}
		woken++
		cb.gpStart, cb.gpEnd = r.gpStart, now
		run := at + r.wakeup()
		r.recordPhases(cb, at, run)
		r.resume(cb.core, KindSynchronizeRCU, cb.at, run)
	}
	r.srs = keep
	return len(keep) > 0
}

// syncWakeFromGP is synchronize_rcu_normal() with rcu_normal_wake_from_gp:
// rcu_sr_normal_add_req() puts the caller on rcu_state.srs_next, which the
// next rcu_gp_init() takes (rcu_sr_normal_gp_init), and
// start_poll_synchronize_rcu() asks for that grace period at once,
// accelerating the CPU's own callbacks on the way (rcu_accelerate_cbs).
func (r *RCU) syncWakeFromGP(c *cpu.Core, now sim.Time) {
	r.srs = append(r.srs, callback{kind: cbWakeGP, core: c, at: now, gp: r.gpSeq + 1})
	r.tie(c.ID)
	r.request(now)
	r.ensureTick(now)
}

func (r *RCU) recordPhases(cb callback, invoked, run sim.Time) {
	p := &r.Stats.Phases
	p[PhaseStart].Record(int64(cb.gpStart - cb.at))
	p[PhaseGP].Record(int64(cb.gpEnd - cb.gpStart))
	p[PhaseInvoke].Record(int64(invoked - cb.gpEnd))
	p[PhaseWake].Record(int64(run - invoked))
}

func (r *RCU) freed(cb callback, at sim.Time) {
	r.Stats.Pending.Add(at, -float64(cb.bytes))
	r.Stats.FreedBytes += cb.bytes
	r.Stats.Calls[cb.call].Record(int64(at - cb.at))
}

// kfreeBatch is kfree_rcu_cpu: objects not yet handed to RCU, and the
// batches (krw_arr, KFREE_N_BATCHES = 2) waiting for a grace period.
type kfreeBatch struct {
	bytes, objs int64
	work        sim.Time // what the kworker spends freeing it
	label       cpu.Label
	sumAt       float64 // sum of the times its objects were queued, for their mean latency
	inflight    int
	armed       bool
	monitor     sim.Event
}

const kfreeNBatches = 2 // KFREE_N_BATCHES

// kfreeDrain is KFREE_DRAIN_JIFFIES (HZ / 50).
func (r *RCU) kfreeDrain() int64 { return max(1, int64(r.k().HZ/50)) }

// kfree queues one object for kfree_rcu; work is what freeing it costs the
// kworker of its batch. Freed one at a time (before 5.6) an object costs
// its RCU callback the same.
func (r *RCU) kfree(c *cpu.Core, bytes int64, work sim.Time, label cpu.Label, now sim.Time) {
	r.Stats.Pending.Add(now, float64(bytes))
	if r.k().Kfree == KfreePerObject {
		cb := callback{kind: cbFree, call: KindKfreeRCU, core: c, bytes: bytes}
		if work > 0 {
			cb.steps = []cpu.Step{&cpu.ComputeStep{Label: label, D: work}}
		}
		r.enqueue(cb, now, false)
		return
	}
	b := &r.cpus[c.ID].krc
	b.bytes += bytes
	b.work += work
	b.label = label
	b.objs++
	b.sumAt += float64(now)
	if !b.armed {
		b.armed = true
		r.armKfree(b, now)
	}
}

// armKfree is schedule_delayed_work(&krcp->monitor_work,
// KFREE_DRAIN_JIFFIES): a timer at that tick, then a kworker wake-up.
func (r *RCU) armKfree(b *kfreeBatch, now sim.Time) {
	r.w.M.Schedule(&b.monitor, r.timeoutTick(now, r.kfreeDrain())+r.wakeup())
}

// kfreeMonitor is kfree_rcu_monitor: the batch goes to queue_rcu_work if a
// slot is free, else the monitor is re-armed.
func (r *RCU) kfreeMonitor(id int, now sim.Time) {
	r.kworkerRan(id)
	b := &r.cpus[id].krc
	if b.objs > 0 && b.inflight < kfreeNBatches {
		mean := sim.Time(b.sumAt / float64(b.objs))
		cb := callback{kind: cbKfreeBatch, call: KindKfreeRCU, core: r.w.M.Cores()[id], bytes: b.bytes, work: b.work}
		if b.work > 0 {
			cb.steps = []cpu.Step{&cpu.ComputeStep{Label: b.label, D: b.work}}
		}
		r.enqueue(cb, now, false)
		// The batch's latency counts from its objects' mean queueing time.
		s := &r.cpus[id]
		s.waiting[len(s.waiting)-1].at = mean
		b.inflight++
		b.bytes, b.objs, b.sumAt, b.work = 0, 0, 0, 0
	}
	if b.objs == 0 {
		b.armed = false
		return
	}
	r.armKfree(b, now)
}

// RCUReadLock is rcu_read_lock(): free, but not quiescent.
type RCUReadLock struct{ W *World }

// Exec implements cpu.Step.
func (s *RCUReadLock) Exec(c *cpu.Core) (cpu.Outcome, sim.Time) {
	w := s.W
	st := &w.percpu[c.ID]
	if st.rcuDepth == 0 {
		w.RCU.cpus[c.ID].readFrom = c.Now()
	}
	st.rcuDepth++
	return cpu.Next, c.Now()
}

// RCUReadUnlock is rcu_read_unlock().
type RCUReadUnlock struct{ W *World }

// Exec implements cpu.Step.
func (s *RCUReadUnlock) Exec(c *cpu.Core) (cpu.Outcome, sim.Time) {
	w := s.W
	st := &w.percpu[c.ID]
	if st.rcuDepth == 0 {
		c.Fail("rcu_read_unlock without rcu_read_lock; pair them")
		return cpu.Block, 0
	}
	st.rcuDepth--
	if st.rcuDepth == 0 {
		w.RCU.readUnlock(c.ID, c.Now())
	}
	return cpu.Next, c.Now()
}

// SynchronizeRCU blocks its caller until a grace period that starts after
// the call has ended.
type SynchronizeRCU struct {
	W     *World
	Label cpu.Label
}

// Exec implements cpu.Step.
func (s *SynchronizeRCU) Exec(c *cpu.Core) (cpu.Outcome, sim.Time) {
	w := s.W
	if !w.mayBlock(c, "synchronize_rcu") {
		return cpu.Block, 0
	}
	now := c.Now()
	w.sleep(c, now, s.Label)
	r := w.RCU
	switch {
	case w.K.Expedited:
		// A worker (rcu_gp_wq, or the rcu_exp_gp_kworker kthread_worker)
		// is woken and IPIs the CPUs that are not idle.
		at := now + r.wakeup()
		if r.anyBusy(c.ID) {
			at += w.K.IPI
		}
		r.exp = append(r.exp, expWaiter{core: c, at: at, since: now})
		r.serveExpedited(now)
	case w.K.WakeFromGP == On:
		r.syncWakeFromGP(c, now)
	default:
		// wait_rcu_gp(call_rcu_hurry): a callback that wakes the caller.
		r.enqueue(callback{kind: cbWake, core: c}, now, false)
	}
	return cpu.Block, 0
}

// CallRCU is call_rcu: the object is freed after a later grace period, in
// RCU softirq. With Work it is queue_rcu_work: a kworker frees it; with
// Kfree it is kfree_rcu, batched as the kernel's Kfree mode says. A
// call_rcu's Callback steps (dst_rcu_free's atomics) run on the calling CPU
// once the callback is invoked, before its next packet (RCUSoftirq).
type CallRCU struct {
	W        *World
	Bytes    int64
	Work     bool
	Kfree    bool
	Callback []cpu.Step
	// FreeWork is what the kworker that frees a kfree_rcu batch spends on
	// this call's objects, on the calling CPU after the grace period, as
	// FreeLabel.
	FreeWork  sim.Time
	FreeLabel cpu.Label
}

// Exec implements cpu.Step.
func (s *CallRCU) Exec(c *cpu.Core) (cpu.Outcome, sim.Time) {
	w := s.W
	now := c.Now()
	if s.Kfree {
		w.RCU.kfree(c, s.Bytes, s.FreeWork, s.FreeLabel, now)
		return cpu.Next, now
	}
	cb := callback{kind: cbFree, call: KindCallRCU, core: c, bytes: s.Bytes, lazy: w.K.Lazy, steps: s.Callback}
	if s.Work {
		// queue_rcu_work uses call_rcu_hurry: never lazy.
		cb.kind, cb.call, cb.lazy = cbWork, KindQueueRCUWork, false
	}
	w.RCU.Stats.Pending.Add(now, float64(s.Bytes))
	w.RCU.enqueue(cb, now, false)
	return cpu.Next, now
}

func (r *RCU) fillResult(out *RCUResult) {
	st := &r.Stats
	out.FQSScans, out.KthreadHoldouts = st.FQSScans, st.Holdouts
	if st.GracePeriods > 0 {
		out.CallbacksPerGP = float64(st.Callbacks) / float64(st.GracePeriods)
	}
	us := func(v float64) float64 { return v / float64(sim.Microsecond) }
	out.GPLatency = latencyOf(&st.GPLatency)
	out.Calls, out.Timeline = []RCUCallResult{}, []RCUPhase{}
	for k := range st.Calls {
		h := &st.Calls[k]
		if h.Count() == 0 {
			continue
		}
		out.Calls = append(out.Calls, RCUCallResult{Call: CallKind(k).String(), Latency: latencyOf(h)})
	}
	if st.Phases[0].Count() == 0 {
		return
	}
	for p := range st.Phases {
		out.Timeline = append(out.Timeline, RCUPhase{Phase: Phase(p).String(), MeanUs: us(st.Phases[p].Mean())})
	}
}
