package cpu_test

import (
	"fmt"
	"testing"

	"contend/cacheline"
	"contend/cpu"
	"contend/sim"
)

// Seed 003's puzzle: an atomic on an owned line costs Atomic in a tight loop,
// but out-of-order execution hides AtomicOverlap of it behind the work that
// follows, so a path [RMW, compute D] takes D + Atomic·(1-overlap), never less
// than Atomic. perf still charges the full Atomic to the atomic's symbol, and
// only what remains of D to the work after it.
func TestAtomicOverlap(t *testing.T) {
	const atomic = 12 * sim.Nanosecond
	for _, tc := range []struct {
		name    string
		overlap float64
		d       sim.Time // compute after the RMW; 0 for none
		period  sim.Time // per iteration, worked out by hand
		work    sim.Time // compute charged per iteration
	}{
		{"tight loop", 0.5, 0, atomic, 0},
		{"no overlap", 0, 40 * sim.Nanosecond, 52 * sim.Nanosecond, 40 * sim.Nanosecond},
		{"half", 0.5, 40 * sim.Nanosecond, 46 * sim.Nanosecond, 34 * sim.Nanosecond},
		{"full", 1, 40 * sim.Nanosecond, 40 * sim.Nanosecond, 28 * sim.Nanosecond},
		{"work shorter than the shadow", 0.5, 4 * sim.Nanosecond, atomic, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := testProfile()
			p.Atomic, p.AtomicOverlap = atomic, tc.overlap
			m := newMachine(t, p, 1)
			rmw, work := m.Label("atomic_inc"), m.Label("ip_rcv")
			steps := []cpu.Step{&cpu.AccessStep{Label: rmw, Line: newLine(t, m, "refcnt", false), Op: cacheline.RMW}}
			if tc.d > 0 {
				steps = append(steps, &cpu.ComputeStep{Label: work, D: tc.d})
			}
			startAll(m, &cpu.Program{Name: "pkt", Steps: steps}, []int{0})
			// The first RMW fetches the line from memory; from then on cpu 0
			// owns it and iteration k ends at Memory + k·period. Measure
			// 20000 whole periods.
			const n = 20000
			run(t, m, p.Memory+100*tc.period, p.Memory+(100+n)*tc.period)
			c := m.Cores()[0]
			if c.Completed != n {
				t.Errorf("%d iterations in %d periods of %v, want %d", c.Completed, n, tc.period, n)
			}
			if got, want := c.Time(rmw, cpu.Work), n*atomic; got != want {
				t.Errorf("atomic_inc charged %v, want %d × Atomic = %v", got, n, want)
			}
			if got, want := c.Time(work, cpu.Work), n*tc.work; got != want {
				t.Errorf("ip_rcv charged %v, want %d × %v = %v", got, n, tc.work, want)
			}
			if got := c.Time(rmw, cpu.Stall); got != 0 {
				t.Errorf("an owned line stalled the core for %v", got)
			}
		})
	}
}

// Two cores each add to one counter and then work for D, long enough that
// they never ask for the line at once: every atomic waits one transfer T for
// the line the other core took. The share AtomicOverlap of the atomic's
// execution runs under the work, and of the wait for the line only the
// share MissOverlap, as far as the reorder window reaches (DefaultReorderReach
// cycles): an iteration takes T + Atomic + D - overlap·Atomic with the
// default MissOverlap of 0 (calibrate's add-work50 at two threads costs the
// work and a transfer on the Intel guest), and T + Atomic + D - min(m·T,
// reach) with MissOverlap m and no AtomicOverlap (the Zen 4 guest's costs
// about the work).
func TestAtomicMissOverlap(t *testing.T) {
	const d = 400 * sim.Nanosecond
	for _, tc := range []struct{ overlap, miss float64 }{{0, 0}, {0.5, 0}, {1, 0}, {0, 0.5}, {0, 1}} {
		t.Run(fmt.Sprintf("overlap %v miss %v", tc.overlap, tc.miss), func(t *testing.T) {
			p := testProfile()
			p.Atomic, p.AtomicOverlap, p.MissOverlap = 6*sim.Nanosecond, tc.overlap, tc.miss
			m := newMachine(t, p, 1)
			steps := []cpu.Step{
				&cpu.AccessStep{Label: m.Label("atomic_inc"), Line: newLine(t, m, "counter", false), Op: cacheline.RMW},
				&cpu.ComputeStep{Label: m.Label("work"), D: d},
			}
			startAll(m, &cpu.Program{Name: "pkt", Steps: steps}, []int{0, 1})
			run(t, m, 10*sim.Microsecond, 1010*sim.Microsecond)
			tr := p.Latencies()[cacheline.SameSocket]
			hidden := sim.Time(tc.overlap*float64(p.Atomic)) + min(sim.Time(tc.miss*float64(tr)), p.Cycles(cpu.DefaultReorderReach))
			period := tr + p.Atomic + d - hidden
			if got, want := rate(m), 2*perSecond(period); !within(got, want, 0.01) {
				t.Errorf("%.4g iterations/s, want 2/(T + Atomic + D - %v) = %.4g", got, hidden, want)
			}
		})
	}
}

