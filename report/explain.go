package report

import (
	"bytes"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"contend/cpu"
	"contend/models"
	"contend/scenarios"
	"contend/sweep"
)

// RenderExplain prints e in format: text, the simulated perf report and
// perf c2c with the why of each lock and line, then the trace, then the
// figures of the measured file beside the simulated ones (explain
// --compare, when file is not ""); json, the result with its trace and
// the figures compared.
func RenderExplain(buf *bytes.Buffer, format string, e *sweep.Explained, file string, compared []Compared) error {
	if format == "json" {
		out := struct {
			*models.Result
			Trace   []models.Transfer `json:"trace,omitempty"`
			Compare []Compared        `json:"compare,omitempty"`
		}{e.Result, e.Transfers, compared}
		return WriteJSON(buf, out)
	}
	WriteExplain(buf, e.Scenario, e.Point.Series, e.Point.Variant, e.World, e.Result)
	if e.Trace.N > 0 {
		WriteTrace(buf, e.Transfers, e.Trace.N, e.Trace.From, e.Lines)
	}
	if file != "" {
		WriteCompare(buf, file, compared)
	}
	return nil
}

// WriteExplain writes a simulated perf report and perf c2c of one point,
// then why its locks and lines cost what they do.
func WriteExplain(buf *bytes.Buffer, s *scenarios.Scenario, se *scenarios.Series, variant string, w *models.World, res *models.Result) {
	unit := s.Workload.Unit
	if res.Batch != nil && res.Packets == 0 {
		unit = s.BatchUnit()
	}
	fmt.Fprintf(buf, "%s / %s, variant %s, profile %s\n", s.Name, se.Name, variant, se.Profile)
	writeThroughput(buf, s, res)
	if why := res.Unsteady(); why != "" {
		fmt.Fprintf(buf, "warning: %s\n", why)
	}
	writePlacement(buf, w, res)
	writeStarved(buf, res, unit)
	switch b := res.Batch; {
	case b != nil && b.Profile != nil: // a flood beside the batch
		writePerfReport(buf, ", flood CPUs", res.Profile, res.Packets, unit)
		writePerfReport(buf, ", batch CPU", b.Profile, uint64(b.Ops), s.BatchUnit())
	case b != nil:
		writePerfReport(buf, "", res.Profile, uint64(b.Ops), unit)
	default:
		writePerfReport(buf, "", res.Profile, res.Packets, unit)
	}
	writeC2C(buf, res, unit)
	writeWhy(buf, w, res, unit)
}

// writeClearWhy says how often a spinner was thrown back by its SMT
// sibling's write to the line it read, and what that cost: a loop with no
// PAUSE runs its reads ahead, and the write clears them.
func writeClearWhy(buf *bytes.Buffer, prof cpu.Profile, res *models.Result, unit string) {
	for _, l := range res.Lines {
		if l.SiblingClears == 0 || res.Packets == 0 {
			continue
		}
		fmt.Fprintf(buf, "\nwhy: a spinner on %s was thrown back %.2f times per %s: its SMT sibling wrote the line it read,\n", l.Name, float64(l.SiblingClears)/float64(res.Packets), unit)
		fmt.Fprintf(buf, "  with no PAUSE in its loop, and the reads it ran ahead were cleared (a memory-ordering machine clear,\n")
		fmt.Fprintf(buf, "  %.2f ns each, spin_clear) before it read again. A PAUSE in the spin loop (cpu_relax()) avoids it.\n", prof.SpinClear.Nanoseconds())
	}
}

// writeSeqWhy says how often each sequence counter's readers went round
// again because a writer came in while they read.
func writeSeqWhy(buf *bytes.Buffer, res *models.Result) {
	for _, sq := range res.Seqcounts {
		if sq.Reads == 0 {
			continue
		}
		fmt.Fprintf(buf, "\nwhy: the readers of %s returned %d sections and went round again %d times (%.2f a section):\n", sq.Name, sq.Reads, sq.Retries, float64(sq.Retries)/float64(sq.Reads))
		fmt.Fprintf(buf, "  a writer changed the sequence between their read_seqcount_begin and read_seqcount_retry; %d writes.\n", sq.Writes)
	}
}

