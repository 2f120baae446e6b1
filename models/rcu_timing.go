package models

import (
	"contend/sim"
)

// The timer wheel of kernel/time/timer.c (4.8 on): LVL_CLK_SHIFT 3,
// LVL_BITS 6, LVL_DEPTH 9 above HZ=100 and 8 at it.
const (
	lvlClkShift = 3
	lvlSize     = 1 << 6
)

func lvlStart(n int) int64 { return (lvlSize - 1) << ((n - 1) * lvlClkShift) }

// wheelFires returns the jiffy at whose tick a timer armed at jiffy now
// with expires = now + timeout runs, as calc_wheel_index() files it: the
// level is the first whose range holds the delta, and calc_index() rounds
// the expiry up to the level's granularity, one granule past it so that
// the timer never fires early:
//
//	expires = (expires >> LVL_SHIFT(lvl)) + 1;
//	*bucket_expiry = expires << LVL_SHIFT(lvl);
//
// So schedule_timeout(1) armed within jiffy J runs at the tick that makes
// jiffies J+2: between one and two jiffies later. (base->clk is forwarded
// to jiffies when the timer is armed on an idle base, forward_timer_base.)
func wheelFires(now, timeout int64, hz int) int64 {
	depth := 9
	if hz <= 100 {
		depth = 8
	}
	lvl := 0
	for lvl < depth-1 && timeout >= lvlStart(lvl+1) {
		lvl++
	}
	shift := uint(lvl * lvlClkShift)
	return ((now+timeout)>>shift + 1) << shift
}

// timeoutTick returns when a timeout of j jiffies armed at now expires:
// on the timer wheel when the kernel has one, else at the tick where
// jiffies reaches jiffies + j.
func (r *RCU) timeoutTick(now sim.Time, j int64) sim.Time {
	if !r.k().TimerWheel {
		return r.atTick(r.w.Jiffies(now) + j)
	}
	return r.atTick(wheelFires(r.w.Jiffies(now), j, r.k().HZ))
}

// rcuGeometry is the rcu_node tree rcu_init_geometry() builds for ncpus:
// leaves of RCU_FANOUT_LEAF CPUs, inner nodes of RCU_FANOUT children.
type rcuGeometry struct {
	levels []int // nodes per level, root first
	nodes  int
}

const (
	rcuFanoutLeaf = 16 // CONFIG_RCU_FANOUT_LEAF default
	rcuFanout     = 64 // CONFIG_RCU_FANOUT default on 64-bit
)

// geometry follows rcu_init_geometry():
//
//	rcu_capacity[0] = rcu_fanout_leaf;
//	for (i = 1; i < RCU_NUM_LVLS; i++)
//		rcu_capacity[i] = rcu_capacity[i - 1] * RCU_FANOUT;
//	for (i = 0; nr_cpu_ids > rcu_capacity[i]; i++) {}
//	rcu_num_lvls = i + 1;
//	for (i = 0; i < rcu_num_lvls; i++) {
//		int cap = rcu_capacity[(rcu_num_lvls - 1) - i];
//		num_rcu_lvl[i] = DIV_ROUND_UP(nr_cpu_ids, cap);
//	}
func geometry(ncpus int) rcuGeometry {
	capacity := []int{rcuFanoutLeaf}
	for ncpus > capacity[len(capacity)-1] {
		capacity = append(capacity, capacity[len(capacity)-1]*rcuFanout)
	}
	var g rcuGeometry
	for i := len(capacity) - 1; i >= 0; i-- {
		n := (ncpus + capacity[i] - 1) / capacity[i]
		g.levels = append(g.levels, n)
		g.nodes += n
	}
	return g
}

func (g rcuGeometry) leaves() int { return g.levels[len(g.levels)-1] }

// nodeLock is what taking one rcu_node's lock costs the kthread: the
// lock's line was last written by another CPU (a quiescent-state report,
// the previous walk), so it moves.
func (r *RCU) nodeLock() sim.Time {
	if !r.k().NodeWalk {
		return 0
	}
	return r.w.M.Profile().SameSocket
}

// initWalk is rcu_gp_init's two walks: rcu_for_each_leaf_node() to apply
// CPU hotplug (qsmaskinit from qsmaskinitnext), then
// rcu_for_each_node_breadth_first() to set every node's qsmask and
// gp_seq.
func (r *RCU) initWalk() sim.Time {
	return sim.Time(r.geo.leaves()+r.geo.nodes) * r.nodeLock()
}

// cleanupWalk is rcu_gp_cleanup's rcu_for_each_node_breadth_first(): each
// node's gp_seq is set to the end, after which its CPUs see it.
func (r *RCU) cleanupWalk() sim.Time { return sim.Time(r.geo.nodes) * r.nodeLock() }

// climb is rcu_report_qs_rnp() carrying the last report from a leaf to the
// root, a lock per level, before rcu_report_qs_rsp() wakes the kthread.
func (r *RCU) climb() sim.Time { return sim.Time(len(r.geo.levels)) * r.nodeLock() }

