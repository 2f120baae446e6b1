package models

import (
	"fmt"
	"slices"

	"contend/sim"
)

// Kernel holds the kernel configuration the mechanisms follow. The defaults are
// Linux's: CONFIG_HZ=250 and tree RCU's force-quiescent-state delays as
// rcu_init_geometry() computes them.
type Kernel struct {
	// Version names the preset the settings came from ("5.2", "6.12"), or is
	// empty: it only labels reports.
	Version string
	HZ      int
	// NrCPUIDs is nr_cpu_ids, which sets the FQS defaults on large
	// machines. Zero takes the machine's CPU count.
	NrCPUIDs int
	// Force-quiescent-state scan delays in jiffies. Zero takes the kernel's
	// default (kernel/rcu/tree.c, rcu_init_geometry()):
	//
	//	d = RCU_JIFFIES_TILL_FORCE_QS + nr_cpu_ids / RCU_JIFFIES_FQS_DIV;
	//
	// with RCU_JIFFIES_TILL_FORCE_QS (1 + (HZ > 250) + (HZ > 500)) and
	// RCU_JIFFIES_FQS_DIV 256 (kernel/rcu/tree.h).
	JiffiesTillFirstFQS int
	JiffiesTillNextFQS  int
	// JiffiesToSchedQS is when a CPU that has not reported is asked urgently
	// (rcu_urgent_qs). Zero takes adjust_jiffies_till_sched_qs()'s
	// max(first + 2·next, HZ/10 + nr_cpu_ids/RCU_JIFFIES_FQS_DIV).
	JiffiesToSchedQS int
	// SoftirqQS: a CPU processing packets passes a quiescent state between
	// packets once it has noticed the grace period (rcu_softirq_qs in
	// ksoftirqd). Without it, only context switches and urgent requests do.
	SoftirqQS bool
	// Expedited makes synchronize_rcu use synchronize_rcu_expedited: a
	// worker IPIs every non-idle CPU instead of waiting for ticks.
	Expedited bool
	// IPI is the latency of an inter-processor interrupt (expedited GPs).
	IPI sim.Time
	// WakeFromGP is rcutree.rcu_normal_wake_from_gp: synchronize_rcu asks
	// for a grace period at once and the grace-period kthread wakes it at
	// the end, instead of a callback at the caller's next tick.
	WakeFromGP Switch
	// RCUC is rcutree.use_softirq=0: callbacks run in the per-CPU rcuc
	// kthread, one wake-up after the tick that finds them ready.
	RCUC bool
	// Kfree is how kfree_rcu frees: one callback per object, or per-CPU
	// batches drained every KFREE_DRAIN_JIFFIES (HZ/50).
	Kfree KfreeMode
	// FastNoHZ is CONFIG_RCU_FAST_NO_HZ (removed in 5.17, default n): an
	// idle CPU with callbacks stops its tick until a multiple of
	// RCU_IDLE_GP_DELAY (4) jiffies instead of keeping it.
	FastNoHZ bool
	// Lazy is CONFIG_RCU_LAZY (6.2 on, default n): call_rcu callbacks ask
	// for no grace period until LazyFlush or 10000 of them (qhimark) wait.
	Lazy      bool
	LazyFlush sim.Time

	// What makes a real grace period last and vary. Every preset turns
	// on the wheel, the walk and the kthread's CPU (each version has them); a kernel named by no
	// version has none of them, so the closed forms of the tests hold.
	//
	// TimerWheel: the kthread's timeouts and delayed work go on the jiffy
	// timer wheel (kernel/time/timer.c since 4.8), which fires a timer one
	// granule after it expires (wheelFires).
	TimerWheel bool
	// NodeWalk: rcu_gp_init, rcu_gp_cleanup and the FQS scans lock every
	// rcu_node of the tree (RCU_FANOUT_LEAF 16, RCU_FANOUT 64), and the
	// last quiescent-state report climbs it, a cache-line transfer per lock.
	NodeWalk bool
	// IdleWakeups is how often an idle CPU, its tick stopped, wakes on its
	// own (timers, device interrupts), per second, and IdleWakeupTime how
	// long each keeps it out of its extended quiescent state. Zero: never.
	// No Kconfig sets them; a scenario gives them for its machine.
	IdleWakeups    float64
	IdleWakeupTime sim.Time
	// NOCB is CONFIG_RCU_NOCB_CPU (default n) with every CPU's callbacks
	// offloaded (rcu_nocbs=, CONFIG_RCU_NOCB_CPU_DEFAULT_ALL): the rcuog
	// and rcuop kthreads handle them instead of each CPU's tick.
	NOCB bool
	// KthreadCPU: the grace-period kthread runs on a CPU of the machine
	// (the last), and when a task holds that CPU in the kernel it waits for
	// the task's next preemption point. Off, it always runs one wake-up
	// after it is woken, as if on a CPU of its own.
	KthreadCPU bool
	// TimerPull is the hierarchical timer pull model (kernel/time/
	// timer_migration.c, 6.9 on): the timers of a CPU that goes idle are
	// expired by another CPU, the group's migrator. The kthread's FQS
	// timeout, armed on its CPU as it sleeps, then fires elsewhere, and
	// its CPU wakes to run the scan with no tick of its own, so the
	// quiescent state it passed when the kthread slept is never reported
	// by that CPU (rcu_pending, rcu_core): the first scan finds the CPU
	// running the scan, not idle (dyntick_save_progress_counter), and it
	// holds the grace period to the second. Before, the timeout fired on
	// the kthread's CPU, whose tick reported it first. With KthreadCPU.
	TimerPull bool
	// KthreadQS: rcu_gp_init reports the kthread's CPU's quiescent state
	// itself ("Immediately report QS for the GP kthread's CPU", Joel
	// Fernandes, posted 2026-01-01), so that it never holds a grace period
	// to a second scan. No preset has it. With KthreadCPU.
	KthreadQS bool
	// SkewTick is the skew_tick=1 boot parameter (default 0): each CPU's
	// tick comes cpu·(TICK_NSEC/2)/nr_cpu_ids after the jiffy boundary.
	SkewTick bool
}

