package models

import (
	"fmt"

	"contend/cpu"
	"contend/sim"
)

// RCU is tree RCU (kernel/rcu/tree.c) reduced to what decides its timing: the
// grace-period kthread (rcu_gp_kthread: rcu_gp_init, rcu_gp_fqs_loop,
// rcu_gp_cleanup), the scheduling-clock tick on every CPU that is not
// dyntick-idle (rcu_sched_clock_irq, rcu_pending, rcu_core), quiescent states
// per CPU, and callbacks invoked at the tick after their grace period.
//
// The grace-period kthread is taken to run on an otherwise idle CPU of its
// own: it notices each grace period in rcu_gp_init and passes a quiescent
// state when it sleeps, which its own CPU's tick reports at the very tick
// that wakes it for a scan, so it never holds a grace period up; unless
// that timeout fires on another CPU (Kernel.TimerPull, kthreadHoldsOut),
// when it holds the grace period to the second scan.
type RCU struct {
	w    *World
	cpus []rcuCPU

	gpSeq    int64 // grace periods started
	gpDone   int64 // grace periods ended
	gpStart  sim.Time
	starting bool // the kthread has been woken to start a grace period
	active   bool // a grace period is in progress
	ending   bool // every CPU has reported; the kthread is being woken to clean up
	needMore bool // callbacks asked for another grace period while this one ran
	urgent   bool // rcu_urgent_qs: the grace period is older than jiffies_to_sched_qs
	npending int
	scans    int // FQS scans in this grace period
	ncbs     int // callbacks waiting or ready, on every CPU
	exp      []expWaiter
	// srs are the rcu_normal_wake_from_gp waiters (rcu_state.srs_next):
	// on a list of the grace-period kthread's, not on any CPU's callback
	// list, so they keep no CPU's tick (rcu_needs_cpu).
	srs []callback

	geo  rcuGeometry
	rand *sim.Rand  // idle CPUs' own wake-ups, drawn at scans
	nocb *nocbState // offloaded callbacks, when the kernel has them

	startEv, fqsEv, endEv, tickEv sim.Event
	fqsTimer                      sim.Event // the FQS timeout, which wakes the kthread
	tickCPU                       int       // skew_tick: the CPU whose tick tickEv is
	kthread                       kthreadCPU
	wakeEv                        []sim.Event
	Stats                         RCUStats
	// Trace, if set, is told of every grace period's end (for tests).
	Trace func(gp int64, start, end sim.Time)
}

// rcuCPU is one CPU's rcu_data: its view of the grace period and its
// callback list.
type rcuCPU struct {
	pending  bool // the grace period still waits for this CPU (its qsmask bit)
	noticed  bool // its tick has seen the grace period (note_gp_changes)
	qs       bool // it passed a quiescent state since noticing (!cpu_no_qs)
	eqs      bool // it was dyntick-idle since the first scan's snapshot
	readFrom sim.Time
	waiting  []callback // queued, oldest first; the first nreg are tied to a grace period
	nreg     int
	ready    []callback // their grace period has ended
	lazy     int        // lazy callbacks not yet tied to a grace period
	lazyFrom sim.Time   // when the oldest of them was queued
	bypass   int        // offloaded: the newest callbacks are on the bypass list
	looked   int64      // gpSeq+gpDone when its tick last looked (rdp->gp_seq)
	fastWake int64      // CONFIG_RCU_FAST_NO_HZ: the jiffy an idle CPU's tick fires next
	krc      kfreeBatch
}

type expWaiter struct {
	core  *cpu.Core
	at    sim.Time
	since sim.Time
}

func newRCU(w *World) *RCU {
	n := w.M.NumCPUs()
	r := &RCU{w: w, cpus: make([]rcuCPU, n), wakeEv: make([]sim.Event, n), geo: geometry(w.K.NrCPUIDs)}
	r.startEv.Action = sim.ActionFunc(r.startGP)
	r.fqsEv.Action = sim.ActionFunc(r.fqs)
	r.endEv.Action = sim.ActionFunc(r.endGP)
	r.fqsTimer.Action = sim.ActionFunc(func(now sim.Time) { r.kthreadWake(&r.fqsEv, now) })
	r.kthread.cpu = n - 1
	r.tickEv.Action = sim.ActionFunc(r.tick)
	if w.K.NOCB {
		r.nocb = newNOCB(r, n)
	}
	for i := range r.wakeEv {
		c := w.M.Cores()[i]
		r.wakeEv[i].Action = sim.ActionFunc(func(now sim.Time) { c.Wake(now, cpu.Next) })
		r.cpus[i].krc.monitor.Action = sim.ActionFunc(func(now sim.Time) { r.kfreeMonitor(i, now) })
	}
	return r
}