// With RunAhead the work after a waiting atomic hides that share of itself
// in the wait, as far as the reorder window reaches and no longer than the
// wait: the same two cores, no AtomicOverlap, take T + Atomic + D -
// min(r·D, reach, T) an iteration, whatever MissOverlap says.
func TestAtomicRunAhead(t *testing.T) {
	for _, tc := range []struct {
		d     sim.Time
		share float64
		reach float64 // cycles
	}{{20 * sim.Nanosecond, 0.6, 0}, {400 * sim.Nanosecond, 0.6, 0}, {400 * sim.Nanosecond, 0.05, 1000}, {400 * sim.Nanosecond, 0.1, 1000}, {400 * sim.Nanosecond, 1, 5000}} {
		t.Run(fmt.Sprintf("D %v share %v reach %v", tc.d, tc.share, tc.reach), func(t *testing.T) {
			p := testProfile()
			p.Atomic, p.RunAhead, p.ReorderReach, p.MissOverlap = 6*sim.Nanosecond, tc.share, tc.reach, 0.01
			m := newMachine(t, p, 1)
			steps := []cpu.Step{
				&cpu.AccessStep{Label: m.Label("atomic_inc"), Line: newLine(t, m, "counter", false), Op: cacheline.RMW},
				&cpu.ComputeStep{Label: m.Label("work"), D: tc.d},
			}
			startAll(m, &cpu.Program{Name: "pkt", Steps: steps}, []int{0, 1})
			run(t, m, 10*sim.Microsecond, 1010*sim.Microsecond)
			tr := p.Latencies()[cacheline.SameSocket]
			reach := p.Cycles(cpu.DefaultReorderReach)
			if tc.reach > 0 {
				reach = p.Cycles(tc.reach)
			}
			hidden := min(sim.Time(tc.share*float64(tc.d)), reach, tr)
			period := tr + p.Atomic + tc.d - hidden
			if tc.d < tr {
				// Short work: the cores ask for the line at once and
				// queue behind each other; only the rate's bound holds.
				period = max(period, 2*(tr+p.Atomic))
				if got, want := rate(m), 2*perSecond(period); got > want*1.01 {
					t.Errorf("%.4g iterations/s, more than the line allows, %.4g", got, want)
				}
				return
			}
			if got, want := rate(m), 2*perSecond(period); !within(got, want, 0.01) {
				t.Errorf("%.4g iterations/s, want 2/(T + Atomic + D - %v) = %.4g", got, hidden, want)
			}
		})
	}
}

// smp_mb() is a locked instruction on a line the core owns (x86 Linux adds
// 0 to the stack with LOCK): after a store to a line another core keeps
// taking, it waits for that store exactly as an atomic on a per-cpu line
// would, and runs at the same rate.
func TestFenceIsALockedInstruction(t *testing.T) {
	rates := map[string]float64{}
	for _, name := range []string{"smp_mb", "atomic"} {
		p := testProfile()
		p.Atomic = 8 * sim.Nanosecond
		m := newMachine(t, p, 1)
		shared := newLine(t, m, "flag", false)
		fence := cpu.Step(&cpu.FenceStep{Label: m.Label("smp_mb")})
		if name == "atomic" {
			fence = &cpu.AccessStep{Label: m.Label("smp_mb"), Line: newLine(t, m, "stack", true), Op: cacheline.RMW}
		}
		steps := []cpu.Step{&cpu.AccessStep{Label: m.Label("store"), Line: shared, Op: cacheline.Store}, fence}
		startAll(m, &cpu.Program{Name: "pkt", Steps: steps}, []int{0, 1})
		run(t, m, 10*sim.Microsecond, 1010*sim.Microsecond)
		rates[name] = rate(m)
		if got := m.Cores()[0].Time(m.Label("smp_mb"), cpu.Stall) + m.Cores()[0].Time(m.Label("smp_mb"), cpu.Work); got < sim.Microsecond {
			t.Errorf("%s: the barrier took %v in 1 ms; it must wait for the store's line", name, got)
		}
	}
	if !within(rates["smp_mb"], rates["atomic"], 0.001) || rates["smp_mb"] <= 0 {
		t.Errorf("smp_mb runs %.4g a second, an atomic on a per-cpu line %.4g", rates["smp_mb"], rates["atomic"])
	}
}

