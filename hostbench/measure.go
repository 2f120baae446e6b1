package hostbench

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"
)

// Stat summarises the samples of one figure.
type Stat struct {
	Median float64 `json:"median"`
	Q1     float64 `json:"q1"`
	Q3     float64 `json:"q3"`
	N      int     `json:"n"`
}

// Summarize returns the median and quartiles of xs, interpolating between
// order statistics (Hyndman and Fan's type 7, the default of R and NumPy).
func Summarize(xs []float64) Stat {
	if len(xs) == 0 {
		return Stat{}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	q := func(p float64) float64 {
		h := p * float64(len(s)-1)
		i := int(h)
		if i+1 >= len(s) {
			return s[i]
		}
		return s[i] + (h-float64(i))*(s[i+1]-s[i])
	}
	return Stat{Median: q(0.5), Q1: q(0.25), Q3: q(0.75), N: len(s)}
}

// IQRPct is the interquartile range as a percentage of the median.
func (s Stat) IQRPct() float64 {
	if s.Median == 0 {
		return 0
	}
	return 100 * (s.Q3 - s.Q1) / s.Median
}

// Effort says how long to measure.
type Effort struct {
	Samples int           // samples per figure
	Sample  time.Duration // target length of one sample
}

// Quick and Full are the efforts of calibrate --quick and of a full run.
var (
	Quick = Effort{Samples: 31, Sample: 2 * time.Millisecond}
	Full  = Effort{Samples: 61, Sample: 10 * time.Millisecond}
)

// Measure returns the nanoseconds per iteration of job, per thread: it sizes
// a sample (size) and takes e.Samples of them.
func Measure(m Machine, job Job, e Effort) (Stat, []float64, error) {
	iters, err := size(m, job, e)
	if err != nil {
		return Stat{}, nil, err
	}
	samples := make([]float64, 0, e.Samples)
	for range e.Samples {
		x, err := sample(m, job, iters)
		if err != nil {
			return Stat{}, nil, err
		}
		samples = append(samples, x)
	}
	return Summarize(samples), samples, nil
}

// size returns how many iterations of job make a sample of e: it doubles the
// count until a run lasts an eighth of a sample (which also warms caches,
// branch predictors and the clock) and scales from that.
func size(m Machine, job Job, e Effort) (int, error) {
	if job.Kernel == RMWWork {
		// What it times is what the work hid, a small part of an
		// iteration and none of it on a core whose work waits: sized
		// by its atomic timed alone instead, a third of the count,
		// since an iteration holds two such atomics and the work.
		n, err := size(m, Job{Kernel: RMWModified, CPUs: job.CPUs}, e)
		return max(1, n/3), err
	}
	iters := 16
	var d time.Duration
	for {
		var err error
		if d, err = m.Run(job, iters); err != nil {
			return 0, err
		}
		if d >= e.Sample/8 || iters >= 1<<40 {
			break
		}
		iters *= 2
	}
	if d > 0 {
		iters = max(1, int(float64(iters)*float64(e.Sample)/float64(d)))
	}
	return iters, nil
}

// sample runs iters iterations of job and returns nanoseconds per iteration.
func sample(m Machine, job Job, iters int) (float64, error) {
	d, err := m.Run(job, iters)
	if err != nil {
		return 0, err
	}
	return float64(d.Nanoseconds()) / float64(iters), nil
}

// Figure is one measured quantity.
type Figure struct {
	Name    string    `json:"name"` // e.g. "pingpong same_llc"
	Job     Job       `json:"-"`
	Bench   string    `json:"bench"` // the job, as text
	Stat    Stat      `json:"ns_per_op"`
	Samples []float64 `json:"samples_ns"`
	// Moved counts the samples of a contended loop left out because a
	// ping-pong measured beside them said the machine was not where its
	// first ping-pong was (measurePlaced).
	Moved int `json:"moved_samples,omitempty"`
}

// Plan lists the figures to measure on a topology, in a fixed order.
func Plan(t Topology, m Machine) []Figure {
	if len(t.CPUs) == 0 {
		return nil
	}
	cpu0 := []int{t.CPUs[0].ID}
	all := make([]int, len(t.CPUs))
	for i, c := range t.CPUs {
		all[i] = c.ID
	}
	var out []Figure
	add := func(name string, j Job) {
		if m.Supports(j.Kernel) {
			out = append(out, Figure{Name: name, Job: j})
		}
	}
	pairs := t.Pairs()
	sim, _, simOK := pairFor(t, func(c PairClass) bool { _, ok := pairs[c]; return ok })
	// A contended loop is preceded by the ping-pong of the pair the model
	// simulates, so that the check can compare it with the machine it ran
	// on, should the machine change meanwhile (followDrift).
	contended := func(name string, j Job) {
		if simOK {
			p := pairs[sim]
			add(pingpongOf(sim)+before+name, Job{Kernel: PingPong, CPUs: p[:]})
		}
		add(name, j)
	}
	add("work10", Job{Kernel: Work, CPUs: cpu0, Work: 10})
	add("work50", Job{Kernel: Work, CPUs: cpu0, Work: 50})
	add("add", Job{Kernel: Add, CPUs: cpu0})
	add("cas", Job{Kernel: CAS, CPUs: cpu0})
	add("swap", Job{Kernel: Swap, CPUs: cpu0})
	add("add-work10", Job{Kernel: Add, CPUs: cpu0, Work: 10})
	add("add-work50", Job{Kernel: Add, CPUs: cpu0, Work: 50})
	add("store-add", Job{Kernel: StoreAdd, CPUs: cpu0})
	add("add-store-line", Job{Kernel: AddStoreLine, CPUs: cpu0})
	add("shared-load-add x1", Job{Kernel: SharedLoadAdd, CPUs: cpu0})
	add("l1-load", Job{Kernel: Chase, CPUs: cpu0, Bytes: 16 << 10})
	add("llc-load", Job{Kernel: Chase, CPUs: cpu0, Bytes: 4 << 20})
	add("memory-load", Job{Kernel: Chase, CPUs: cpu0, Bytes: 64 << 20})
	add("pause", Job{Kernel: Pause, CPUs: cpu0})
	for c := SMTSibling; c <= OtherSocket; c++ {
		if p, ok := pairs[c]; ok {
			add("pingpong "+c.String(), Job{Kernel: PingPong, CPUs: p[:]})
			if simOK && c == sim {
				// Kept to the first ping-pong's placement as a
				// contended loop is: its ratio to the ping-pong beside
				// it says what a load of a modified line does.
				contended(pingpongCASOf(c), Job{Kernel: PingPongCAS, CPUs: p[:]})
			} else {
				add(pingpongCASOf(c), Job{Kernel: PingPongCAS, CPUs: p[:]})
			}
			// One access of each kind timed alone, the per-state
			// latencies of SOSP'13's tables: a load of a line the
			// other CPU modified, an atomic on it, and an atomic on
			// a line both read (the upgrade).
			for _, k := range []Kernel{LoadModified, RMWModified, RMWShared} {
				j := Job{Kernel: k, CPUs: p[:]}
				if simOK && c == sim {
					contended(transactionOf(k, c), j)
				} else {
					add(transactionOf(k, c), j)
				}
			}
			// How much of the work after a waiting atomic runs in
			// its wait: a short stretch, which the reorder window
			// holds (the share of the work, run_ahead), and a long
			// one, which it does not (the window, reorder_reach).
			if simOK && c == sim {
				for _, w := range hiddenWork {
					contended(hiddenOf(w, c), Job{Kernel: RMWWork, CPUs: p[:], Work: w})
				}
			}
		}
	}
	if len(all) >= 2 {
		add("wakeup", Job{Kernel: Wakeup, CPUs: all[:2]})
	}
	for n := 1; n < len(all); n++ {
		// The first is kept to the first ping-pong's placement: its
		// ratio to the ping-pong beside it can say what a load of a
		// modified line does (loadModified).
		if n == 1 {
			contended(fmt.Sprintf("readers x%d", n), Job{Kernel: Readers, CPUs: all[:n+1]})
			continue
		}
		add(fmt.Sprintf("readers x%d", n), Job{Kernel: Readers, CPUs: all[:n+1]})
	}
	for n := 2; n <= len(all); n++ {
		cpus := all[:n]
		for _, w := range []int{0, 10, 50} {
			contended(fmt.Sprintf("shared-add%s x%d", workSuffix(w), n), Job{Kernel: SharedAdd, CPUs: cpus, Work: w})
		}
		contended(fmt.Sprintf("shared-store-add x%d", n), Job{Kernel: SharedStoreAdd, CPUs: cpus})
		contended(fmt.Sprintf("shared-load-add x%d", n), Job{Kernel: SharedLoadAdd, CPUs: cpus})
		contended(fmt.Sprintf("false-share x%d", n), Job{Kernel: FalseShare, CPUs: cpus})
		contended(fmt.Sprintf("padded x%d", n), Job{Kernel: Padded, CPUs: cpus})
	}
	for _, k := range []Kernel{TicketLock, TicketCAS, TASLock, MCSLock} {
		add(fmt.Sprintf("%s x1", k), Job{Kernel: k, CPUs: all[:1], Work: csUnits})
		for n := 2; n <= len(all); n++ {
			contended(fmt.Sprintf("%s x%d", k, n), Job{Kernel: k, CPUs: all[:n], Work: csUnits})
		}
	}
	for n := 2; n <= len(all); n++ {
		for _, k := range []Kernel{TicketBare, MCSBare} {
			contended(fmt.Sprintf("%s x%d", k, n), Job{Kernel: k, CPUs: all[:n]})
		}
		contended(fmt.Sprintf("%s x%d", TicketStore, n), Job{Kernel: TicketStore, CPUs: all[:n], Work: csUnits})
	}
	// The ping-pongs once more, after the contended loops: a guest whose
	// hypervisor moves its vCPUs between physical cores changes its
	// latencies under the measurement, and the check shows by how much.
	for c := SMTSibling; c <= OtherSocket; c++ {
		if p, ok := pairs[c]; ok {
			add(pingpongOf(c)+again, Job{Kernel: PingPong, CPUs: p[:]})
		}
	}
	return out
}

// transactionOf names the figure of a timed kernel between a pair of
// class c.
func transactionOf(k Kernel, c PairClass) string { return k.String() + " " + c.String() }

// hiddenWork are the units of work after the atomic of the RMWWork
// figures: 20 (80 cycles), within the reorder window of current x86
// cores, and 100 (400 cycles), past it.
var hiddenWork = [2]int{20, 100}

// hiddenOf names the RMWWork figure with w units of work between a pair
// of class c.
func hiddenOf(w int, c PairClass) string { return fmt.Sprintf("%s%d %s", RMWWork, w, c) }

// again names a figure measured a second time, at the end of the plan;
// before, one measured just before the figure whose name follows.
const (
	again  = " again"
	before = " before "
)

// csUnits is the critical section of the lock loops, in units of work.
const csUnits = 5

func workSuffix(w int) string {
	if w == 0 {
		return ""
	}
	return fmt.Sprintf("-work%d", w)
}

// warmUp keeps every CPU busy with work for a while before the first
// figure: a core that was idle runs at a lower clock for its first
// milliseconds, and the first figures (the work loops that give the clock)
// would pay for it.
func warmUp(m Machine, e Effort) error {
	var cpus []int
	for _, c := range m.Topology().CPUs {
		cpus = append(cpus, c.ID)
	}
	return warm(m, Job{Kernel: Work, CPUs: cpus, Work: 50}, 50*e.Sample)
}

// warmTraffic plays ping-pong between two CPUs for a while (runs that
// double up to one of 100 samples, about 200 in all): on the Intel guest
// the first ping-pong after the loops of one CPU took 143-165 ns in three
// runs of eight, steady over its 61 samples and measured twice, and every
// ping-pong after it 117-135 (as if the uncore's clock rose only once
// lines moved between cores for a second or two).
func warmTraffic(m Machine, cpus []int, e Effort) error {
	return warm(m, Job{Kernel: PingPong, CPUs: cpus}, 100*e.Sample)
}

// warm runs job with twice the iterations each time until one run takes
// long.
func warm(m Machine, job Job, long time.Duration) error {
	for iters := 1024; ; iters *= 2 {
		d, err := m.Run(job, iters)
		if err != nil || d >= long || iters >= 1<<40 {
			return err
		}
	}
}

// MeasureAll measures every figure of plan, after a warm-up, reporting
// progress. The loops of one CPU that touch a few lines (the work and
// atomic loops the profile's clock, atomic and store drain are fitted to)
// are measured interleaved: a round takes one sample of each, so that a
// burst of noise on the host costs every one of them a sample rather than
// one of them all of its samples. The rest are measured one after another,
// in plan order: a load chase measures a cache level only while its array
// is warm in it (interleaved on this guest, a 4 MiB chase took 135 ns
// instead of 22), and a loop of several CPUs comes right after the
// ping-pong that tells which state the machine was in (followDrift).
func MeasureAll(m Machine, plan []Figure, e Effort, progress io.Writer) ([]Figure, error) {
	if err := warmUp(m, e); err != nil {
		return nil, fmt.Errorf("warm-up: %w", err)
	}
	out := slices.Clone(plan)
	say := func(format string, a ...any) {
		if progress != nil {
			fmt.Fprintf(progress, "calibrate: "+time.Now().Format("15:04:05.000")+" "+format+"\n", a...)
		}
	}
	interleaved := func(j Job) bool { return len(j.CPUs) == 1 && j.Kernel != Chase }
	var solo []int
	iters := make([]int, len(out))
	for i := range out {
		if !interleaved(out[i].Job) {
			continue
		}
		solo = append(solo, i)
		n, err := size(m, out[i].Job, e)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", out[i].Name, err)
		}
		iters[i] = n
		out[i].Samples = make([]float64, 0, e.Samples)
	}
	for r := range e.Samples {
		if len(solo) > 0 {
			say("[round %d/%d] %d loops of one CPU, one sample each", r+1, e.Samples, len(solo))
		}
		for _, i := range solo {
			x, err := sample(m, out[i].Job, iters[i])
			if err != nil {
				return nil, fmt.Errorf("%s: %w", out[i].Name, err)
			}
			out[i].Samples = append(out[i].Samples, x)
		}
	}
	warm := false
	for i := range out {
		f := &out[i]
		if !warm && len(f.Job.CPUs) > 1 {
			// Every CPU but the first sat idle through the loops of one
			// CPU, and no line moved between cores: warm them again,
			// and the caches' traffic, before the first loop of two.
			if err := warmUp(m, e); err != nil {
				return nil, fmt.Errorf("warm-up: %w", err)
			}
			if err := warmTraffic(m, f.Job.CPUs[:2], e); err != nil {
				return nil, fmt.Errorf("warm-up: %w", err)
			}
			warm = true
		}
		switch {
		case interleaved(f.Job):
			f.Stat = Summarize(f.Samples)
		case f.Samples != nil:
			// A contended loop, measured with the ping-pong before it.
		case i+1 < len(out) && f.Job.Kernel == PingPong && strings.HasSuffix(f.Name, before+out[i+1].Name):
			loop := &out[i+1]
			first := strings.TrimSuffix(f.Name, before+loop.Name)
			ref, _ := figures(out[:i]).median(first)
			say("[%d/%d] %s, a sample of %s beside each of its own", i+2, len(out), loop.Name, first)
			if err := measurePlaced(m, f, loop, ref, e); err != nil {
				return nil, fmt.Errorf("%s: %w", loop.Name, err)
			}
			if loop.Moved > 0 {
				say("  %d samples of %s left out: a ping-pong beside them was more than %.0f%% off the first, %.1f ns", loop.Moved, loop.Name, 100*placedWithin, ref)
			}
		default:
			say("[%d/%d] %s", i+1, len(out), f.Name)
			// A ping-pong the profile is fitted to is measured again,
			// up to three times, while its samples come from two
			// placements of the guest's vCPUs (spread over MaxIQR), or
			// its median is more than settled off the one before: the
			// Intel guest's first ping-pong took 143 and 165 ns in two
			// runs (spread 3% and 6%) whose ping-pongs measured beside
			// every later loop took 117-129.
			fitted := f.Job.Kernel == PingPong && !strings.Contains(f.Name, before) && !strings.HasSuffix(f.Name, again)
			prev := 0.0
			for try := 0; ; try++ {
				st, samples, err := Measure(m, f.Job, e)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", f.Name, err)
				}
				f.Stat, f.Samples = st, samples
				spread, moved := st.IQRPct() > 100*MaxIQR, prev > 0 && math.Abs(st.Median/prev-1) > settled
				if !fitted || try == 3 || (!spread && !moved && prev > 0) {
					break
				}
				switch {
				case spread:
					say("  %s spread %.0f%% of its median (the machine moved while it was measured): again", f.Name, st.IQRPct())
				case moved:
					say("  %s %.1f ns, %+.0f%% on the one before (the machine moved): again", f.Name, st.Median, 100*(st.Median/prev-1))
				}
				prev = st.Median
			}
		}
		f.Bench = f.Job.String()
	}
	return out, nil
}