// Switch is a setting that is off, on, or decided by the machine's size.
type Switch uint8

const (
	Off Switch = iota
	On
	Auto // on for at most wakeFromGPThreshold CPUs
)

// wakeFromGPThreshold is WAKE_FROM_GP_CPU_THRESHOLD: "Enable
// rcu_normal_wake_from_gp automatically on small systems".
const wakeFromGPThreshold = 16

// KfreeMode is how kfree_rcu hands objects to RCU.
type KfreeMode uint8

const (
	// KfreePerObject: kfree_rcu is call_rcu with the object's offset, one
	// callback per object, freed in RCU softirq (before 5.6).
	KfreePerObject KfreeMode = iota
	// KfreeBatch: objects go to a per-CPU batch that kfree_rcu_monitor
	// hands to queue_rcu_work after KFREE_DRAIN_JIFFIES (5.6 on).
	KfreeBatch
)

// Preset is one kernel version's defaults for the paths that changed.
type Preset struct {
	Version    string
	WakeFromGP Switch
	Kfree      KfreeMode
	// LazyAvail and FastNoHZAvail say whether the version has
	// CONFIG_RCU_LAZY (6.2 on) and CONFIG_RCU_FAST_NO_HZ (until 5.16).
	LazyAvail     bool
	FastNoHZAvail bool
	TimerPull     bool   // the hierarchical timer pull model (6.9 on)
	Changes       string // the commits that set them
}

// Presets are the versions a scenario may name, oldest first.
var Presets = []Preset{
	{"5.2", Off, KfreePerObject, false, true, false, "kfree_rcu is call_rcu(head, offset): one callback per object"},
	{"5.4", Off, KfreePerObject, false, true, false, "as 5.2"},
	{"5.6", Off, KfreeBatch, false, true, false, "\"rcu: Add basic support for kfree_rcu() batching\" (v5.6): per-CPU batches, KFREE_DRAIN_JIFFIES = HZ/50"},
	{"5.10", Off, KfreeBatch, false, true, false, "34c881745549 \"rcu: Support kfree_bulk() interface in kfree_rcu()\" (v5.7): batches freed by kfree_bulk"},
	{"5.15", Off, KfreeBatch, false, true, false, "as 5.10"},
	{"6.1", Off, KfreeBatch, false, false, false, "\"rcu: Remove the RCU_FAST_NO_HZ Kconfig option\" (v5.17)"},
	{"6.6", Off, KfreeBatch, true, false, false, "\"rcu: Make call_rcu() lazy to save power\" (v6.2): CONFIG_RCU_LAZY, default n"},
	{"6.12", Off, KfreeBatch, true, false, true, "\"rcu: Reduce synchronize_rcu() latency\" (v6.9): rcu_normal_wake_from_gp, disabled by default; 7ee988770326 \"timers: Implement the hierarchical pull model\" (v6.9): an idle CPU's timers fire on another"},
	{"6.17", Auto, KfreeBatch, true, false, true, "\"rcu: Enable rcu_normal_wake_from_gp on small systems\" (2025): on for at most 16 CPUs"},
}

