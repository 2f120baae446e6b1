package models

// The percpu_rw_semaphore, kernel/locking/percpu-rwsem.c (Linux 5.8 on) and
// kernel/rcu/sync.c. While no writer is about (rcu_sync_is_idle),
// percpu_down_read() and percpu_up_read() are this_cpu_inc and
// this_cpu_dec of the CPU's read_count: no atomic, no barrier, no shared
// line. percpu_down_write() calls rcu_sync_enter(), whose first writer
// waits for a grace period (synchronize_rcu) so that every reader takes the
// slow path from then on; sets sem->block with an atomic_xchg (a writer
// that finds it set sleeps on the wait queue); and sleeps until the
// readers' counts sum to zero (rcuwait_wait_event(readers_active_check)).
// A reader on the slow path (__percpu_down_read) increments its count,
// runs smp_mb() and reads sem->block: if set, it takes its count back,
// wakes the writer and sleeps on the wait queue; percpu_up_read() on the
// slow path runs smp_mb(), decrements and wakes the writer. percpu_up_write
// clears block, wakes the waiters (the readers queued before the first
// writer, each granted its read lock, or that writer, handed block), and
// calls rcu_sync_exit(): the last writer out queues an RCU callback that,
// a grace period later, lets readers back on the fast path unless a writer
// came meanwhile.
//
// Phases of a reader: outside -> (slow path: count stored) pcpuRwsemFence
// -> (barrier) pcpuRwsemCheck -> held, or asleep on the wait queue. Of the
// rcu_sync state: idle -> (first writer) entering -> (grace period) passed
// -> (last writer out) exiting -> (grace period) idle.

import (
	"fmt"

	"contend/cacheline"
	"contend/cpu"
	"contend/sim"
)

type rcuSyncState uint8

const (
	rssIdle     rcuSyncState = iota // GP_IDLE: readers on the fast path
	rssEntering                     // GP_ENTER: a writer waits for the grace period
	rssPassed                       // GP_PASSED: every reader takes the slow path
	rssExiting                      // GP_EXIT: the last writer left; idle after a grace period
)

type pcpuRwsemPhase uint8

const (
	pcpuRwsemOutside pcpuRwsemPhase = iota
	pcpuRwsemFence                  // a slow-path reader's count stored: smp_mb() next
	pcpuRwsemCheck                  // the barrier done: read sem->block
	pcpuRwsemBlock                  // a writer's atomic_xchg of block issued
)

// PercpuRWSem is a percpu_rw_semaphore: each CPU's read_count on a per-cpu
// line, block, the writer's rcuwait and the rcu_sync state on a shared one.
type PercpuRWSem struct {
	w      *World
	Name   string
	Shared *cacheline.Line
	PerCPU *cacheline.Line
	Label  cpu.Label

	state    rcuSyncState
	gpCount  int // writers between rcu_sync_enter and rcu_sync_exit
	block    bool
	writer   int     // the CPU holding block, or -1
	count    []int64 // read_count by CPU
	readers  []int   // read holds by CPU
	waiters  []rwsemWaiter
	draining *cpu.Core // the writer waiting for the readers to leave
	phase    []pcpuRwsemPhase
	held     []int
	Stats    PercpuRWSemStats
}

// PercpuRWSemStats count what a percpu_rw_semaphore did in the measured
// interval.
type PercpuRWSemStats struct {
	FastReads, SlowReads uint64
	Writes               uint64
	Slept                uint64
}

// NewPercpuRWSem adds a percpu_rw_semaphore on shared and perCPU lines.
func (w *World) NewPercpuRWSem(name string, shared, perCPU *cacheline.Line, label string) *PercpuRWSem {
	n := w.M.NumCPUs()
	s := &PercpuRWSem{w: w, Name: name, Shared: shared, PerCPU: perCPU, Label: w.M.Label(label), writer: -1,
		count: make([]int64, n), readers: make([]int, n), phase: make([]pcpuRwsemPhase, n)}
	w.locks = append(w.locks, s)
	return s
}

func (s *PercpuRWSem) name() string { return s.Name }

func (s *PercpuRWSem) holders() []int {
	s.held = s.held[:0]
	if s.writer >= 0 {
		s.held = append(s.held, s.writer)
	}
	for c, n := range s.readers {
		if n > 0 {
			s.held = append(s.held, c)
		}
	}
	return s.held
}

func (s *PercpuRWSem) sum() int64 {
	var n int64
	for _, d := range s.count {
		n += d
	}
	return n
}