// settled is how far two ping-pongs measured one after the other may be
// apart for the second to stand for the machine's placement.
const settled = 0.10

// placedWithin is how far a ping-pong beside a contended loop's sample may
// be from the first ping-pong for the sample to count as measured on the
// machine the profile describes.
const placedWithin = 0.25

// measurePlaced measures a contended loop with the ping-pong of the pair
// the model simulates around each of its samples, and keeps a sample only
// when the ping-pongs on both sides of it are within placedWithin of ref,
// the first ping-pong's median (0: keep every sample). A guest whose
// vCPUs the hypervisor moves between physical cores every few seconds (the
// EPYC guests of the archive flip between a ping-pong of about 55 ns and
// one of about 320) otherwise mixes two machines in one loop's figure. It
// takes at most four times the samples asked for; if fewer than half of
// those asked for were placed, it keeps them all and the ping-pong's own
// samples show that the machine moved. pp gets the ping-pongs beside the
// kept samples, loop the kept samples and how many were left out.
func measurePlaced(m Machine, pp, loop *Figure, ref float64, e Effort) error {
	probe := Effort{Samples: e.Samples, Sample: max(e.Sample/4, time.Microsecond)}
	ppIters, err := size(m, pp.Job, probe)
	if err != nil {
		return err
	}
	iters, err := size(m, loop.Job, e)
	if err != nil {
		return err
	}
	placed := func(x float64) bool { return ref <= 0 || math.Abs(x/ref-1) <= placedWithin }
	prev, err := sample(m, pp.Job, ppIters)
	if err != nil {
		return err
	}
	var kept, keptPP, all, allPP []float64
	allPP = append(allPP, prev)
	for range 4 * e.Samples {
		x, err := sample(m, loop.Job, iters)
		if err != nil {
			return err
		}
		next, err := sample(m, pp.Job, ppIters)
		if err != nil {
			return err
		}
		all, allPP = append(all, x), append(allPP, next)
		if placed(prev) && placed(next) {
			if len(keptPP) == 0 || len(allPP) < 3 || !placed(allPP[len(allPP)-3]) {
				keptPP = append(keptPP, prev) // not already kept beside the sample before
			}
			kept, keptPP = append(kept, x), append(keptPP, next)
		}
		prev = next
		if len(kept) == e.Samples {
			break
		}
	}
	if 2*len(kept) < e.Samples {
		kept, keptPP = all, allPP
	}
	loop.Samples, loop.Stat, loop.Moved = kept, Summarize(kept), len(all)-len(kept)
	pp.Samples, pp.Stat = keptPP, Summarize(keptPP)
	return nil
}