// writeCmpxchgWhy says what each word's cmpxchg loops (lockref, refcount_t's
// inc_not_zero, a cmpxchg step) did: how often a try failed because another
// CPU changed the word between its read and its cmpxchg, and how often a
// loop gave up for its fallback (a lockref's spinlock).
func writeCmpxchgWhy(buf *bytes.Buffer, res *models.Result, unit string) {
	for _, wd := range res.Cmpxchg {
		if wd.Attempts == 0 || res.Packets == 0 {
			continue
		}
		ok := wd.Attempts - wd.Failures
		fmt.Fprintf(buf, "\nwhy: the cmpxchg loops on %s try %.2f times per %s; %d of %d tries failed (another CPU changed the word\n", wd.Name, float64(wd.Attempts)/float64(res.Packets), unit, wd.Failures, wd.Attempts)
		fmt.Fprintf(buf, "  between the loop's read and its cmpxchg), %.2f tries a success", float64(wd.Attempts)/float64(max(ok, 1)))
		if wd.Fallbacks > 0 {
			fmt.Fprintf(buf, "; %d loops gave up for their fallback (a lockref's spinlock:\n  once CPUs queue on it, every get reads the word locked and joins them)", wd.Fallbacks)
		}
		fmt.Fprintf(buf, ".\n")
	}
}

// writeLineWhy says why each shared line that moves, not a lock's, costs
// what it does.
func writeLineWhy(buf *bytes.Buffer, res *models.Result, unit string) {
	for _, l := range res.Lines {
		if l.PerCPU || l.TransfersPerPacket < 0.1 || isLock(res, l.Name) {
			continue
		}
		fmt.Fprintf(buf, "\nwhy: line %s moves between CPUs %.2f times per %s (%.2f HITM), waiting %.1f ns per %s\n", l.Name, l.TransfersPerPacket, unit, l.HITMPerPacket, l.QueueNsPerPacket, unit)
		fmt.Fprintf(buf, "  in its queue: every CPU writes it. Writing it less often (per-cpu, or once per jiffy) removes that.\n")
		writeBusyWhy(buf, l, res.Seconds)
	}
}

// writeThroughput says how fast the flood went and how long the batch took.
func writeThroughput(buf *bytes.Buffer, s *scenarios.Scenario, res *models.Result) {
	if res.Packets > 0 {
		flood := 0
		for _, c := range res.Cores {
			if c.Role == "flood" {
				flood++
			}
		}
		// In the scenario's unit (Mpps, Mops/s), or in thousands or ones
		// when the rate is too small for three decimals of millions.
		scale, rate := 1e6, s.RateUnit()
		for _, p := range []string{"k", ""} {
			if res.PPSPerCore >= scale/10 {
				break
			}
			scale, rate = scale/1e3, p+rate[1:] // Mpps → kpps → pps
		}
		fmt.Fprintf(buf, "throughput: %.3f %s per core, %.3f %s total on %d CPU%s, over %s of simulated time\n", res.PPSPerCore/scale, rate, res.PPS/scale, rate, flood, plural(flood), simTime(res.Seconds))
	}
	if b := res.Batch; b != nil {
		op := s.BatchUnit()
		fmt.Fprintf(buf, "batch: %d %ss in %.3f s, CPU utilization %.1f%%, %.1f µs per %s\n", b.Ops, op, b.Seconds, 100*b.CPUUtil, b.MeanOpUs, op)
		for _, oc := range b.OffCPU {
			fmt.Fprintf(buf, "  off-CPU in %s: %.3f s\n", oc.Label, oc.Seconds)
		}
	}
}

// writePlacement says where each CPU of the run sits, so that a transfer's
// cost can be read from the distance between the CPUs.
func writePlacement(buf *bytes.Buffer, w *models.World, res *models.Result) {
	fmt.Fprintf(buf, "CPUs:\n")
	for _, c := range res.Cores {
		fmt.Fprintf(buf, "  cpu %d (%s): %s\n", c.CPU, c.Role, w.M.Topology().Where(c.CPU))
	}
}

