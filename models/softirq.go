package models

import (
	"fmt"

	"contend/cpu"
	"contend/sim"
)

// softirqQueue is one CPU's RCU callbacks that are ready and carry steps:
// their steps back to back, and the next one to run.
type softirqQueue struct {
	steps []cpu.Step
	next  int
}

// raise queues a ready callback's steps on its own CPU: RCU_SOFTIRQ runs a
// callback on the CPU that queued it (rcu_do_batch walks that CPU's list).
func (w *World) raise(cpu int, steps []cpu.Step) {
	q := &w.percpu[cpu].softirq
	q.steps = append(q.steps, steps...)
}

// RCUSoftirq runs the steps of the CPU's ready callbacks, all of them, before
// the packet's own steps. In 2.6.3x RCU_SOFTIRQ is raised by the tick that
// finds callbacks ready; it runs at the next local_bh_enable() or irq_exit()
// with bottom halves enabled, which the send path passes several times per
// frame (rcu_read_unlock_bh in dev_queue_xmit, spin_unlock_bh): so by the
// next frame. rcu_do_batch invokes at most blimit (10) callbacks and raises
// the softirq again, and __do_softirq restarts up to MAX_SOFTIRQ_RESTART
// (10) times: a hundred per local_bh_enable. The whole ready batch runs at
// once here; in the e5540-udp scenario a CPU's share of a grace period is
// about 1300 callbacks, and running them a hundred per packet instead moved
// its three points by less than 1%.
//
// A callback's steps are computes, accesses and jiffy gates (the checker
// admits no others): none blocks, so the step runs them one per event and
// returns Again until the queue is empty. A gate skips the callback's
// steps it guards, not the packet's.
type RCUSoftirq struct{ W *World }

// Exec implements cpu.Step.
func (s *RCUSoftirq) Exec(c *cpu.Core) (cpu.Outcome, sim.Time) {
	q := &s.W.percpu[c.ID].softirq
	if q.next == len(q.steps) {
		q.steps, q.next = q.steps[:0], 0
		return cpu.Next, c.Now()
	}
	out, at, skip := c.ExecNested(q.steps[q.next])
	if out == cpu.Block {
		panic(fmt.Sprintf("models: an RCU callback's step %T blocked; callbacks run in softirq and may not", q.steps[q.next]))
	}
	if out == cpu.Next {
		q.next += 1 + skip
	}
	return cpu.Again, at
}
