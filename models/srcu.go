package models

// Sleepable RCU, kernel/rcu/srcutree.c and include/linux/srcu.h.
// srcu_read_lock() (__srcu_read_lock) reads the srcu_struct's index
// (srcu_idx, on the srcu_struct's line, which only a grace period writes),
// increments this CPU's srcu_lock_count[idx] (this_cpu_inc on the per-cpu
// srcu_data) and runs smp_mb(); srcu_read_unlock() runs smp_mb() and
// increments srcu_unlock_count[idx]. A reader may sleep. A grace period
// (srcu_advance_state, run from the srcu_struct's work item) waits until
// the readers of the inactive index are gone (try_check_zero), flips the
// index (srcu_flip), and waits until the readers of the old one are gone:
// every reader that began before the grace period has left. A check that
// finds readers tries again SRCU_INTERVAL (one jiffy) later. The work item
// runs one scheduler wake-up after the grace period is asked for; callers
// that ask while one runs wait for the next. synchronize_srcu() sleeps
// until its grace period ends and wakes one wake-up later; call_srcu()
// returns at once, its callback invoked at the end.
//
// Not modelled: expedited grace periods (synchronize_srcu_expedited, and
// the expediting synchronize_srcu does when srcu_might_be_idle), the
// SRCU_MAX_NODELAY_PHASE checks without delay, the srcu_node tree's
// funnel locking.
//
// Phases of a grace period: srcuIdle -> (work item) srcuDrainInactive ->
// (zero; flip) srcuDrainOld -> (zero) srcuIdle, or the next grace period.

import (
	"fmt"

	"contend/cacheline"
	"contend/cpu"
	"contend/sim"
)

type srcuPhase uint8

const (
	srcuIdle          srcuPhase = iota
	srcuDrainInactive           // waiting for the readers of the index not in use
	srcuDrainOld                // flipped: waiting for the readers of the old index
)

// SRCU is an srcu_struct: its index on a shared line, its readers'
// counters on a per-cpu line.
type SRCU struct {
	w      *World
	Name   string
	Shared *cacheline.Line // srcu_struct: srcu_idx, read by every srcu_read_lock
	PerCPU *cacheline.Line // srcu_data: srcu_lock_count, srcu_unlock_count

	idx     int
	active  [2]int  // readers inside, by the index they read
	held    [][]int // each CPU's read sections, innermost last: the index each read
	phase   srcuPhase
	gpStart sim.Time
	current []*cpu.Core // synchronize_srcu callers of the running grace period (nil: a call_srcu)
	next    []*cpu.Core // callers for the grace period after it
	ev      sim.Event
	// lockPhase is where each CPU is in srcu_read_lock: 0 the index's
	// load next, 1 the counter's increment (its address is the index's),
	// 2 the barrier.
	lockPhase []uint8
	fenced    []bool // srcu_read_unlock's barrier done: the counter next
	Stats     SRCUStats
}

// SRCUStats count an srcu_struct's grace periods in the measured interval.
type SRCUStats struct {
	GracePeriods uint64
	Callbacks    uint64 // call_srcu callbacks invoked
	Checks       uint64 // try_check_zero calls
	GPTime       sim.Time
}

// NewSRCU adds an srcu_struct whose index lives on shared, and its per-cpu
// counters on perCPU.
func (w *World) NewSRCU(name string, shared, perCPU *cacheline.Line) *SRCU {
	s := &SRCU{w: w, Name: name, Shared: shared, PerCPU: perCPU, held: make([][]int, w.M.NumCPUs()),
		lockPhase: make([]uint8, w.M.NumCPUs()), fenced: make([]bool, w.M.NumCPUs())}
	s.ev.Action = sim.ActionFunc(s.check)
	w.srcus = append(w.srcus, s)
	return s
}

// request asks for a grace period for c (nil: a callback) at now.
func (s *SRCU) request(c *cpu.Core, now sim.Time) {
	s.next = append(s.next, c)
	if s.phase == srcuIdle {
		s.start(now)
	}
}

// start begins a grace period for the callers waiting: its work item runs
// one wake-up later.
func (s *SRCU) start(now sim.Time) {
	s.current, s.next = s.next, s.current[:0]
	s.phase, s.gpStart = srcuDrainInactive, now
	s.w.M.Schedule(&s.ev, now+s.w.M.Profile().Wakeup)
}