// writeStarved names the flood CPUs that completed nothing in the measured
// interval while the others completed enough to give a rate: they waited
// through all of it, as a NUMA-aware lock's remote waiters do, parked on
// its secondary queue until its fairness threshold.
func writeStarved(buf *bytes.Buffer, res *models.Result, unit string) {
	var starved []string
	var done, working uint64
	for _, c := range res.Cores {
		switch {
		case c.Role != "flood":
		case c.Packets == 0:
			starved = append(starved, fmt.Sprintf("cpu %d", c.CPU))
		default:
			done += c.Packets
			working++
		}
	}
	if len(starved) == 0 || working == 0 || done < models.MinPacketsPerCPU*working {
		return
	}
	fmt.Fprintf(buf, "starved: %s completed no %s in the measured interval, where the other flood CPUs completed %.0f each on average: they waited through all of it\n",
		strings.Join(starved, ", "), unit, float64(done)/float64(working))
}

// writePerfReport is the simulated perf report of some CPUs: each label's
// share of their cycles and its time per unit of work (n of them), by state.
func writePerfReport(buf *bytes.Buffer, title string, profile []models.LabelResult, n uint64, unit string) {
	fmt.Fprintf(buf, "\nsimulated perf report%s (cycles; work, stall and spin in ns per %s):\n", title, unit)
	tw := tabwriter.NewWriter(buf, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "  Overhead\tns/%s\twork ns\tstall ns\tspin ns\tSymbol\n", unit)
	per := float64(max(n, 1))
	for _, l := range profile {
		if l.CyclesPct == 0 {
			continue
		}
		fmt.Fprintf(tw, "  %6.2f%%\t%.2f\t%.2f\t%.2f\t%.2f\t%s\n", l.CyclesPct, l.NsPerPacket, l.WorkNs/per, l.StallNs/per, l.SpinNs/per, l.Label)
	}
	tw.Flush()
}

