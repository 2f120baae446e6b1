package web

import (
	"fmt"
	"strings"

	"contend/cpu"
	"contend/models"
)

// Explain is what the explain view shows beside the result's tables: the
// CLI's explanation of the point, sentence for sentence (contend explain
// prints the same "why:" paragraphs), and where its CPUs sit.
type Explain struct {
	// Unit names what the tables are per: the flood's unit of work, or the
	// batch's operation when only a batch ran.
	Unit string `json:"unit"`
	// Kernel names the kernel the RCU figures are of ("kernel 4.2, HZ=1000").
	Kernel string `json:"kernel"`
	// CPUs say where each CPU of the run sits.
	CPUs []string `json:"cpus"`
	// Why are the paragraphs of contend explain that say why: each lock,
	// each line that moves, the RCU waits, each of the phases of a
	// synchronize_rcu (PhaseWhy, in the order of result.rcu.timeline).
	Why      []string `json:"why"`
	PhaseWhy []string `json:"phase_why"`
}

// explainOf explains res, a run of w: the paragraphs contend explain
// writes after its tables, in its words.
func explainOf(w *models.World, res *models.Result, unit string) Explain {
	e := Explain{Unit: unit, Kernel: kernelName(w.K), CPUs: []string{}, Why: []string{}, PhaseWhy: []string{}}
	for _, c := range res.Cores {
		e.CPUs = append(e.CPUs, fmt.Sprintf("cpu %d (%s): %s", c.CPU, c.Role, w.M.Topology().Where(c.CPU)))
	}
	for i := range res.RCU.Timeline {
		e.PhaseWhy = append(e.PhaseWhy, phaseWhy(w.K, i))
	}
	e.Why = append(e.Why, rcuWhy(res)...)
	e.Why = append(e.Why, lockWhy(w.M.Profile(), res, unit)...)
	locks := map[string]bool{}
	for _, l := range res.Locks {
		locks[l.Name] = true
	}
	for _, l := range res.Lines {
		if l.PerCPU || l.TransfersPerPacket < 0.1 || locks[l.Name] {
			continue
		}
		e.Why = append(e.Why, fmt.Sprintf("why: line %s moves between CPUs %.2f times per %s (%.2f HITM), waiting %.1f ns per %s in its queue: every CPU writes it. Writing it less often (per-cpu, or once per jiffy) removes that.%s",
			l.Name, l.TransfersPerPacket, unit, l.HITMPerPacket, l.QueueNsPerPacket, unit, busyWhy(l, res.Seconds)))
	}
	return e
}

// busyWhy says how loaded a line's home is (contend explain's words): a line
// busy nearly all the time is the bottleneck; one whose requests wait far
// longer than the M/D/1 queue at its load gets them in bursts.
func busyWhy(l models.LineResult, seconds float64) string {
	rho := l.BusyPct / 100
	switch {
	case rho >= 0.9:
		return fmt.Sprintf(" Its home is busy %.1f%% of the time: it is a bottleneck. A change that takes traffic off other lines only moves their waiting here.", l.BusyPct)
	case l.Transfers > 0 && l.MeanQueueNs > 0:
		service := rho * seconds * 1e9 / float64(l.Transfers)
		even := rho / (2 * (1 - rho)) * service
		if l.MeanQueueNs > 2*even {
			return fmt.Sprintf(" Its home is busy %.1f%% of the time, yet a transfer waits %.1f ns, where evenly spread requests at that load would wait %.1f (M/D/1): its requests come bunched, many CPUs asking at the same moments, and then it is saturated.", l.BusyPct, l.MeanQueueNs, even)
		}
		return fmt.Sprintf(" Its home is busy %.1f%% of the time.", l.BusyPct)
	}
	return ""
}