// check is try_check_zero on the index the phase waits for, and what
// follows it.
func (s *SRCU) check(at sim.Time) {
	for {
		s.Stats.Checks++
		// Before the flip idx^1 is the index not in use; after it, the old one.
		if s.active[s.idx^1] > 0 {
			s.w.M.Schedule(&s.ev, at+s.w.Jiffy) // SRCU_INTERVAL
			return
		}
		if s.phase == srcuDrainInactive {
			s.idx ^= 1 // srcu_flip: new readers take the other index; wait for the old one's
			s.phase = srcuDrainOld
			continue
		}
		break
	}
	s.phase = srcuIdle
	s.Stats.GracePeriods++
	s.Stats.GPTime += at - s.gpStart
	wake := at + s.w.M.Profile().Wakeup
	for _, c := range s.current {
		if c == nil {
			s.Stats.Callbacks++
			continue
		}
		s.w.percpu[c.ID].waitFor = nil
		c.Wake(wake, cpu.Next)
	}
	s.current = s.current[:0]
	if len(s.next) > 0 {
		s.start(at)
	}
}

// SRCUReadLock is srcu_read_lock.
type SRCUReadLock struct {
	S     *SRCU
	Label cpu.Label
}

// Exec implements cpu.Step.
func (st *SRCUReadLock) Exec(c *cpu.Core) (cpu.Outcome, sim.Time) {
	s, id := st.S, c.ID
	switch s.lockPhase[id] {
	case 1: // this_cpu_inc(ssp->sda->srcu_lock_count[idx])
		s.lockPhase[id] = 2
		return cpu.Again, c.Access(st.Label, s.PerCPU, cacheline.Store)
	case 2:
		s.lockPhase[id] = 0
		return cpu.Next, c.Fence(st.Label) // smp_mb()
	}
	idx := s.idx // READ_ONCE(ssp->srcu_idx) & 0x1
	s.active[idx]++
	s.held[id] = append(s.held[id], idx)
	s.lockPhase[id] = 1
	return cpu.Again, c.Access(st.Label, s.Shared, cacheline.Load)
}

// SRCUReadUnlock is srcu_read_unlock.
type SRCUReadUnlock struct {
	S     *SRCU
	Label cpu.Label
}

// Exec implements cpu.Step.
func (st *SRCUReadUnlock) Exec(c *cpu.Core) (cpu.Outcome, sim.Time) {
	s, id := st.S, c.ID
	n := len(s.held[id])
	if n == 0 {
		c.Fail(fmt.Sprintf("srcu_read_unlock(%s) outside a read section of it; pair it with srcu_read_lock", s.Name))
		return cpu.Block, 0
	}
	if !s.fenced[id] {
		s.fenced[id] = true
		return cpu.Again, c.Fence(st.Label) // smp_mb()
	}
	s.fenced[id] = false
	s.active[s.held[id][n-1]]--
	s.held[id] = s.held[id][:n-1]
	return cpu.Next, c.Access(st.Label, s.PerCPU, cacheline.Store)
}

// SynchronizeSRCU is synchronize_srcu: the caller sleeps until a grace
// period of the srcu_struct has passed.
type SynchronizeSRCU struct {
	S     *SRCU
	Label cpu.Label
}

// Exec implements cpu.Step.
func (st *SynchronizeSRCU) Exec(c *cpu.Core) (cpu.Outcome, sim.Time) {
	s := st.S
	if len(s.held[c.ID]) > 0 {
		c.Fail(fmt.Sprintf("deadlock: synchronize_srcu(%s) inside a read section of it; the grace period would wait for this very reader", s.Name))
		return cpu.Block, 0
	}
	if !s.w.mayBlock(c, "synchronize_srcu("+s.Name+")") {
		return cpu.Block, 0
	}
	now := c.Now()
	s.request(c, now)
	s.w.sleep(c, now, st.Label)
	return cpu.Block, 0
}

// CallSRCU is call_srcu: a callback invoked after a grace period; the
// caller goes on at once.
type CallSRCU struct{ S *SRCU }

// Exec implements cpu.Step.
func (st *CallSRCU) Exec(c *cpu.Core) (cpu.Outcome, sim.Time) {
	st.S.request(nil, c.Now())
	return cpu.Next, c.Now()
}

// TraceReadLock is rcu_read_lock_trace (kernel/rcu/tasks.h, include/linux/
// rcupdate_trace.h): the task's trc_reader_nesting incremented, a load and
// a store of the task's own line, and a compiler barrier; a reader may
// sleep. Unlock decrements it (rcu_read_unlock_trace).
type TraceReadLock struct {
	W      *World
	Line   *cacheline.Line // the tasks' own lines (per cpu)
	Unlock bool
	Label  cpu.Label
}

// Exec implements cpu.Step.
func (st *TraceReadLock) Exec(c *cpu.Core) (cpu.Outcome, sim.Time) {
	n := &st.W.percpu[c.ID].traceDepth
	if st.Unlock {
		if *n == 0 {
			c.Fail("rcu_read_unlock_trace outside a Tasks Trace read section; pair it with rcu_read_lock_trace")
			return cpu.Block, 0
		}
		*n--
	} else {
		*n++
	}
	return cpu.Next, c.Access(st.Label, st.Line, cacheline.LoadOwn)
}