func (s *PercpuRWSem) hold(c *cpu.Core) {
	s.readers[c.ID]++
	st := &s.w.percpu[c.ID]
	st.mutexHeld++
	st.waitFor = nil
}

// sleepOn puts c on the wait queue from done.
func (s *PercpuRWSem) sleepOn(c *cpu.Core, write bool, done sim.Time) (cpu.Outcome, sim.Time) {
	if !s.w.wait(c, s) {
		return cpu.Block, 0
	}
	s.waiters = append(s.waiters, rwsemWaiter{c: c, write: write})
	s.Stats.Slept++
	s.w.sleep(c, done, s.Label)
	return cpu.Block, 0
}

// PercpuDownRead is percpu_down_read.
type PercpuDownRead struct{ S *PercpuRWSem }

// Exec implements cpu.Step.
func (st *PercpuDownRead) Exec(c *cpu.Core) (cpu.Outcome, sim.Time) {
	s, id := st.S, c.ID
	switch s.phase[id] {
	case pcpuRwsemFence:
		s.phase[id] = pcpuRwsemCheck
		return cpu.Again, c.Fence(s.Label)
	case pcpuRwsemCheck:
		s.phase[id] = pcpuRwsemOutside
		done := c.Access(s.Label, s.Shared, cacheline.Load)
		if !s.block {
			s.hold(c)
			return cpu.Next, done
		}
		s.count[id]-- // __percpu_down_read_trylock failed: take it back, wake the writer
		s.wakeDrained(done)
		return s.sleepOn(c, false, done)
	}
	if s.writer == id {
		c.Fail(fmt.Sprintf("deadlock: percpu_down_read(%s) while this task holds it for writing", s.Name))
		return cpu.Block, 0
	}
	if !s.w.mayBlock(c, "percpu_down_read("+s.Name+")") {
		return cpu.Block, 0
	}
	s.count[id]++
	done := c.Access(s.Label, s.PerCPU, cacheline.Store)
	if s.state == rssIdle {
		s.Stats.FastReads++
		s.hold(c)
		return cpu.Next, done
	}
	s.Stats.SlowReads++
	s.phase[id] = pcpuRwsemFence
	return cpu.Again, done
}

// wakeDrained wakes the writer waiting for the readers once none is left.
func (s *PercpuRWSem) wakeDrained(done sim.Time) {
	if s.draining != nil && s.sum() == 0 {
		c := s.draining
		s.draining = nil
		s.w.percpu[c.ID].waitFor = nil
		c.Wake(done+s.w.M.Profile().Wakeup, cpu.Next)
	}
}

// PercpuUpRead is percpu_up_read.
type PercpuUpRead struct{ S *PercpuRWSem }

// Exec implements cpu.Step.
func (st *PercpuUpRead) Exec(c *cpu.Core) (cpu.Outcome, sim.Time) {
	s, id := st.S, c.ID
	if s.readers[id] == 0 && s.phase[id] == pcpuRwsemOutside {
		c.Fail(fmt.Sprintf("percpu_up_read(%s) by a task that does not hold it for reading; pair it with percpu_down_read", s.Name))
		return cpu.Block, 0
	}
	if s.state != rssIdle && s.phase[id] == pcpuRwsemOutside {
		s.phase[id] = pcpuRwsemFence
		return cpu.Again, c.Fence(s.Label) // smp_mb() before the decrement
	}
	s.phase[id] = pcpuRwsemOutside
	s.readers[id]--
	s.count[id]--
	s.w.percpu[id].mutexHeld--
	done := c.Access(s.Label, s.PerCPU, cacheline.Store)
	s.wakeDrained(done)
	return cpu.Next, done
}

// PercpuRCUSyncEnter is rcu_sync_enter: the first writer (rcu_sync idle)
// goes on to the synchronize_rcu that follows it; any other skips it.
type PercpuRCUSyncEnter struct{ S *PercpuRWSem }

// Exec implements cpu.Step.
func (st *PercpuRCUSyncEnter) Exec(c *cpu.Core) (cpu.Outcome, sim.Time) {
	s := st.S
	if s.writer == c.ID || s.readers[c.ID] > 0 {
		c.Fail(fmt.Sprintf("deadlock: percpu_down_write(%s) while this task already holds it", s.Name))
		return cpu.Block, 0
	}
	s.gpCount++
	if s.state == rssIdle || s.state == rssEntering {
		s.state = rssEntering // a writer that comes while the first waits waits as long
		return cpu.Next, c.Now()
	}
	s.state = rssPassed // GP_EXIT or GP_PASSED: readers are still on the slow path
	c.Skip(1)
	return cpu.Next, c.Now()
}