// scanWalk is force_qs_rnp(): every FQS scan locks each leaf that still
// has CPUs to report.
func (r *RCU) scanWalk() sim.Time { return sim.Time(r.geo.leaves()) * r.nodeLock() }

// awake reports whether an idle CPU is, at this scan, in one of its own
// wake-ups (a timer, a device interrupt, the softirq or short task that
// follows): out of its extended quiescent state, so that the scan's
// dyntick snapshot (rcu_watching_snap_save) does not report it. Wake-ups
// come as a Poisson stream of IdleWakeups a second, each IdleWakeupTime
// long, so a CPU is in one with probability λb/(1+λb); the next scan finds
// it idle again since (rcu_watching_snap_recheck) and reports it.
func (r *RCU) awake() bool {
	k := r.k()
	if k.IdleWakeups <= 0 || k.IdleWakeupTime <= 0 {
		return false
	}
	if r.rand == nil {
		// A stream of its own, seeded from the machine's the first time it
		// is needed, so that a run without wake-ups draws nothing.
		r.rand = sim.NewRand(uint64(r.w.M.Uniform(1<<62)), 28)
	}
	lb := k.IdleWakeups * k.IdleWakeupTime.Seconds()
	return r.rand.Float64() < lb/(1+lb)
}

// kthreadCPU is the CPU the grace-period kthread runs on and the wake-ups
// that wait for it. rcu_gp_kthread is bound to no CPU; this model keeps it
// on the last one. When that CPU is idle a wake-up runs it one scheduler
// wake-up later; when it runs a task in the kernel (PREEMPT_NONE, or
// voluntary preemption), the kthread runs only once that task reaches a
// preemption point (cond_resched, a sleep), which here is its next
// operation boundary or its blocking, and the switch to the kthread and
// back is a quiescent state for that CPU (rcu_note_context_switch).
type kthreadCPU struct {
	cpu     int
	waiting []*sim.Event // what the kthread is to do once it runs
}

func (k *kthreadCPU) drop(ev *sim.Event) {
	for i, e := range k.waiting {
		if e == ev {
			k.waiting = append(k.waiting[:i], k.waiting[i+1:]...)
			return
		}
	}
}

// kthreadWake wakes the kthread at now to run ev.
func (r *RCU) kthreadWake(ev *sim.Event, now sim.Time) {
	c := r.w.M.Cores()[r.kthread.cpu]
	if !r.k().KthreadCPU || r.idle(c) {
		r.w.M.Schedule(ev, now+r.wakeup())
		return
	}
	for _, e := range r.kthread.waiting {
		if e == ev {
			return
		}
	}
	r.kthread.waiting = append(r.kthread.waiting, ev)
}

// kthreadYield is a preemption point of the task on cpu: a kthread waiting
// for this CPU runs.
func (r *RCU) kthreadYield(cpu int, now sim.Time) {
	k := &r.kthread
	if cpu != k.cpu || len(k.waiting) == 0 {
		return
	}
	for _, ev := range k.waiting {
		r.w.M.Schedule(ev, now+r.wakeup())
	}
	k.waiting = k.waiting[:0]
	r.kworkerRan(cpu)
}

// tickPhase is how far CPU i's tick comes after each jiffy boundary. With
// skew_tick=1 tick_setup_sched_timer() offsets it:
//
//	u64 offset = TICK_NSEC >> 1;
//	do_div(offset, num_possible_cpus());
//	offset *= smp_processor_id();
//	hrtimer_add_expires_ns(&ts->sched_timer, offset);
//
// and without it (the default) every CPU's tick comes at the boundary.
func (r *RCU) tickPhase(i int) sim.Time {
	if !r.k().SkewTick {
		return 0
	}
	// nr_cpu_ids is never below the CPUs the machine has.
	return sim.Time(i) * (r.jiffy() / 2 / sim.Time(max(r.k().NrCPUIDs, len(r.cpus))))
}

// skewedTick is the tick of CPU r.tickCPU, then the next CPU's.
func (r *RCU) skewedTick(now sim.Time) {
	r.cpuTick(r.tickCPU, now)
	r.tickCPU++
	if r.tickCPU < len(r.cpus) {
		base := now - r.tickPhase(r.tickCPU-1)
		r.w.M.Schedule(&r.tickEv, base+r.tickPhase(r.tickCPU))
		return
	}
	r.tickCPU = 0
	if r.active || r.starting || r.ncbs > 0 {
		r.w.M.Schedule(&r.tickEv, now-r.tickPhase(len(r.cpus)-1)+r.jiffy())
	}
}

// nextSkewedTick schedules the first CPU tick after now.
func (r *RCU) nextSkewedTick(now sim.Time) {
	base := sim.Time(r.w.Jiffies(now)) * r.jiffy()
	for i := range r.cpus {
		if at := base + r.tickPhase(i); at > now {
			r.tickCPU = i
			r.w.M.Schedule(&r.tickEv, at)
			return
		}
	}
	r.tickCPU = 0
	r.w.M.Schedule(&r.tickEv, base+r.jiffy())
}