// An atomic asks for its line while the stores before it drain: after a
// store that misses to memory, an atomic on another cold line waits for the
// later of the two, one memory latency, not for both in turn. (Another
// core spinning on the atomic's line would take it back; the lock tests
// cover that case.)
func TestAtomicFetchesWhileStoresDrain(t *testing.T) {
	p := testProfile()
	m := newMachine(t, p, 1)
	st, rmw := m.Label("store"), m.Label("atomic")
	startAll(m, &cpu.Program{Name: "p", Steps: []cpu.Step{
		&cpu.AccessStep{Label: st, Line: newLine(t, m, "a", false), Op: cacheline.Store},
		&cpu.AccessStep{Label: rmw, Line: newLine(t, m, "b", false), Op: cacheline.RMW},
		&cpu.ComputeStep{Label: m.Label("work"), D: sim.Microsecond},
	}}, []int{0})
	// Up to just after the atomic is issued: its wait is charged then.
	run(t, m, 0, 2*sim.Nanosecond)
	c := m.Cores()[0]
	// A line comes from memory in Memory less the L1 hit a load adds on
	// top (Profile.Latencies).
	got, fetch := c.Time(rmw, cpu.Stall)+c.Time(rmw, cpu.Work), p.Memory-p.L1Hit
	if got != fetch {
		t.Errorf("the atomic waited %v after a store miss, want one fetch from memory, %v (both in turn: %v)", got, fetch, 2*fetch)
	}
}

// A store right after an atomic asks for its line while the atomic waits
// for its own: after an atomic on a cold line, a store to another cold line
// has its line when the atomic has executed, not one fetch later; so does a
// store behind a little work, within the reorder window. A store behind
// more work than the window holds, or behind a load, asks when it executes.
func TestStoreAfterAtomicAsksMeanwhile(t *testing.T) {
	p := testProfile()
	fetch := p.Memory - p.L1Hit
	reach := p.Cycles(cpu.DefaultReorderReach)
	for _, tc := range []struct {
		name  string
		gap   sim.Time // work between the atomic and the store
		load  bool     // a load of an owned line between them
		lands sim.Time
	}{
		{"next", 0, false, fetch},
		{"after a little work", 10 * sim.Nanosecond, false, fetch + 10*sim.Nanosecond},
		{"after much work", reach + sim.Nanosecond, false, fetch + reach + sim.Nanosecond + fetch},
		{"after a load", 0, true, fetch + p.L1Hit + fetch},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newMachine(t, p, 1)
			own := newLine(t, m, "own", true)
			steps := []cpu.Step{&cpu.AccessStep{Label: m.Label("atomic"), Line: newLine(t, m, "a", false), Op: cacheline.RMW}}
			if tc.gap > 0 {
				steps = append(steps, &cpu.ComputeStep{Label: m.Label("gap"), D: tc.gap})
			}
			if tc.load {
				steps = append(steps, &cpu.AccessStep{Label: m.Label("load"), Line: own, Op: cacheline.Load})
			}
			steps = append(steps,
				&cpu.AccessStep{Label: m.Label("store"), Line: newLine(t, m, "b", false), Op: cacheline.Store},
				&cpu.ComputeStep{Label: m.Label("work"), D: sim.Microsecond})
			startAll(m, &cpu.Program{Name: "p", Steps: steps}, []int{0})
			run(t, m, 0, 900*sim.Nanosecond)
			if got := m.Cores()[0].LastStoreLands(); got != tc.lands {
				t.Errorf("the store had its line at %v, want %v", got, tc.lands)
			}
		})
	}
}

