package scenarios_test

import (
	"fmt"
	"math"
	"testing"

	"contend/models"
	"contend/scenarios"
)

// consistent checks what a result says against itself: shares add up to the
// whole, parts never exceed what they are parts of, a minimum is at most the
// mean and the quantiles above it, no count or time is negative. A report
// that contradicts itself (a synchronize_rcu minimum above its mean, once)
// is wrong whatever the model.
func consistent(r *models.Result) error {
	var errs []string
	bad := func(format string, a ...any) { errs = append(errs, fmt.Sprintf(format, a...)) }
	nonneg := func(what string, vs ...float64) {
		for _, v := range vs {
			if v < 0 || math.IsNaN(v) {
				bad("%s is %v", what, v)
			}
		}
	}
	nonneg("seconds, pps or pps per core", r.Seconds, r.PPS, r.PPSPerCore)
	if r.Dropped > r.Offered {
		bad("%d dropped of %d offered", r.Dropped, r.Offered)
	}
	total := 0.0
	for _, l := range r.Profile {
		nonneg("profile "+l.Label, l.WorkNs, l.StallNs, l.SpinNs, l.SleepNs, l.CyclesPct, l.NsPerPacket, l.OffCPUPerOpNs)
		total += l.CyclesPct
	}
	if total != 0 && math.Abs(total-100) > 0.01 {
		bad("the perf report's shares add up to %.4f%%", total)
	}
	var flood uint64
	nflood := 0
	for _, c := range r.Cores {
		nonneg(fmt.Sprintf("cpu %d's pps or busy", c.CPU), c.PPS, c.Busy)
		if c.Busy > 1+1e-9 {
			bad("cpu %d busy %v of the interval", c.CPU, c.Busy)
		}
		if c.Role == "flood" {
			flood += c.Packets
			nflood++
		}
	}
	if nflood > 0 {
		if flood != r.Packets {
			bad("the flood CPUs' packets add up to %d of %d", flood, r.Packets)
		}
		if r.Seconds > 0 && math.Abs(r.PPS-float64(r.Packets)/r.Seconds) > 1e-6*r.PPS+1e-9 {
			bad("pps %v for %d packets in %v s", r.PPS, r.Packets, r.Seconds)
		}
		if math.Abs(r.PPSPerCore*float64(nflood)-r.PPS) > 1e-6*r.PPS+1e-9 {
			bad("pps per core %v on %d CPUs, pps %v", r.PPSPerCore, nflood, r.PPS)
		}
	}
	for _, l := range r.Lines {
		var by uint64
		for _, n := range l.TransfersByCPU {
			by += n
		}
		switch {
		case l.HITM > l.Transfers || l.Remote > l.Transfers || l.Transfers > l.Accesses:
			bad("line %s: %d HITM, %d remote, %d transfers, %d accesses", l.Name, l.HITM, l.Remote, l.Transfers, l.Accesses)
		case by != l.Transfers:
			bad("line %s: transfers by CPU add up to %d of %d", l.Name, by, l.Transfers)
		case l.BusyPct < 0 || l.BusyPct > 100:
			bad("line %s busy %v%%", l.Name, l.BusyPct)
		case l.MeanQueueNs > l.MaxQueueNs+1e-9:
			bad("line %s: mean queue %v ns above its longest, %v", l.Name, l.MeanQueueNs, l.MaxQueueNs)
		}
		nonneg("line "+l.Name+"'s queue", l.QueueNsPerPacket, l.MeanQueueNs, l.MaxQueueNs)
	}
	for _, l := range r.Locks {
		if l.Contended > l.Acquisitions {
			bad("lock %s: %d of %d acquisitions contended", l.Name, l.Contended, l.Acquisitions)
		}
	}
	rc := r.RCU
	if rc.GracePeriods > 0 && (rc.MeanGPMs > rc.MaxGPMs+1e-9 || rc.P99GPMs > rc.MaxGPMs+1e-9) {
		bad("grace periods: mean %v, p99 %v, max %v ms", rc.MeanGPMs, rc.P99GPMs, rc.MaxGPMs)
	}
	nonneg("pending bytes", rc.PendingBytesMean, rc.PendingBytesMax)
	if rc.PendingBytesMean > rc.PendingBytesMax+1e-6 {
		bad("pending bytes: mean %v above max %v", rc.PendingBytesMean, rc.PendingBytesMax)
	}
	for _, c := range rc.Calls {
		ok := c.MinUs <= c.MeanUs+1e-6 && c.MeanUs <= c.MaxUs+1e-6 &&
			c.MinUs <= c.P50Us && c.P50Us <= c.P99Us && c.P99Us <= c.MaxUs
		if c.Count > 0 && !ok {
			bad("%s latency: min %v, mean %v, p50 %v, p99 %v, max %v µs", c.Call, c.MinUs, c.MeanUs, c.P50Us, c.P99Us, c.MaxUs)
		}
	}
	if b := r.Batch; b != nil {
		nonneg("the batch's times", b.Seconds, b.CPUSeconds, b.MeanOpUs, b.P99OpUs)
		if b.CPUUtil < 0 || b.CPUUtil > 1+1e-9 {
			bad("batch CPU utilization %v", b.CPUUtil)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%d contradictions: %v", len(errs), errs)
	}
	return nil
}

// Every built-in variant, at its series' first reference point, reports a
// result that does not contradict itself.
func TestBuiltinResultsConsistent(t *testing.T) {
	for _, name := range scenarios.BuiltinNames() {
		s, err := scenarios.LoadBuiltin(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, se := range s.Series {
			for _, v := range se.Variants {
				p := scenarios.Point{Series: se, Variant: v, Seed: s.Run.Seed}
				if len(se.Refs) > 0 {
					p = s.RefPoint(se, se.Refs[0], s.Run.Seed, nil)
					p.Variant = v
				}
				r, err := s.Simulate(p)
				if err != nil {
					t.Errorf("%s %s %s: %v", name, se.Name, v, err)
					continue
				}
				if err := consistent(r); err != nil {
					t.Errorf("%s %s %s at %s=%v: %v", name, se.Name, v, p.Axis, p.X, err)
				}
				if err := accounted(r); err != nil {
					t.Errorf("%s %s %s at %s=%v: %v", name, se.Name, v, p.Axis, p.X, err)
				}
			}
		}
	}
}

// accounted checks that the simulated perf reports account for the CPUs'
// time. The flood's: its ns per packet, added over symbols, are the flood
// CPUs' on-CPU time over the packets they completed, within 1% (a packet
// under way when the interval ends is counted in the time, not in the
// packets); only for a flood long enough for that to be small, so not under
// fuzzing. The batch CPU's, when a flood runs beside it: its symbols' time
// adds up to the batch's CPU seconds.
func accounted(r *models.Result) error {
	if b := r.Batch; b != nil && len(b.Profile) > 0 {
		var sum float64
		for _, l := range b.Profile {
			sum += l.WorkNs + l.StallNs + l.SpinNs
		}
		if want := b.CPUSeconds * 1e9; math.Abs(sum-want) > 1e-6*want+1 {
			return fmt.Errorf("the batch CPU's perf report adds up to %.0f ns on-CPU; the batch was on-CPU %.0f ns", sum, want)
		}
	}
	if r.Batch != nil || r.Packets < 1000 {
		return nil
	}
	var on, sum float64
	for _, c := range r.Cores {
		if c.Role == "flood" {
			on += c.Busy * r.Seconds * 1e9
		}
	}
	for _, l := range r.Profile {
		sum += l.NsPerPacket
	}
	if want := on / float64(r.Packets); math.Abs(sum-want) > 0.01*want {
		return fmt.Errorf("the perf report gives %.2f ns a packet; the flood CPUs were on-CPU %.2f ns a packet", sum, want)
	}
	return nil
}