// lockWhy says what each lock taken costs: coherence traffic on its line
// when the line moves, else the atomic's latency that the core hides.
func lockWhy(prof cpu.Profile, res *models.Result, unit string) []string {
	lines := map[string]models.LineResult{}
	for _, l := range res.Lines {
		lines[l.Name] = l
	}
	var out []string
	for _, l := range res.Locks {
		if l.Acquisitions == 0 || res.Packets == 0 {
			continue
		}
		var b strings.Builder
		line := lines[l.Name]
		fmt.Fprintf(&b, "why: %s (%s) is taken %.2f times per %s; %d of %d acquisitions waited for a holder.", l.Name, l.Kind, float64(l.Acquisitions)/float64(res.Packets), unit, l.Contended, l.Acquisitions)
		if l.Retries > 0 {
			fmt.Fprintf(&b, " The queue head's cmpxchg of the word failed %.2f times per acquisition (a CPU queued between its read and the cmpxchg) and went round again; claim = \"store\" (Linux 4.2 on) takes it with a store.", float64(l.Retries)/float64(l.Acquisitions))
		}
		if line.TransfersPerPacket > 0.1 {
			fmt.Fprintf(&b, " Its line moves between CPUs %.2f times per %s and waits %.1f ns per %s in the queue of CPUs asking for it: the cost is coherence traffic on the lock word, which grows with the number of CPUs, not the %.2f ns of the atomic itself. A per-cpu or RCU design removes it.",
				line.TransfersPerPacket, unit, line.QueueNsPerPacket, unit, prof.Atomic.Nanoseconds())
			if line.Remote > 0 {
				fmt.Fprintf(&b, " %.2f of those transfers per %s cross sockets, at %.0f ns each instead of %.0f: the CPUs run on different sockets (see CPUs above); placement = \"compact\" keeps them on one.",
					float64(line.Remote)/float64(res.Packets), unit, prof.OtherSocket.Nanoseconds(), prof.SameSocket.Nanoseconds())
			}
			out = append(out, b.String()+busyWhy(line, res.Seconds))
			continue
		}
		hidden := prof.AtomicOverlap * prof.Atomic.Nanoseconds()
		fmt.Fprintf(&b, " The line stays in this CPU's cache. perf charges each acquisition the atomic's full latency (%.2f ns), but the out-of-order core runs the next %.2f ns of independent work under it (atomic_overlap %.2f), and the unlock's store drains from the store buffer under later work (store_drain %.2f ns, which a tight lock/unlock loop pays every time). Removing the lock therefore saves about %.2f ns per acquisition, not the %.2f ns a tight-loop benchmark shows.",
			prof.Atomic.Nanoseconds(), hidden, prof.AtomicOverlap, prof.StoreDrain.Nanoseconds(),
			prof.Atomic.Nanoseconds()-hidden+prof.Cycles(1).Nanoseconds(), prof.Atomic.Nanoseconds()+prof.Cycles(1).Nanoseconds()+prof.StoreDrain.Nanoseconds())
		out = append(out, b.String())
	}
	return out
}

// rcuWhy says why a batch waits in synchronize_rcu, and what waited to be
// freed.
func rcuWhy(res *models.Result) []string {
	var out []string
	if b := res.Batch; b != nil {
		for _, oc := range b.OffCPU {
			if oc.Label != "synchronize_rcu" || b.Ops == 0 {
				continue
			}
			out = append(out, fmt.Sprintf("why: every operation sleeps in synchronize_rcu for %.2f ms: the phases above are set by jiffies, not by the CPU: utilization is %.1f%%. Deferring the free (call_rcu, kfree_rcu, queue_rcu_work) removes the wait; synchronize_rcu_expedited shortens it to wake-ups and IPIs.",
				1e3*oc.Seconds/float64(b.Ops), 100*b.CPUUtil))
		}
	}
	if r := res.RCU; r.PendingBytesMax > 0 {
		out = append(out, fmt.Sprintf("deferred frees: up to %.0f bytes waited for a grace period (%.0f on average), %d bytes freed.", r.PendingBytesMax, r.PendingBytesMean, r.FreedBytes))
	}
	return out
}

func kernelName(k models.Kernel) string {
	name := fmt.Sprintf("HZ=%d", k.HZ)
	if k.Version != "" {
		name = "kernel " + k.Version + ", " + name
	}
	if k.FastNoHZ {
		name += ", CONFIG_RCU_FAST_NO_HZ"
	}
	return name
}

// phaseWhy says where phase i of a synchronize_rcu comes from under k.
func phaseWhy(k models.Kernel, i int) string {
	switch models.Phase(i) {
	case models.PhaseStart:
		switch {
		case k.WakeFromGP == models.On:
			return "start_poll_synchronize_rcu wakes the grace-period kthread at once"
		case k.FastNoHZ:
			return "the caller's idle CPU sleeps to a multiple of 4 jiffies, whose tick asks for it"
		}
		return "the caller CPU's next tick asks for it (rcu_pending), then the kthread wakes"
	case models.PhaseGP:
		return fmt.Sprintf("FQS scans after %d jiffies, then every %d, until every CPU reported", k.JiffiesTillFirstFQS, k.JiffiesTillNextFQS)
	case models.PhaseInvoke:
		switch {
		case k.WakeFromGP == models.On:
			return "the kthread completes the caller in rcu_gp_cleanup"
		case k.RCUC:
			return "the caller CPU's next tick wakes its rcuc kthread"
		}
		return "the caller CPU's next tick runs the callback in RCU softirq"
	}
	return "the scheduler wakes the caller"
}
