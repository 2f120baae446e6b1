package models

import (
	"math"

	"contend/sim"
)

// Callback offloading (CONFIG_RCU_NOCB_CPU with every CPU offloaded,
// kernel/rcu/tree_nocb.h). No tick handles an offloaded CPU's callbacks:
//
//   - call_rcu on a CPU whose list was empty wakes its group's rcuog
//     kthread (__call_rcu_nocb_wake -> wake_nocb_gp), which ties the new
//     callbacks to a grace period and asks for it at once (nocb_gp_wait ->
//     rcu_accelerate_cbs -> rcu_start_this_gp), one wake-up after the call;
//   - past nocb_nobypass_lim_per_jiffy calls in a jiffy a CPU's callbacks go
//     to its bypass list (rcu_nocb_try_bypass), which rcuog flushes once it
//     is a jiffy old, from the deferred wake-up timer of 2 jiffies
//     (wake_nocb_gp_defer, RCU_NOCB_WAKE_BYPASS);
//   - at the end of the grace period rcu_gp_cleanup wakes the rcuog
//     kthreads waiting for it (rcu_nocb_gp_cleanup), each wakes the rcuop
//     kthread of every CPU with callbacks now ready, and rcuop invokes them
//     all (nocb_cb_wait -> rcu_do_batch, which does not stop at blimit in a
//     kthread): two wake-ups after the end;
//   - an idle offloaded CPU keeps no tick for its callbacks (rcu_needs_cpu
//     is false for it), so it is reported by the FQS scans alone.
type nocbState struct {
	stride int         // CPUs per rcuog group (rcu_nocb_gp_stride)
	gpWake []sim.Event // per group: the rcuog kthread woken to take new callbacks
	cbWake []sim.Event // per CPU: its rcuop kthread woken to invoke ready ones
	// bypass: per CPU, calls this jiffy and the jiffy they were counted in.
	calls     []int
	callJiffy []int64
	flush     []sim.Event // per group: the deferred wake-up that flushes bypass lists
}

// nocbNoBypassLimPerJiffy is nocb_nobypass_lim_per_jiffy: 16 * 1000 / HZ.
func (r *RCU) nocbNoBypassLimPerJiffy() int { return 16 * 1000 / r.k().HZ }

func newNOCB(r *RCU, n int) *nocbState {
	// rcu_organize_nocb_kthreads(): ls = nr_cpu_ids / int_sqrt(nr_cpu_ids).
	stride := max(1, n/int(math.Sqrt(float64(n))))
	groups := (n + stride - 1) / stride
	st := &nocbState{stride: stride, gpWake: make([]sim.Event, groups), cbWake: make([]sim.Event, n),
		calls: make([]int, n), callJiffy: make([]int64, n), flush: make([]sim.Event, groups)}
	for g := range groups {
		st.gpWake[g].Action = sim.ActionFunc(func(now sim.Time) { r.nocbGP(g, now, false) })
		st.flush[g].Action = sim.ActionFunc(func(now sim.Time) { r.nocbGP(g, now, true) })
	}
	for i := range n {
		st.cbWake[i].Action = sim.ActionFunc(func(now sim.Time) { r.nocbCB(i, now) })
	}
	return st
}

// nocbEnqueue is __call_rcu_nocb_wake for a callback just queued on cpu.
func (r *RCU) nocbEnqueue(cpu int, lazy bool, now sim.Time) {
	st := r.nocb
	g := cpu / st.stride
	// rcu_nocb_try_bypass counts calls per jiffy; a new jiffy takes the
	// limit off the count, and a count still at or past it stays there:
	//
	//	c = rdp->nocb_nobypass_count - nocb_nobypass_lim_per_jiffy;
	//	if (ULONG_CMP_LT(c, nocb_nobypass_lim_per_jiffy))
	//		c = 0;
	//	else if (c > nocb_nobypass_lim_per_jiffy)
	//		c = nocb_nobypass_lim_per_jiffy;
	lim := r.nocbNoBypassLimPerJiffy()
	if j := r.w.Jiffies(now); st.callJiffy[cpu] != j {
		c := st.calls[cpu] - lim
		switch {
		case c < lim:
			c = 0
		case c > lim:
			c = lim
		}
		st.callJiffy[cpu], st.calls[cpu] = j, c
	} else {
		st.calls[cpu]++
	}
	if lazy {
		// wake_nocb_gp_defer(RCU_NOCB_WAKE_LAZY): rcuog looks again once
		// jiffies_lazy_flush has passed.
		if !st.flush[g].Scheduled() {
			r.w.M.Schedule(&st.flush[g], r.timeoutTick(now, int64(r.k().LazyFlush/r.jiffy()))+r.wakeup())
		}
		return
	}
	s := &r.cpus[cpu]
	if st.calls[cpu] >= r.nocbNoBypassLimPerJiffy() {
		s.bypass++
		if !st.flush[g].Scheduled() {
			r.w.M.Schedule(&st.flush[g], r.timeoutTick(now, 2)+r.wakeup())
		}
		return
	}
	// A call below the limit flushes the bypass list into the callback
	// list first (rcu_nocb_flush_bypass), so the bypass stays the tail.
	s.bypass = 0
	if !st.gpWake[g].Scheduled() {
		r.w.M.Schedule(&st.gpWake[g], now+r.wakeup())
	}
}

// nocbGP is rcuog's nocb_gp_wait pass over its group: every CPU's new
// callbacks are tied to the next grace period, which it asks for; from the
// deferred wake-up (flush) the bypass lists go too.
func (r *RCU) nocbGP(g int, now sim.Time, flush bool) {
	st := r.nocb
	lazyFrom := sim.Time(-1)
	for i := g * st.stride; i < min((g+1)*st.stride, len(r.cpus)); i++ {
		if flush {
			r.cpus[i].bypass = 0
		}
		r.register(i, now, false)
		if s := &r.cpus[i]; s.lazy > 0 && (lazyFrom < 0 || s.lazyFrom < lazyFrom) {
			lazyFrom = s.lazyFrom
		}
	}
	if lazyFrom >= 0 && !st.flush[g].Scheduled() {
		r.w.M.Schedule(&st.flush[g], max(now, lazyFrom+r.k().LazyFlush)+r.jiffy())
	}
}

// nocbReady wakes, through the group's rcuog, the rcuop kthread of a CPU
// whose callbacks the grace period ending at now made ready.
func (r *RCU) nocbReady(cpu int, now sim.Time) {
	if ev := &r.nocb.cbWake[cpu]; !ev.Scheduled() {
		r.w.M.Schedule(ev, now+2*r.wakeup())
	}
}

// nocbCB is rcuop invoking every ready callback of its CPU.
func (r *RCU) nocbCB(cpu int, now sim.Time) {
	s := &r.cpus[cpu]
	n := 0
	for n < len(s.ready) && s.ready[n].gpEnd < now {
		r.invoke(s.ready[n], now)
		n++
	}
	s.ready = s.ready[n:]
}