// GracePeriodsEnded returns the number of completed grace periods.
func (r *RCU) GracePeriodsEnded() int64 { return r.gpDone }

// InReader reports whether cpu is inside a read-side section, and since when.
func (r *RCU) InReader(cpu int) (bool, sim.Time) {
	return r.w.percpu[cpu].rcuDepth > 0, r.cpus[cpu].readFrom
}

func (r *RCU) wakeup() sim.Time        { return r.w.M.Profile().Wakeup }
func (r *RCU) jiffy() sim.Time         { return r.w.Jiffy }
func (r *RCU) k() *Kernel              { return &r.w.K }
func (r *RCU) atTick(j int64) sim.Time { return sim.Time(j) * r.w.Jiffy }

// idle reports whether a CPU is in an extended quiescent state: nothing to
// run, or its task blocked off-CPU.
func (r *RCU) idle(c *cpu.Core) bool {
	return !c.Running() || (c.Waiting() && c.BlockedState() == cpu.Sleep)
}

// request wakes the grace-period kthread to start a grace period
// (rcu_start_this_gp, then rcu_gp_kthread_wake).
func (r *RCU) request(now sim.Time) {
	switch {
	case r.active:
		r.needMore = true
	case !r.starting:
		r.starting = true
		r.kthreadWake(&r.startEv, now)
	}
}

// startGP is rcu_gp_init: every online CPU owes a quiescent state, and the
// kthread sleeps until the first force-quiescent-state scan:
//
//	j = READ_ONCE(jiffies_till_first_fqs);
//	...
//	WRITE_ONCE(rcu_state.jiffies_force_qs, jiffies + j);
//	...
//	(void)swait_event_idle_timeout_exclusive(rcu_state.gp_wq,
//			 rcu_gp_fqs_check_wake(&gf), j);
func (r *RCU) startGP(now sim.Time) {
	r.starting, r.active, r.needMore, r.urgent = false, true, false, false
	r.gpSeq++
	r.gpStart = now
	r.scans = 0
	r.npending = len(r.cpus)
	for i := range r.cpus {
		s := &r.cpus[i]
		s.pending, s.noticed, s.qs, s.eqs = true, false, false, false
	}
	init := now + r.initWalk()
	if k := r.k(); k.KthreadCPU && k.KthreadQS && r.npending > 1 {
		// The end of rcu_gp_init: rcu_qs(); rcu_report_qs_rdp() for the
		// kthread's own CPU.
		r.report(r.kthread.cpu, init, true)
	}
	r.sleepUntilFQS(init, r.k().JiffiesTillFirstFQS)
	r.ensureTick(now)
}

// sleepUntilFQS sleeps the kthread for j jiffies
// (swait_event_idle_timeout_exclusive, so schedule_timeout): the timeout
// fires as timeoutTick says and wakes the kthread. A timeout of 0 scans at
// once.
func (r *RCU) sleepUntilFQS(now sim.Time, j int) {
	if j == 0 {
		r.w.M.Schedule(&r.fqsEv, now)
		return
	}
	r.w.M.Schedule(&r.fqsTimer, r.timeoutTick(now, int64(j)))
}

// cancelFQS drops the kthread's FQS wait: the grace period ended first.
func (r *RCU) cancelFQS() {
	r.w.M.Unschedule(&r.fqsTimer)
	r.w.M.Unschedule(&r.fqsEv)
	r.kthread.drop(&r.fqsEv)
}

func (r *RCU) ensureTick(now sim.Time) {
	if r.tickEv.Scheduled() {
		return
	}
	if r.k().SkewTick {
		r.nextSkewedTick(now)
		return
	}
	r.w.M.Schedule(&r.tickEv, r.w.NextTick(now))
}