// writeC2C is the simulated perf c2c: how often each shared line moves, and
// how long requests for it queue; cross-socket moves when there are any.
func writeC2C(buf *bytes.Buffer, res *models.Result, unit string) {
	fmt.Fprintf(buf, "\nsimulated perf c2c (shared lines):\n")
	tw := tabwriter.NewWriter(buf, 0, 4, 2, ' ', 0)
	remote := false
	for _, l := range res.Lines {
		remote = remote || l.Remote > 0
	}
	head := fmt.Sprintf("  Line\ttransfers/%s\tHITM/%s\tqueue ns/%s\tmean queue ns\tbusy", unit, unit, unit)
	if remote {
		head += fmt.Sprintf("\tcross-socket/%s", unit)
	}
	fmt.Fprintln(tw, head)
	shared := 0
	for _, l := range res.Lines {
		if l.PerCPU {
			continue
		}
		shared++
		fmt.Fprintf(tw, "  %s\t%.3f\t%.3f\t%.2f\t%.2f\t%.1f%%", l.Name, l.TransfersPerPacket, l.HITMPerPacket, l.QueueNsPerPacket, l.MeanQueueNs, l.BusyPct)
		if remote {
			fmt.Fprintf(tw, "\t%.3f", float64(l.Remote)/float64(max(res.Packets, 1)))
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	if shared == 0 {
		fmt.Fprintf(buf, "  (no shared line was touched)\n")
	}
}

// writeBusyWhy says how loaded a line's home is, and what that means for a
// change: a line busy nearly all the time is the bottleneck; one whose
// requests wait far longer than its load explains gets them in bursts. The
// yardstick is the M/D/1 queue, evenly spread (Poisson) requests each
// holding the line for the line's mean busy time per transfer: they wait
// rho/(2(1-rho)) of that on average.
func writeBusyWhy(buf *bytes.Buffer, l models.LineResult, seconds float64) {
	rho := l.BusyPct / 100
	switch {
	case rho >= 0.9:
		fmt.Fprintf(buf, "  Its home is busy %.1f%% of the time: it is a bottleneck. A change that takes traffic off other\n", l.BusyPct)
		fmt.Fprintf(buf, "  lines only moves their waiting here.\n")
	case l.Transfers > 0 && l.MeanQueueNs > 0:
		service := rho * seconds * 1e9 / float64(l.Transfers)
		even := rho / (2 * (1 - rho)) * service
		if l.MeanQueueNs > 2*even {
			fmt.Fprintf(buf, "  Its home is busy %.1f%% of the time, yet a transfer waits %.1f ns, where evenly spread requests\n", l.BusyPct, l.MeanQueueNs)
			fmt.Fprintf(buf, "  at that load would wait %.1f (M/D/1): its requests come bunched, many CPUs asking at the same\n", even)
			fmt.Fprintf(buf, "  moments, and then it is saturated.\n")
			return
		}
		fmt.Fprintf(buf, "  Its home is busy %.1f%% of the time.\n", l.BusyPct)
	}
}

// writeLockWhy says what each lock taken costs: coherence traffic on its
// line when the line moves, else the atomic's latency that the core hides.
func writeLockWhy(buf *bytes.Buffer, prof cpu.Profile, res *models.Result, unit string) {
	lines := map[string]models.LineResult{}
	for _, l := range res.Lines {
		lines[l.Name] = l
	}
	for _, l := range res.Locks {
		if l.Acquisitions == 0 || res.Packets == 0 {
			continue
		}
		per := float64(l.Acquisitions) / float64(res.Packets)
		line := lines[l.Name]
		fmt.Fprintf(buf, "\nwhy: %s (%s) is taken %.2f times per %s; %d of %d acquisitions waited for a holder", l.Name, l.Kind, per, unit, l.Contended, l.Acquisitions)
		if l.Contended > 0 {
			// lock_stat's waittime-avg: the wait of a contended acquisition.
			fmt.Fprintf(buf, ", %.4g us each on average (mean_wait_%s)", l.WaitedNs/float64(l.Contended)/1e3, l.Name)
		}
		fmt.Fprintf(buf, ".\n")
		if l.Retries > 0 {
			fmt.Fprintf(buf, "  The queue head's cmpxchg of the word failed %.2f times per acquisition (a CPU queued between\n", float64(l.Retries)/float64(l.Acquisitions))
			fmt.Fprintf(buf, "  its read and the cmpxchg) and went round again; claim = \"store\" (Linux 4.2 on) takes it with a store.\n")
		}
		if line.TransfersPerPacket > 0.1 {
			fmt.Fprintf(buf, "  Its line moves between CPUs %.2f times per %s and waits %.1f ns per %s in the queue\n", line.TransfersPerPacket, unit, line.QueueNsPerPacket, unit)
			fmt.Fprintf(buf, "  of CPUs asking for it: the cost is coherence traffic on the lock word, which grows with the\n")
			fmt.Fprintf(buf, "  number of CPUs, not the %.2f ns of the atomic itself. A per-cpu or RCU design removes it.\n", prof.Atomic.Nanoseconds())
			if line.Remote > 0 {
				fmt.Fprintf(buf, "  %.2f of those transfers per %s cross sockets, at %.0f ns each instead of %.0f: the CPUs\n",
					float64(line.Remote)/float64(res.Packets), unit, prof.OtherSocket.Nanoseconds(), prof.SameSocket.Nanoseconds())
				fmt.Fprintf(buf, "  run on different sockets (see CPUs above); placement = \"compact\" keeps them on one.\n")
			}
			writeBusyWhy(buf, line, res.Seconds)
			continue
		}
		hidden := prof.AtomicOverlap * prof.Atomic.Nanoseconds()
		fmt.Fprintf(buf, "  The line stays in this CPU's cache. perf charges each acquisition the atomic's full latency\n")
		fmt.Fprintf(buf, "  (%.2f ns), but the out-of-order core runs the next %.2f ns of independent work under it\n", prof.Atomic.Nanoseconds(), hidden)
		fmt.Fprintf(buf, "  (atomic_overlap %.2f), and the unlock's store drains from the store buffer under later work\n", prof.AtomicOverlap)
		fmt.Fprintf(buf, "  (store_drain %.2f ns, which a tight lock/unlock loop pays every time). Removing the lock\n", prof.StoreDrain.Nanoseconds())
		fmt.Fprintf(buf, "  therefore saves about %.2f ns per acquisition, not the %.2f ns a tight-loop benchmark shows.\n",
			prof.Atomic.Nanoseconds()-hidden+prof.Cycles(1).Nanoseconds(), prof.Atomic.Nanoseconds()+prof.Cycles(1).Nanoseconds()+prof.StoreDrain.Nanoseconds())
	}
}

func isLock(res *models.Result, name string) bool {
	for _, l := range res.Locks {
		if l.Name == name {
			return true
		}
	}
	return false
}

// writeRCUWhy explains time spent waiting for grace periods and memory
// waiting to be freed: the latency of each kind of RCU call, the timeline
// of a typical synchronize_rcu phase by phase, and why. A workload that
// made RCU calls gets the section even when no grace period ran, with the
// reason.
func writeRCUWhy(buf *bytes.Buffer, w *models.World, res *models.Result) {
	r := res.RCU
	if r.GracePeriods == 0 && len(r.Calls) == 0 {
		return
	}
	k := w.K
	switch {
	case r.GracePeriods == 0 && k.Expedited:
		fmt.Fprintf(buf, "\nRCU (%s): no grace periods: [kernel] expedited = true makes every synchronize_rcu a\n", kernelName(k))
		fmt.Fprintf(buf, "  synchronize_rcu_expedited, which IPIs the busy CPUs rather than waiting for a grace period.\n")
	case r.GracePeriods == 0:
		fmt.Fprintf(buf, "\nRCU (%s): no grace period ended in the measured interval: the run is shorter than one; lengthen [run] duration.\n", kernelName(k))
	default:
		fmt.Fprintf(buf, "\nRCU (%s): %d grace periods, %.3f ms on average (p99 %.3f ms), %.2f callbacks each;\n", kernelName(k), r.GracePeriods, r.MeanGPMs, r.P99GPMs, r.CallbacksPerGP)
		fmt.Fprintf(buf, "  first force-quiescent-state scan after %d jiff%s (%.1f ms), then every %d; %d scans.\n", k.JiffiesTillFirstFQS, map[bool]string{true: "y", false: "ies"}[k.JiffiesTillFirstFQS == 1], float64(k.JiffiesTillFirstFQS)*w.Jiffy.Seconds()*1e3, k.JiffiesTillNextFQS, r.FQSScans)
		if r.KthreadHoldouts > 0 {
			fmt.Fprintf(buf, "  In %d of them the first scan found the kthread's own CPU (the last) still owed: its FQS\n", r.KthreadHoldouts)
			fmt.Fprintf(buf, "  timeout fired on a CPU whose tick ran (timer_pull), so no tick of its own reported it, and\n")
			fmt.Fprintf(buf, "  the grace period waited for the next scan; [kernel] kthread_qs = true reports it in rcu_gp_init.\n")
		}
	}
	if len(r.Calls) > 0 || r.GPLatency.Count > 0 {
		tw := tabwriter.NewWriter(buf, 0, 4, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "  latency\tcount\tmin ms\tmean ms\tp10 ms\tp50 ms\tp90 ms\tp99 ms\tmax ms\t\n")
		row := func(name string, l *models.Latency) {
			fmt.Fprintf(tw, "  %s\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t\n", name, l.Count, l.MinUs/1e3, l.MeanUs/1e3, l.P10Us/1e3, l.P50Us/1e3, l.P90Us/1e3, l.P99Us/1e3, l.MaxUs/1e3)
		}
		if r.GPLatency.Count > 0 {
			row("grace period", &r.GPLatency)
		}
		for i := range r.Calls {
			row(r.Calls[i].Call, &r.Calls[i].Latency)
		}
		tw.Flush()
		writeLatencyHistogram(buf, "grace period", &r.GPLatency)
		for i := range r.Calls {
			writeLatencyHistogram(buf, r.Calls[i].Call, &r.Calls[i].Latency)
		}
	}
	if len(r.Timeline) > 0 {
		fmt.Fprintf(buf, "timeline of a typical synchronize_rcu (mean of each phase):\n")
		tw := tabwriter.NewWriter(buf, 0, 4, 2, ' ', 0)
		for i, p := range r.Timeline {
			fmt.Fprintf(tw, "  %s\t%8.3f ms\t%s\n", p.Phase, p.MeanUs/1e3, phaseWhy(k, i))
		}
		tw.Flush()
	}
	if b := res.Batch; b != nil {
		for _, oc := range b.OffCPU {
			if oc.Label != "synchronize_rcu" || b.Ops == 0 {
				continue
			}
			fmt.Fprintf(buf, "why: every operation sleeps in synchronize_rcu for %.2f ms: the phases above are set by\n", 1e3*oc.Seconds/float64(b.Ops))
			fmt.Fprintf(buf, "  jiffies, not by the CPU: utilization is %.1f%%. Deferring the free (call_rcu, kfree_rcu,\n", 100*b.CPUUtil)
			fmt.Fprintf(buf, "  queue_rcu_work) removes the wait; synchronize_rcu_expedited shortens it to wake-ups and IPIs.\n")
		}
	}
	if r.PendingBytesMax > 0 {
		fmt.Fprintf(buf, "deferred frees: up to %.0f bytes waited for a grace period (%.0f on average), %d bytes freed.\n", r.PendingBytesMax, r.PendingBytesMean, r.FreedBytes)
	}
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

// WriteTrace lists the first line transfers of the measured interval, in
// the order the homes served them: the chain behind a hand-over, step by step.
func WriteTrace(buf *bytes.Buffer, trace []models.Transfer, n int, from time.Duration, only []string) {
	what, when := "lines", "in"
	switch len(only) {
	case 0:
	case 1:
		what = "line " + only[0]
	default:
		what = "lines " + strings.Join(only, ", ")
	}
	if from > 0 {
		when = fmt.Sprintf("from %v into", from)
	}
	fmt.Fprintf(buf, "\ncoherence trace: the first %d transfers of %s %s the measured interval (asked: ns from its start;\n", len(trace), what, when)
	fmt.Fprintf(buf, "queued: waiting for the line's home; transfer: from then until the line came; from: who served it;\n")
	fmt.Fprintf(buf, "hitm: the line was modified in another CPU's cache)\n")
	if len(trace) == 0 {
		fmt.Fprintf(buf, "  (no line moved between CPUs)\n")
		return
	}
	if len(trace) < n {
		fmt.Fprintf(buf, "  (%d asked for; that is all there were)\n", n)
	}
	tw := tabwriter.NewWriter(buf, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "  asked\tqueued\ttransfer\tcpu\tsymbol\tline\top\tfrom\thitm\n")
	for _, t := range trace {
		sym, hitm := t.Symbol, "-"
		if sym == "" {
			sym = "(spin re-read)"
		}
		if t.HITM {
			hitm = "HITM"
		}
		fmt.Fprintf(tw, "  %.1f\t%.1f\t%.1f\t%d\t%s\t%s\t%s\t%s\t%s\n", t.AskedNs, t.QueuedNs, t.TransferNs, t.CPU, sym, t.Line, t.Op, t.From, hitm)
	}
	tw.Flush()
}

// writeLatencyHistogram draws a latency distribution as bpftrace's hist()
// does: one row per power-of-two bucket of milliseconds, a bar of @.
func writeLatencyHistogram(buf *bytes.Buffer, name string, l *models.Latency) {
	if l.Count < 2 {
		return
	}
	var most uint64
	for _, b := range l.Histogram {
		most = max(most, b.Count)
	}
	fmt.Fprintf(buf, "%s latency, ms:\n", name)
	tw := tabwriter.NewWriter(buf, 0, 4, 1, ' ', 0)
	for _, b := range l.Histogram {
		bar := int((b.Count*40 + most - 1) / most)
		fmt.Fprintf(tw, "  [%g, %g)\t%d\t|%-40s|\n", b.LoUs/1e3, b.HiUs/1e3, b.Count, strings.Repeat("@", bar))
	}
	tw.Flush()
}

// simTime writes a simulated span in the unit that gives it a few digits.
func simTime(seconds float64) string {
	return time.Duration(seconds * 1e9).Round(time.Microsecond).String()
}
