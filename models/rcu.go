package models

import (
	"fmt"

	"contend/cpu"
	"contend/sim"
)

// RCUStats summarise RCU in the measured interval.
type RCUStats struct {
	GracePeriods uint64
	GPLatency    sim.Histogram // from the kthread starting a GP to its end, ps
	Pending      sim.TimeWeighted
	FreedBytes   int64
	Callbacks    uint64
}

type cbKind uint8

const (
	cbWake cbKind = iota // synchronize_rcu: wake the caller
	cbFree               // call_rcu: free in softirq at the next tick
	cbWork               // queue_rcu_work: free in a kworker after the tick
)

type callback struct {
	kind  cbKind
	gp    int64 // grace period that must end first
	core  *cpu.Core
	bytes int64
	ready sim.Time // when its grace period ended
}

// RCU is tree RCU reduced to what decides its timing: a grace-period kthread,
// quiescent states per CPU, force-quiescent-state scans on jiffies, and
// callbacks invoked at the tick after their grace period.
type RCU struct {
	w        *World
	active   bool
	starting bool
	gpSeq    int64 // grace periods started
	gpDone   int64 // grace periods ended
	gpStart  sim.Time
	urgent   bool
	pending  []bool // CPU still owes a quiescent state
	npending int
	noticed  []bool // CPU's tick has seen the GP
	idled    []bool // CPU was idle at some point since the GP started
	readFrom []sim.Time
	cbs      []callback
	ready    []callback
	exp      []expWaiter

	startEv, fqsEv, tickEv sim.Event
	wakeEv                 []sim.Event
	Stats                  RCUStats
	// Trace, if set, is told of every grace period's end (for tests).
	Trace func(gp int64, start, end sim.Time)
}

type expWaiter struct {
	core  *cpu.Core
	at    sim.Time
	since sim.Time
}

func newRCU(w *World) *RCU {
	n := len(w.M.Cores)
	r := &RCU{w: w, pending: make([]bool, n), noticed: make([]bool, n), idled: make([]bool, n),
		readFrom: make([]sim.Time, n), wakeEv: make([]sim.Event, n)}
	r.startEv.Action = sim.ActionFunc(r.startGP)
	r.fqsEv.Action = sim.ActionFunc(r.fqs)
	r.tickEv.Action = sim.ActionFunc(r.tick)
	for i := range r.wakeEv {
		c := w.M.Cores[i]
		r.wakeEv[i].Action = sim.ActionFunc(func(now sim.Time) { c.Wake(now, cpu.Next) })
	}
	return r
}

// GracePeriodsEnded returns the number of completed grace periods.
func (r *RCU) GracePeriodsEnded() int64 { return r.gpDone }

// InReader reports whether cpu is inside a read-side section, and since when.
func (r *RCU) InReader(cpu int) (bool, sim.Time) {
	return r.w.percpu[cpu].rcuDepth > 0, r.readFrom[cpu]
}

func (r *RCU) eng() *sim.Engine { return r.w.M.Eng }

// request makes sure a grace period will start: the kthread is woken if idle.
func (r *RCU) request(now sim.Time) {
	if r.active || r.starting {
		return
	}
	r.starting = true
	r.eng().Schedule(&r.startEv, now+r.w.M.Prof.Wakeup)
}

func (r *RCU) startGP(now sim.Time) {
	r.starting = false
	r.active = true
	r.gpSeq++
	r.gpStart = now
	r.urgent = false
	r.npending = len(r.pending)
	for i := range r.pending {
		r.pending[i], r.noticed[i], r.idled[i] = true, false, false
	}
	k := &r.w.K
	// schedule_timeout(j) expires at the tick where jiffies reaches now+j.
	r.eng().Schedule(&r.fqsEv, sim.Time(r.w.Jiffies(now)+int64(k.JiffiesTillFirstFQS))*r.w.Jiffy)
	r.ensureTick(now)
}

func (r *RCU) ensureTick(now sim.Time) {
	if !r.tickEv.Scheduled() {
		r.eng().Schedule(&r.tickEv, r.w.NextTick(now))
	}
}

// idle reports whether a CPU is in an extended quiescent state: nothing to
// run, or its task blocked off-CPU.
func (r *RCU) idle(c *cpu.Core) bool {
	return !c.Running() || (c.Waiting() && c.BlockedState() == cpu.Sleep)
}

// fqs is the force-quiescent-state scan: idle CPUs are reported on their
// behalf; CPUs still holding out are asked urgently once the GP is old.
func (r *RCU) fqs(now sim.Time) {
	if !r.active {
		return
	}
	for i, c := range r.w.M.Cores {
		if r.pending[i] && (r.idled[i] || r.idle(c)) {
			r.report(i, now)
		}
	}
	if !r.active {
		return
	}
	k := &r.w.K
	if now >= r.gpStart+sim.Time(k.JiffiesToSchedQS)*r.w.Jiffy {
		r.urgent = true
	}
	r.eng().Schedule(&r.fqsEv, now+sim.Time(k.JiffiesTillNextFQS)*r.w.Jiffy)
}