// fqs is one rcu_gp_fqs() scan. The first collects dyntick-idle snapshots
// (dyntick_save_progress_counter: a CPU idle right now is reported); later
// ones report a CPU that is idle or was idle since the snapshot
// (rcu_implicit_dynticks_qs). Once the grace period is older than
// jiffies_to_sched_qs, CPUs still holding out are asked urgently.
func (r *RCU) fqs(now sim.Time) {
	if !r.active || r.ending {
		return
	}
	first := r.scans == 0
	r.scans++
	r.Stats.FQSScans++
	now += r.scanWalk()
	for i, c := range r.w.M.Cores() {
		s := &r.cpus[i]
		if !s.pending {
			continue
		}
		switch {
		case first && r.idle(c) && r.awake():
			s.eqs = true // it goes back to idle after the wake-up
		case first && i == r.kthread.cpu && r.idle(c) && r.kthreadHoldsOut():
			s.eqs = true // it runs this scan, and goes idle after it
			r.Stats.Holdouts++
		case r.idle(c):
			if r.w.percpu[i].rcuDepth > 0 {
				panic(fmt.Sprintf("models: rcu: cpu %d is idle inside a read-side section", i))
			}
			r.report(i, now, true)
		case !first && s.eqs:
			// Idle since the snapshot: any reader it is in now began after.
			r.report(i, now, true)
		case first:
			s.eqs = false
		}
	}
	if !r.active {
		return
	}
	k := r.k()
	if now >= r.gpStart+sim.Time(k.JiffiesToSchedQS)*r.jiffy() {
		r.urgent = true
	}
	r.sleepUntilFQS(now, k.JiffiesTillNextFQS)
}

// kthreadHoldsOut reports whether the grace-period kthread's CPU, otherwise
// idle, is still owed at the first scan (Kernel.TimerPull): its timeout
// fired on another CPU, one whose tick runs, so no tick of its own reported
// the quiescent state it passed when the kthread slept, and it is running
// the scan. With no other CPU ticking, the kthread's CPU expires its own
// timers, and that tick reports it first. (With Kernel.KthreadQS it was
// reported at rcu_gp_init and owes nothing here.)
func (r *RCU) kthreadHoldsOut() bool {
	k := r.k()
	if !k.KthreadCPU || !k.TimerPull {
		return false
	}
	for i, c := range r.w.M.Cores() {
		s := &r.cpus[i]
		if i != r.kthread.cpu && (!r.idle(c) || r.nocb == nil && len(s.waiting)+len(s.ready) > 0) {
			return true
		}
	}
	return false
}

// report clears cpu's bit for the current grace period. The last report
// ends it: from a scan the kthread is already running; from a CPU's tick
// rcu_report_qs_rsp() wakes it to clean up.
func (r *RCU) report(cpu int, now sim.Time, byScan bool) {
	s := &r.cpus[cpu]
	if !r.active || r.ending || !s.pending {
		return
	}
	s.pending = false
	r.npending--
	if r.npending > 0 {
		return
	}
	if byScan {
		r.endGP(now)
		return
	}
	r.ending = true
	r.cancelFQS()
	r.kthreadWake(&r.endEv, now+r.climb())
}

// endGP is rcu_gp_cleanup: callbacks whose grace period this was become
// ready on their CPUs (each CPU sees the end at its next tick); waiters of
// rcu_normal_wake_from_gp are woken by the kthread itself; if more grace
// periods were asked for, the kthread starts the next one without sleeping.
func (r *RCU) endGP(now sim.Time) {
	now += r.cleanupWalk()
	r.active, r.ending = false, false
	r.gpDone = r.gpSeq
	r.cancelFQS()
	r.Stats.GracePeriods++
	r.Stats.GPLatency.Record(int64(now - r.gpStart))
	if r.Trace != nil {
		r.Trace(r.gpSeq, r.gpStart, now)
	}
	more := r.needMore || r.wakeFromGP(now)
	for i := range r.cpus {
		s := &r.cpus[i]
		n := 0
		for n < s.nreg && s.waiting[n].gp <= r.gpDone {
			cb := s.waiting[n]
			n++
			cb.gpStart, cb.gpEnd = r.gpStart, now
			s.ready = append(s.ready, cb)
		}
		// Kept at the front of its array, so that the callbacks queued
		// next reuse it rather than growing a new one.
		s.waiting, s.nreg = s.waiting[:copy(s.waiting, s.waiting[n:])], s.nreg-n
		more = more || s.nreg > 0
		if r.nocb != nil && len(s.ready) > 0 {
			r.nocbReady(i, now)
		}
	}
	// rcu_gp_cleanup() accelerates the callbacks of the CPU it runs on
	// (rcu_accelerate_cbs(rnp, rdp) on this_cpu_ptr(&rcu_data)); every
	// other CPU's wait for that CPU to notice the end.
	if r.nocb == nil && r.tie(r.kthread.cpu) {
		more = true
	}
	if more {
		r.startGP(now)
	}
	r.ensureTickIfCallbacks(now)
}

