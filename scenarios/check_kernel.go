package scenarios

import (
	"strings"

	"contend/cpu"
	"contend/models"
)

func (c *checker) kernel(k *kernelRaw) {
	kern := models.DefaultKernel()
	if k != nil {
		c.kernelPreset(k, &kern)
		c.kernelOverrides(k, &kern)
	}
	a := []string{"[kernel]"}
	hz := models.DefaultKernel()
	hz.HZ = kern.HZ
	if err := models.CheckKernel(&hz); err != nil {
		c.fail("kernel.hz", append(a, keyNeedle("hz")), "%s", strings.TrimPrefix(err.Error(), "kernel: hz: "))
	}
	for _, f := range []struct {
		key string
		v   int
	}{
		{"jiffies_till_first_fqs", kern.JiffiesTillFirstFQS}, {"jiffies_till_next_fqs", kern.JiffiesTillNextFQS},
		{"jiffies_to_sched_qs", kern.JiffiesToSchedQS},
	} {
		if f.v < 0 {
			c.fail("kernel."+f.key, append(a, keyNeedle(f.key)), "%d; give a number of jiffies, at least 0 (0 takes the kernel's default)", f.v)
		}
		if most := maxJiffies(f.key, kern.HZ); f.v > most {
			c.fail("kernel."+f.key, append(a, keyNeedle(f.key)), "%d jiffies; give at most %d at hz = %d (%s)", f.v, most, kern.HZ, jiffiesWhy[f.key])
		}
	}
	if kern.NrCPUIDs < 0 || kern.NrCPUIDs > cpu.MaxCPUs {
		c.fail("kernel.nr_cpu_ids", append(a, keyNeedle("nr_cpu_ids")), "%d; give the number of possible CPUs, 1 to %d (0 takes the machine's)", kern.NrCPUIDs, cpu.MaxCPUs)
	}
	probe := kern
	if err := models.CheckKernel(&probe); err != nil {
		c.fail("kernel", a, "%v", err)
	}
	c.s.Kernel = kern
}

// kernelPreset applies the version's defaults and refuses a setting the
// version does not have.
func (c *checker) kernelPreset(k *kernelRaw, kern *models.Kernel) {
	if k.Version == "" {
		return
	}
	at := []string{"[kernel]", keyNeedle("version")}
	p, err := models.FindPreset(k.Version)
	if err != nil {
		c.fail("kernel.version", at, "%s", strings.TrimPrefix(err.Error(), "kernel: "))
		return
	}
	p.Apply(kern)
	if k.Lazy != nil && *k.Lazy && !p.LazyAvail {
		c.fail("kernel.lazy", []string{"[kernel]", keyNeedle("lazy")}, "kernel %s has no CONFIG_RCU_LAZY (6.2 and later); remove lazy or name a later version", p.Version)
	}
	if k.FastNoHZ != nil && *k.FastNoHZ && !p.FastNoHZAvail {
		c.fail("kernel.fast_no_hz", []string{"[kernel]", keyNeedle("fast_no_hz")}, "kernel %s has no CONFIG_RCU_FAST_NO_HZ (removed in 5.17); remove fast_no_hz or name an earlier version", p.Version)
	}
}

// kernelOverrides sets what the file gives one by one over the preset.
func (c *checker) kernelOverrides(k *kernelRaw, kern *models.Kernel) {
	set := func(dst *int, src *int) {
		if src != nil {
			*dst = *src
		}
	}
	set(&kern.HZ, k.HZ)
	set(&kern.NrCPUIDs, k.NrCPUIDs)
	set(&kern.JiffiesTillFirstFQS, k.JiffiesTillFirstFQS)
	set(&kern.JiffiesTillNextFQS, k.JiffiesTillNextFQS)
	set(&kern.JiffiesToSchedQS, k.JiffiesToSchedQS)
	flag := func(dst *bool, src *bool) {
		if src != nil {
			*dst = *src
		}
	}
	flag(&kern.SoftirqQS, k.SoftirqQS)
	flag(&kern.Expedited, k.Expedited)
	flag(&kern.FastNoHZ, k.FastNoHZ)
	flag(&kern.Lazy, k.Lazy)
	flag(&kern.TimerWheel, k.TimerWheel)
	flag(&kern.NodeWalk, k.NodeWalk)
	flag(&kern.NOCB, k.NOCB)
	flag(&kern.KthreadCPU, k.KthreadCPU)
	flag(&kern.SkewTick, k.SkewTick)
	flag(&kern.TimerPull, k.TimerPull)
	flag(&kern.KthreadQS, k.KthreadQS)
	if k.IdleWakeups != nil {
		if v := *k.IdleWakeups; v < 0 || v > 1e6 {
			c.fail("kernel.idle_wakeups", []string{"[kernel]", keyNeedle("idle_wakeups")}, "%g; give how often an idle CPU wakes on its own, 0 to 1e6 a second (0: never)", v)
		} else {
			kern.IdleWakeups = v
		}
	}
	if k.IdleWakeupTime != "" {
		kern.IdleWakeupTime = c.dur("kernel.idle_wakeup_time", []string{"[kernel]", keyNeedle("idle_wakeup_time")}, k.IdleWakeupTime, false, MaxStepTime).Time(1)
	}
	if (kern.IdleWakeups > 0) != (kern.IdleWakeupTime > 0) {
		c.fail("kernel.idle_wakeups", []string{"[kernel]"}, "idle_wakeups and idle_wakeup_time go together: give both (e.g. idle_wakeups = 100, idle_wakeup_time = \"20us\") or neither")
	}
	if k.UseSoftirq != nil {
		kern.RCUC = !*k.UseSoftirq
	}
	if k.WakeFromGP != nil {
		kern.WakeFromGP = models.Off
		if *k.WakeFromGP {
			kern.WakeFromGP = models.On
		}
	}
	if k.KfreeBatch != nil {
		kern.Kfree = models.KfreePerObject
		if *k.KfreeBatch {
			kern.Kfree = models.KfreeBatch
		}
	}
	if k.IPI != "" {
		kern.IPI = c.dur("kernel.ipi", []string{"[kernel]", keyNeedle("ipi")}, k.IPI, false, MaxStepTime).Time(1)
	}
}

// Most jiffies each RCU delay may be. Linux clamps the force-quiescent-state
// delays to HZ (rcu/tree.c, param_set_first_fqs_jiffies); beyond the CPU
// stall timeout (21 s) a CPU that owes a quiescent state is a stall.
func maxJiffies(key string, hz int) int {
	if key == "jiffies_to_sched_qs" {
		return 21 * hz
	}
	return hz
}

var jiffiesWhy = map[string]string{
	"jiffies_till_first_fqs": "Linux clamps it to one second of jiffies",
	"jiffies_till_next_fqs":  "Linux clamps it to one second of jiffies",
	"jiffies_to_sched_qs":    "beyond the 21 s RCU CPU stall timeout the kernel reports a stall",
}