// PercpuDownWrite is the rest of percpu_down_write: block taken by
// atomic_xchg, then the wait for the readers.
type PercpuDownWrite struct{ S *PercpuRWSem }

// Exec implements cpu.Step.
func (st *PercpuDownWrite) Exec(c *cpu.Core) (cpu.Outcome, sim.Time) {
	s, id := st.S, c.ID
	if s.phase[id] == pcpuRwsemDrainWoken {
		s.phase[id] = pcpuRwsemOutside
		return s.drain(c)
	}
	if s.phase[id] == pcpuRwsemOutside {
		if s.state == rssEntering {
			s.state = rssPassed
		}
		s.phase[id] = pcpuRwsemBlock
		return cpu.Again, c.Access(s.Label, s.Shared, cacheline.RMW)
	}
	s.phase[id] = pcpuRwsemOutside
	if s.block {
		return s.sleepOn(c, true, c.Now())
	}
	s.block, s.writer = true, id
	return s.drain(c)
}

// drain is rcuwait_wait_event(readers_active_check): the writer, holding
// block, sleeps until the readers' counts sum to zero.
func (s *PercpuRWSem) drain(c *cpu.Core) (cpu.Outcome, sim.Time) {
	s.Stats.Writes++
	st := &s.w.percpu[c.ID]
	st.mutexHeld++
	if s.sum() == 0 {
		st.waitFor = nil
		return cpu.Next, c.Now()
	}
	// It waits for the readers, not for block, which it holds: no
	// deadlock check through the lock's holders, itself among them.
	st.waitFor, st.waitSince = s, c.Now()
	s.draining = c
	s.w.sleep(c, c.Now(), s.Label)
	return cpu.Block, 0
}

// PercpuUpWrite is percpu_up_write.
type PercpuUpWrite struct{ S *PercpuRWSem }

// Exec implements cpu.Step.
func (st *PercpuUpWrite) Exec(c *cpu.Core) (cpu.Outcome, sim.Time) {
	s, id := st.S, c.ID
	if s.writer != id {
		c.Fail(fmt.Sprintf("percpu_up_write(%s) by a task that does not hold it for writing; pair it with percpu_down_write", s.Name))
		return cpu.Block, 0
	}
	done := c.Access(s.Label, s.Shared, cacheline.Store) // atomic_set_release(&sem->block, 0)
	s.block, s.writer = false, -1
	s.w.percpu[id].mutexHeld--
	at := done + s.w.M.Profile().Wakeup
	for len(s.waiters) > 0 {
		wt := s.waiters[0]
		if wt.write {
			s.waiters = s.waiters[1:]
			s.block, s.writer = true, wt.c.ID
			s.w.percpu[wt.c.ID].waitFor = nil
			// The woken writer waits for the readers itself: it runs
			// drain again when it wakes.
			wt.c.Wake(at, cpu.Again)
			s.phase[wt.c.ID] = pcpuRwsemDrainWoken
			break
		}
		s.waiters = s.waiters[1:]
		s.count[wt.c.ID]++
		s.hold(wt.c)
		wt.c.Wake(at, cpu.Next)
	}
	if s.gpCount--; s.gpCount == 0 {
		s.state = rssExiting
		s.w.RCU.enqueue(callback{kind: cbFree, call: KindCallRCU, core: c, steps: []cpu.Step{&rcuSyncIdle{s: s}}}, c.Now(), false)
	}
	return cpu.Next, done
}

// pcpuRwsemDrainWoken marks a writer handed block by percpu_up_write: its
// PercpuDownWrite runs again to wait for the readers.
const pcpuRwsemDrainWoken = pcpuRwsemBlock + 1

// rcuSyncIdle is rcu_sync_func after the last writer's grace period: back
// to the fast path unless a writer came meanwhile.
type rcuSyncIdle struct{ s *PercpuRWSem }

// Exec implements cpu.Step.
func (st *rcuSyncIdle) Exec(c *cpu.Core) (cpu.Outcome, sim.Time) {
	if st.s.gpCount == 0 && st.s.state == rssExiting {
		st.s.state = rssIdle
	}
	return cpu.Next, c.Now()
}