func (r *RCU) ensureTickIfCallbacks(now sim.Time) {
	if r.ncbs > 0 {
		r.ensureTick(now)
	}
}

// tick is the scheduling-clock interrupt on every CPU whose tick runs: a
// busy CPU, or an idle one with callbacks (rcu_needs_cpu keeps its tick).
func (r *RCU) tick(now sim.Time) {
	if r.k().SkewTick {
		r.skewedTick(now)
		return
	}
	for i := range r.cpus {
		r.cpuTick(i, now)
	}
	if r.active || r.starting || r.ncbs > 0 {
		r.w.M.Schedule(&r.tickEv, now+r.jiffy())
	}
}

// cpuTick follows rcu_sched_clock_irq: a tick taken from idle is a
// quiescent state (rcu_qs), then rcu_core notices a new grace period
// (setting cpu_no_qs, so that tick's own quiescent state does not count),
// reports a quiescent state seen since, ties new callbacks to a grace period
// and invokes those whose grace period has ended.
func (r *RCU) cpuTick(i int, now sim.Time) {
	s := &r.cpus[i]
	idle := r.idle(r.w.M.Cores()[i])
	if idle && (len(s.waiting)+len(s.ready) == 0 || r.nocb != nil || !r.fastNoHZTick(s, now)) {
		return // dyntick-idle: no tick at all
	}
	// note_gp_changes: a grace period began or ended since this CPU last
	// looked.
	changed := s.looked != r.gpSeq+r.gpDone
	s.looked = r.gpSeq + r.gpDone
	reported := false
	if r.active && s.pending {
		switch {
		case !s.noticed:
			s.noticed, s.qs = true, false
		case idle || s.qs:
			r.report(i, now, false)
			reported = true
		}
	}
	if r.nocb == nil {
		// rcu_core ties new callbacks to a grace period only when no
		// grace period runs ("No grace period and unregistered
		// callbacks?"), when the CPU notices a start or an end
		// (__note_gp_changes -> rcu_accelerate_cbs / rcu_advance_cbs), or
		// when it reports its quiescent state (rcu_report_qs_rdp: "This
		// GP can't end until cpu checks in"). A callback queued on a CPU
		// that has already reported waits for the CPU's first tick after
		// the end, and asks for the grace period then.
		if !r.active || changed || reported {
			r.register(i, now, false)
		}
		r.invokeReady(i, now)
	}
}

// contextSwitch is a quiescent state: the CPU's task blocks or finishes and
// the CPU goes idle.
func (r *RCU) contextSwitch(c *cpu.Core, now sim.Time) {
	r.kthreadYield(c.ID, now)
	s := &r.cpus[c.ID]
	if r.active && s.pending {
		s.qs = s.qs || s.noticed
		s.eqs = true
	}
	if r.k().FastNoHZ && r.nocb == nil {
		// CONFIG_RCU_FAST_NO_HZ applies only to CPUs that do not offload.
		r.fastNoHZIdle(c.ID, now)
	}
}

// rcuIdleGPDelay is RCU_IDLE_GP_DELAY: "Roughly one grace period."
const rcuIdleGPDelay = 4