// FindPreset returns the preset of version v.
func FindPreset(v string) (Preset, error) {
	i := slices.IndexFunc(Presets, func(p Preset) bool { return p.Version == v })
	if i < 0 {
		names := make([]string, len(Presets))
		for j, p := range Presets {
			names[j] = fmt.Sprintf("%q", p.Version)
		}
		return Preset{}, fmt.Errorf("kernel: version %q is not known; use one of %v", v, names)
	}
	return Presets[i], nil
}

// Apply sets k's version-dependent paths from p.
func (p Preset) Apply(k *Kernel) {
	k.Version, k.WakeFromGP, k.Kfree, k.TimerPull = p.Version, p.WakeFromGP, p.Kfree, p.TimerPull
	k.TimerWheel, k.NodeWalk, k.KthreadCPU = true, true, true
}

// DefaultKernel returns Linux's defaults (the paths of the newest preset
// without its automatic switches: callbacks wake synchronize_rcu).
func DefaultKernel() Kernel {
	return Kernel{HZ: 250, SoftirqQS: true, IPI: 2 * sim.Microsecond, Kfree: KfreeBatch}
}

const (
	rcuJiffiesFQSDiv = 256   // RCU_JIFFIES_FQS_DIV
	qhimark          = 10000 // DEFAULT_RCU_QHIMARK
)

// forceQSDefault is RCU_JIFFIES_TILL_FORCE_QS + nr_cpu_ids / RCU_JIFFIES_FQS_DIV.
func forceQSDefault(hz, ncpus int) int {
	d := 1
	if hz > 250 {
		d++
	}
	if hz > 500 {
		d++
	}
	return d + ncpus/rcuJiffiesFQSDiv
}

// fill takes the kernel's defaults for ncpus CPUs and reports a setting that
// cannot work.
func (k *Kernel) fill(ncpus int) error {
	if k.HZ < 10 || k.HZ > 10000 {
		return fmt.Errorf("kernel: hz: %d; use a CONFIG_HZ value such as 100, 250, 300 or 1000", k.HZ)
	}
	if k.NrCPUIDs == 0 {
		k.NrCPUIDs = ncpus
	}
	if k.JiffiesTillFirstFQS < 0 || k.JiffiesTillNextFQS < 0 || k.JiffiesToSchedQS < 0 || k.NrCPUIDs < 0 {
		return fmt.Errorf("kernel: force-quiescent-state delays and nr_cpu_ids must not be negative")
	}
	def := forceQSDefault(k.HZ, k.NrCPUIDs)
	if k.JiffiesTillFirstFQS == 0 {
		k.JiffiesTillFirstFQS = def
	}
	if k.JiffiesTillNextFQS == 0 {
		k.JiffiesTillNextFQS = def
	}
	if k.JiffiesToSchedQS == 0 {
		k.JiffiesToSchedQS = max(k.JiffiesTillFirstFQS+2*k.JiffiesTillNextFQS, k.HZ/10+k.NrCPUIDs/rcuJiffiesFQSDiv)
	}
	// Linux clamps the scan delays to HZ (param_set_first_fqs_jiffies:
	// "(j > HZ) ? HZ : j"); larger values would also overflow the clock when
	// turned into time.
	if k.JiffiesTillFirstFQS > k.HZ || k.JiffiesTillNextFQS > k.HZ || k.JiffiesToSchedQS > 21*k.HZ {
		return fmt.Errorf("kernel: force-quiescent-state delays are at most hz jiffies, jiffies_to_sched_qs at most 21·hz")
	}
	if k.IPI < 0 || k.LazyFlush < 0 {
		return fmt.Errorf("kernel: ipi and lazy_flush must not be negative")
	}
	if k.IdleWakeups < 0 || k.IdleWakeupTime < 0 || k.IdleWakeups > 1e6 {
		return fmt.Errorf("kernel: idle_wakeups must be 0 to 1e6 a second and idle_wakeup_time not negative")
	}
	if k.LazyFlush == 0 {
		// LAZY_FLUSH_JIFFIES (10 * HZ): ten seconds.
		k.LazyFlush = 10 * sim.Second
	}
	if k.WakeFromGP == Auto {
		k.WakeFromGP = Off
		if k.NrCPUIDs <= wakeFromGPThreshold {
			k.WakeFromGP = On
		}
	}
	return nil
}

// CheckKernel fills k's defaults and reports a setting that cannot work.
func CheckKernel(k *Kernel) error { return k.fill(max(k.NrCPUIDs, 1)) }