// A load of the word the atomic before it wrote returns LoadAfterAtomic
// after that atomic, unhidden, and the work after it waits with it: a loop
// [load L, RMW L, compute D] takes Atomic + LoadAfterAtomic + D, where with
// LoadAfterAtomic 0 the load hits in the atomic's shadow (Atomic + D, less
// what the shadow hides of D). A load of another line is not held.
func TestLoadAfterAtomic(t *testing.T) {
	const atomic, after, d = 12 * sim.Nanosecond, 5 * sim.Nanosecond, 20 * sim.Nanosecond
	for _, tc := range []struct {
		name   string
		after  sim.Time
		other  bool     // the load is of another line
		period sim.Time // worked out by hand
	}{
		{"held", after, false, atomic + after + d},
		{"not given", 0, false, atomic + d - atomic/2},
		{"another line", after, true, atomic + d - atomic/2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := testProfile()
			p.Atomic, p.AtomicOverlap, p.LoadAfterAtomic = atomic, 0.5, tc.after
			p.L1Hit = sim.Nanosecond
			m := newMachine(t, p, 1)
			ctr := newLine(t, m, "counter", false)
			loaded := ctr
			if tc.other {
				loaded = newLine(t, m, "limit", false)
			}
			read, inc, work := m.Label("atomic_read"), m.Label("atomic_inc"), m.Label("work")
			steps := []cpu.Step{
				&cpu.AccessStep{Label: read, Line: loaded, Op: cacheline.Load},
				&cpu.ComputeStep{Label: work, D: d},
				&cpu.AccessStep{Label: inc, Line: ctr, Op: cacheline.RMW},
			}
			startAll(m, &cpu.Program{Name: "dst_alloc", Steps: steps}, []int{0})
			const n = 20000
			run(t, m, 2*p.Memory+100*tc.period, 2*p.Memory+(100+n)*tc.period)
			c := m.Cores()[0]
			if c.Completed < n-1 || c.Completed > n+1 {
				t.Errorf("%d iterations in %d periods of %v, want %d", c.Completed, n, tc.period, n)
			}
			if tc.after > 0 && !tc.other {
				if got, want := c.Time(read, cpu.Stall), sim.Time(c.Completed)*after; got < want*99/100 || got > want*101/100 {
					t.Errorf("atomic_read stalled %v, want %d × %v", got, c.Completed, after)
				}
			}
		})
	}
}

// A store to the line the atomic before it wrote commits StoreAfterAtomic
// after that atomic, and the next atomic waits for it: a loop [RMW L,
// store L] takes Atomic + StoreAfterAtomic where that is longer than the
// store's cycle and drain, and Atomic + a cycle + StoreDrain otherwise, or
// when the store is to another line (the store-add loop).
func TestStoreAfterAtomic(t *testing.T) {
	const atomic, drain = 12 * sim.Nanosecond, 1 * sim.Nanosecond
	cycle := sim.Time(400) // a cycle at testProfile's 2.5 GHz, in ps
	for _, tc := range []struct {
		name   string
		after  sim.Time
		other  bool     // the store is to another line
		period sim.Time // worked out by hand
	}{
		{"held", 5 * sim.Nanosecond, false, atomic + 5*sim.Nanosecond},
		{"not given", 0, false, atomic + cycle + drain},
		{"shorter than the drain", cycle / 2, false, atomic + cycle + drain},
		{"another line", 5 * sim.Nanosecond, true, atomic + cycle + drain},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := testProfile()
			p.Atomic, p.AtomicOverlap, p.StoreDrain, p.StoreAfterAtomic = atomic, 0.5, drain, tc.after
			m := newMachine(t, p, 1)
			lock := newLine(t, m, "lock", false)
			stored := lock
			if tc.other {
				stored = newLine(t, m, "flag", false)
			}
			steps := []cpu.Step{
				&cpu.AccessStep{Label: m.Label("cmpxchg"), Line: lock, Op: cacheline.RMW},
				&cpu.AccessStep{Label: m.Label("unlock"), Line: stored, Op: cacheline.Store},
			}
			startAll(m, &cpu.Program{Name: "lock", Steps: steps}, []int{0})
			const n = 20000
			run(t, m, 2*p.Memory+100*tc.period, 2*p.Memory+(100+n)*tc.period)
			if got := m.Cores()[0].Completed; got < n-1 || got > n+1 {
				t.Errorf("%d iterations in %d periods of %v, want %d", got, n, tc.period, n)
			}
		})
	}
}