// fastNoHZIdle is CONFIG_RCU_FAST_NO_HZ's rcu_needs_cpu() at idle entry:
// ready callbacks are invoked at once (invoke_rcu_core), and otherwise the
// tick stops until a multiple of RCU_IDLE_GP_DELAY jiffies:
//
//	dj = round_up(rcu_idle_gp_delay + jiffies,
//		       rcu_idle_gp_delay) - jiffies;
//
// (rcu_prepare_for_idle accelerates nothing then: rcu_needs_cpu has just set
// last_accelerate to jiffies.)
func (r *RCU) fastNoHZIdle(cpu int, now sim.Time) {
	s := &r.cpus[cpu]
	j := r.w.Jiffies(now)
	s.fastWake = (j + rcuIdleGPDelay + rcuIdleGPDelay - 1) / rcuIdleGPDelay * rcuIdleGPDelay
	n := 0
	for n < len(s.ready) && s.ready[n].gpEnd < now {
		r.invoke(s.ready[n], now)
		n++
	}
	s.ready = s.ready[:copy(s.ready, s.ready[n:])]
}

// fastNoHZTick reports whether an idle CPU with callbacks takes this tick:
// always without CONFIG_RCU_FAST_NO_HZ (rcu_needs_cpu keeps its tick), only
// at the jiffy it asked for with it, after which it sleeps another
// RCU_IDLE_GP_DELAY.
func (r *RCU) fastNoHZTick(s *rcuCPU, now sim.Time) bool {
	if !r.k().FastNoHZ {
		return true
	}
	j := r.w.Jiffies(now)
	if j < s.fastWake {
		return false
	}
	s.fastWake = j + rcuIdleGPDelay
	return true
}

// boundary is called between two packets or operations of a running CPU: a
// quiescent state for a CPU running user code between operations, for one
// in ksoftirqd (SoftirqQS), and for any once asked urgently (cond_resched).
func (r *RCU) boundary(c *cpu.Core, now sim.Time) {
	r.kthreadYield(c.ID, now)
	s := &r.cpus[c.ID]
	if !r.active || !s.pending || !s.noticed {
		return
	}
	if r.urgent || r.k().SoftirqQS || r.w.percpu[c.ID].kind == userCore {
		s.qs = true
	}
}

// readUnlock ends a read-side section on cpu; expedited waiters may go.
func (r *RCU) readUnlock(cpu int, now sim.Time) {
	if len(r.exp) == 0 {
		return
	}
	r.serveExpedited(now)
}

func (r *RCU) serveExpedited(now sim.Time) {
	keep := r.exp[:0]
	for _, e := range r.exp {
		if r.readersBefore(e.since) {
			keep = append(keep, e)
			continue
		}
		at := max(now, e.at) + r.wakeup()
		r.resume(e.core, KindExpedited, e.since, at)
	}
	r.exp = keep
}

// readersBefore reports whether some CPU is in a section begun before t.
func (r *RCU) readersBefore(t sim.Time) bool {
	for i := range r.w.percpu {
		if r.w.percpu[i].rcuDepth > 0 && r.cpus[i].readFrom <= t {
			return true
		}
	}
	return false
}

// anyBusy reports whether a CPU other than self is not idle: the expedited
// grace period IPIs only those.
func (r *RCU) anyBusy(self int) bool {
	for i, c := range r.w.M.Cores() {
		if i != self && !r.idle(c) {
			return true
		}
	}
	return false
}

// resume wakes a task blocked in an RCU call at at and records the call's
// latency.
func (r *RCU) resume(c *cpu.Core, kind CallKind, from, at sim.Time) {
	r.Stats.Calls[kind].Record(int64(at - from))
	r.w.M.Schedule(&r.wakeEv[c.ID], at)
}

// sleep blocks c off-CPU from time from, charging the wait to label. The
// context switch is a quiescent state for RCU.
func (w *World) sleep(c *cpu.Core, from sim.Time, label cpu.Label) {
	c.BlockFrom(from, label, cpu.Sleep)
	w.RCU.contextSwitch(c, from)
}

// mayBlock checks that c can sleep here, failing the run if not.
func (w *World) mayBlock(c *cpu.Core, what string) bool {
	st := &w.percpu[c.ID]
	switch {
	case st.spinHeld > 0:
		c.Fail(fmt.Sprintf("%s sleeps while holding a spinlock (scheduling while atomic); unlock first or use a mutex", what))
		return false
	case st.rcuDepth > 0:
		c.Fail(fmt.Sprintf("%s inside an RCU read-side section; a grace period would wait for this very reader (move it after rcu_read_unlock)", what))
		return false
	}
	return true
}