// tick is the scheduling-clock interrupt on every CPU: CPUs notice the GP,
// and ready callbacks are invoked in RCU softirq.
func (r *RCU) tick(now sim.Time) {
	if r.active {
		for i := range r.pending {
			if r.pending[i] {
				r.noticed[i] = true
			}
		}
	}
	// RCU softirq is raised by a tick that finds callbacks whose grace
	// period had already ended: a GP ending during this tick's own FQS
	// waits for the next one.
	keep := r.ready[:0]
	for _, cb := range r.ready {
		if cb.ready < now {
			r.invoke(cb, now)
		} else {
			keep = append(keep, cb)
		}
	}
	r.ready = keep
	if r.active || len(r.ready) > 0 {
		r.eng().Schedule(&r.tickEv, now+r.w.Jiffy)
	}
}

func (r *RCU) invoke(cb callback, now sim.Time) {
	r.Stats.Callbacks++
	switch cb.kind {
	case cbWake:
		r.eng().Schedule(&r.wakeEv[cb.core.ID], now+r.w.M.Prof.Wakeup)
	case cbFree, cbWork:
		at := now
		if cb.kind == cbWork {
			at += r.w.M.Prof.Wakeup
		}
		r.Stats.Pending.Add(at, -float64(cb.bytes))
		r.Stats.FreedBytes += cb.bytes
	}
}

// report records cpu's quiescent state for the current GP.
func (r *RCU) report(cpu int, now sim.Time) {
	if !r.active || !r.pending[cpu] {
		return
	}
	if r.w.percpu[cpu].rcuDepth > 0 {
		panic(fmt.Sprintf("models: rcu: quiescent state reported for cpu %d inside a read-side section", cpu))
	}
	r.pending[cpu] = false
	r.npending--
	if r.npending == 0 {
		r.endGP(now)
	}
}

func (r *RCU) endGP(now sim.Time) {
	r.active = false
	r.gpDone = r.gpSeq
	r.eng().Unschedule(&r.fqsEv)
	r.Stats.GracePeriods++
	r.Stats.GPLatency.Record(int64(now - r.gpStart))
	if r.Trace != nil {
		r.Trace(r.gpSeq, r.gpStart, now)
	}
	keep := r.cbs[:0]
	for _, cb := range r.cbs {
		if cb.gp <= r.gpDone {
			cb.ready = now
			r.ready = append(r.ready, cb)
		} else {
			keep = append(keep, cb)
		}
	}
	r.cbs = keep
	if len(r.ready) > 0 {
		r.ensureTick(now)
	}
	if len(r.cbs) > 0 {
		// The kthread is awake: the next GP starts at once.
		r.starting = true
		r.eng().Schedule(&r.startEv, now)
	}
}

// contextSwitch is a quiescent state: the CPU's task blocks or finishes.
func (r *RCU) contextSwitch(c *cpu.Core, now sim.Time) {
	if r.active {
		r.idled[c.ID] = true
		r.report(c.ID, now)
	}
}

// boundary is called between two packets or operations of a running CPU.
func (r *RCU) boundary(c *cpu.Core, now sim.Time) {
	id := c.ID
	if !r.active || !r.pending[id] {
		return
	}
	if r.urgent || (r.w.K.SoftirqQS && r.noticed[id]) || r.w.percpu[id].kind == userCore {
		r.report(id, now)
	}
}

func (r *RCU) enqueue(cb callback, now sim.Time) {
	cb.gp = r.gpSeq + 1
	r.cbs = append(r.cbs, cb)
	r.request(now)
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
		at := max(now, e.at)
		r.eng().Schedule(&r.wakeEv[e.core.ID], at+r.w.M.Prof.Wakeup)
	}
	r.exp = keep
}

// readersBefore reports whether some CPU is in a section begun before t.
func (r *RCU) readersBefore(t sim.Time) bool {
	for i := range r.w.percpu {
		if r.w.percpu[i].rcuDepth > 0 && r.readFrom[i] <= t {
			return true
		}
	}
	return false
}

// RCUReadLock is rcu_read_lock(): free, but not quiescent.
type RCUReadLock struct{ W *World }

// Exec implements cpu.Step.
func (s *RCUReadLock) Exec(c *cpu.Core) (cpu.Outcome, sim.Time) {
	w := s.W
	st := &w.percpu[c.ID]
	if st.rcuDepth == 0 {
		w.RCU.readFrom[c.ID] = c.Now()
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
	if w.K.Expedited {
		w.RCU.exp = append(w.RCU.exp, expWaiter{core: c, at: now + w.K.IPI, since: now})
		w.RCU.serveExpedited(now)
		return cpu.Block, 0
	}
	w.RCU.enqueue(callback{kind: cbWake, core: c}, now)
	return cpu.Block, 0
}

// CallRCU is call_rcu (or kfree_rcu): the object is freed after a later grace
// period, in RCU softirq. With Work it is queue_rcu_work: a kworker frees it.
type CallRCU struct {
	W     *World
	Bytes int64
	Work  bool
}

// Exec implements cpu.Step.
func (s *CallRCU) Exec(c *cpu.Core) (cpu.Outcome, sim.Time) {
	w := s.W
	now := c.Now()
	kind := cbFree
	if s.Work {
		kind = cbWork
	}
	w.RCU.Stats.Pending.Add(now, float64(s.Bytes))
	w.RCU.enqueue(callback{kind: kind, core: c, bytes: s.Bytes}, now)
	return cpu.Next, now
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
