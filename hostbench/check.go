package hostbench

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"testing/fstest"

	"contend/cpu"
	"contend/scenarios"
)

// Scenario is the built-in scenario whose variants are the loops measured
// here; the check simulates it on the measured profile.
const Scenario = "host-microbench"

// ProfileName is the name of the measured profile.
const ProfileName = "host"

// ref says which variant, thread count and metric of Scenario a figure is,
// and whether it calibrates a free profile value (the free parameter).
type ref struct {
	variant string
	threads int
	metric  string // "cost" (ns per operation per thread) or "throughput" (all threads)
	free    string // "": a prediction
}

// refOf places a figure in Scenario; ok is false for figures that only make
// profile values (work, loads, pause, wake-up) and for ping-pongs between a
// pair class the simulated CPUs 0 and 1 are not.
func refOf(f Figure, pair PairClass, pairField string) (ref, bool) {
	j := f.Job
	n := len(j.CPUs)
	metric := "cost"
	if n > 1 {
		metric = "throughput"
	}
	variant, ok := variantOf(j)
	r := ref{variant: variant, threads: n, metric: metric}
	switch {
	case !ok:
		return r, false
	case j.Kernel == Add && j.Work == 0:
		r.free = "profile.atomic"
	case j.Kernel == Add && j.Work == 10:
		r.free = "profile.atomic_overlap"
	case j.Kernel == StoreAdd:
		r.free = "profile.store_drain"
	case j.Kernel == AddStoreLine:
		// When a store to the line an atomic just wrote commits is the
		// core's: the atomic, then a store to another word of its line.
		r.free = "profile.store_after_atomic"
	case j.Kernel == SharedLoadAdd && n == 1:
		// The load waits for the add before it: how long is the core's.
		r.free = "profile.load_after_atomic"
	case j.Kernel == SharedAdd && j.Work == 10 && n == 2:
		// Whether the work after a waiting atomic runs ahead is the
		// core's too: the same add with 10 units of work after it.
		r.free = "profile.miss_overlap"
	case j.Kernel == SharedAdd && j.Work == 0 && n == 2:
		// How long an owner keeps a line being taken is the core's:
		// two threads adding to one counter measure it.
		r.free = "profile.snoop_window"
	case j.Kernel == PingPong && f.Name == pingpongOf(pair):
		r.metric, r.free = "cost", "profile."+pairField
	case j.Kernel == PingPong && f.Name == pingpongOf(pair)+again:
		// The same loop after the contended ones, on the same profile:
		// its error is how far the machine drifted meanwhile.
		r.metric = "cost"
	case j.Kernel == PingPong:
		return r, false
	case j.Kernel == PingPongCAS && f.Name == pingpongCASOf(pair):
		// The figure core-to-core tables publish: one transfer of a
		// modified line a pass, whatever a load does. The profile's
		// distance is fitted to the ping-pong that loads; this checks it.
		r.metric = "cost"
	case j.Kernel == PingPongCAS:
		return r, false
	}
	return r, true
}

// variantOf names the variant of Scenario that is job's loop.
func variantOf(j Job) (string, bool) {
	switch j.Kernel {
	case Add, SharedAdd:
		return "add" + workSuffix(j.Work), j.Work == 0 || j.Work == 10 || j.Work == 50
	case CAS, Swap, StoreAdd, AddStoreLine, PingPong, FalseShare, Padded, TicketLock, TASLock, MCSLock, MCSBare, TicketBare, TicketStore, SharedStoreAdd, SharedLoadAdd, TicketCAS, PingPongCAS:
		return j.Kernel.String(), true
	}
	return "", false
}

// simulatedPair is the measured pair class that stands for CPUs 0 and 1 of
// the model of a machine of t's shape (physical cores 0 and 1), with the
// profile field their ping-pong sets.
func simulatedPair(figs figures, t Topology) (PairClass, string, bool) {
	return pairFor(t, figs.measured)
}

// pairFor is simulatedPair on a machine that measured the ping-pong of
// the pair classes has says.
func pairFor(t Topology, has func(PairClass) bool) (PairClass, string, bool) {
	_, cores, _ := t.Shape()
	perLLC, known := t.CoresPerLLC()
	switch {
	case cores < 2:
		c, ok := firstOf(has, OtherSocket)
		return c, "other_socket", ok
	case known && perLLC == 1:
		c, ok := firstOf(has, OtherLLC)
		return c, "other_llc", ok
	}
	c, ok := firstOf(has, SameLLC, OtherLLC)
	return c, "same_socket", ok
}

// Series makes the measured figures the reference points of a series of
// Scenario: calibrate for the figures a free profile value is fitted to
// (uncontended loops and the ping-pong), validate for every other one (the
// contended loops, and uncontended ones that only check the model).
func Series(figs []Figure, t Topology) *scenarios.Series {
	se := &scenarios.Series{Name: "host", Profile: ProfileName, Axis: "threads", Params: map[string]scenarios.Value{}}
	pair, field, _ := simulatedPair(figs, t)
	timed := timedRunAhead(figs)
	for _, i := range refFigures(figs, t) {
		f := figs[i]
		r, _ := refOf(f, pair, field)
		if timed && r.free == "profile.miss_overlap" {
			// run_ahead was timed alone: the 2-thread add with 10
			// units of work predicts with it.
			r.free = ""
		}
		value, unit := f.Stat.Median, "ns"
		if r.metric == "throughput" {
			value, unit = float64(r.threads)*1e3/f.Stat.Median, "Mops/s"
		}
		role := "validate"
		if r.free != "" {
			role = "calibrate"
			se.Free = append(se.Free, r.free)
		}
		if !slices.Contains(se.Variants, r.variant) {
			se.Variants = append(se.Variants, r.variant)
		}
		se.Refs = append(se.Refs, scenarios.Reference{Scenario: Scenario, Variant: r.variant, Axis: "threads",
			X: float64(r.threads), Metric: r.metric, Value: value, Unit: unit, Role: role, Source: describe(f)})
	}
	return se
}

// refFigures returns the indexes of the figures that are reference points
// of Series, in its order.
func refFigures(figs []Figure, t Topology) []int {
	pair, field, _ := simulatedPair(figs, t)
	var out []int
	for i, f := range figs {
		if _, ok := refOf(f, pair, field); ok && f.Stat.Median > 0 {
			out = append(out, i)
		}
	}
	return out
}

// Calibration is a measured machine.
type Calibration struct {
	Figures []Figure
	Values  map[string]Value
	Profile string          // the profile file's text
	Rows    []scenarios.Row // every figure of the series, measured and simulated
	Series  *scenarios.Series
	// Notes says which rows were predicted on a profile refitted to the
	// ping-pong measured just before their loop (followDrift).
	Notes []string
	// Timed sets the accesses timed alone beside the profile's transfer
	// and atomic (noteTimed); empty when the machine did not time them.
	Timed string
	topo  Topology
}

// Calibrate makes a profile from measured figures: direct estimates, then
// the fields the ping-pong and the uncontended loops set are fitted so that
// simulating Scenario on the profile gives those figures back. The rows
// compare every figure with its simulation on the final profile.
func Calibrate(figs []Figure, t Topology, prov Provenance, run func(*scenarios.Scenario) scenarios.Runner) (*Calibration, error) {
	c := &Calibration{Figures: figs, Values: Estimate(figs, t), topo: t}
	s, err := scenarios.LoadBuiltin(Scenario)
	if err != nil {
		return nil, err
	}
	if err := c.use(s, prov); err != nil {
		return nil, err
	}
	c.Series = Series(figs, t)
	s.Series = []*scenarios.Series{c.Series}
	best, err := solve(s, c.Series, run(s), nil)
	if err != nil {
		return nil, fmt.Errorf("fitting the profile to the calibrate figures: %w", err)
	}
	for _, free := range c.Series.Free {
		key := strings.TrimPrefix(free, "profile.")
		v := c.Values[key]
		v.V, v.Fitted = best[free], true
		c.Values[key] = v
	}
	if err := c.use(s, prov); err != nil {
		return nil, err
	}
	if c.Rows, err = s.Predict(c.Series, s.Run.Seed, nil, run(s)); err != nil {
		return nil, err
	}
	if err := c.followDrift(s, run(s)); err != nil {
		return nil, err
	}
	c.noteTimed()
	return c, nil
}

// noteTimed sets the accesses timed alone beside the profile's transfer and
// atomic: the model has one latency a transfer, whatever the line's state
// and the access, and these say how far each kind is from it.
func (c *Calibration) noteTimed() {
	fs := figures(c.Figures)
	pair, field, ok := simulatedPair(fs, c.topo)
	if !ok {
		return
	}
	what := map[Kernel]string{LoadModified: "a load of a line the other CPU modified", RMWModified: "an atomic on it", RMWShared: "an atomic on a line both read"}
	var parts []string
	for _, k := range []Kernel{LoadModified, RMWModified, RMWShared} {
		if m, ok := fs.median(transactionOf(k, pair)); ok {
			parts = append(parts, fmt.Sprintf("%s %.4g ns", what[k], m))
		}
	}
	if len(parts) == 0 {
		return
	}
	c.Timed = fmt.Sprintf("timed alone between the %s pair: %s; the profile's transfer (%s) is %.4g ns and its atomic %.4g",
		pair, strings.Join(parts, ", "), field, c.Values[field].V, c.Values["atomic"].V)
	short, ok1 := fs.median(hiddenOf(hiddenWork[0], pair))
	long, ok2 := fs.median(hiddenOf(hiddenWork[1], pair))
	if ok1 && ok2 {
		c.Timed += fmt.Sprintf("; of %d and %d units of work after that atomic, %.4g and %.4g ns ran while it waited (the reorder window: %s)",
			hiddenWork[0], hiddenWork[1], short, long, c.reachNote())
	} else {
		c.Timed += "; the record does not time the work after a waiting atomic (rmw-work), so miss_overlap is fitted to the 2-thread add with 10 units of work and the reorder window is the default: calibrate again to time them"
	}
}

// reachNote says where the profile's reorder window came from.
func (c *Calibration) reachNote() string {
	if v, ok := c.Values["reorder_reach"]; ok {
		return fmt.Sprintf("%.4g cycles, read from them", v.V)
	}
	return fmt.Sprintf("they do not bound it, so the default %d cycles", cpu.DefaultReorderReach)
}

// MaxDrift is how far a ping-pong measured later may stray from the one
// the profile is fitted to before the check says the machine changed:
// three times the IQR a quiet host gives it.
const MaxDrift = 0.1

// followDrift re-predicts each contended loop whose ping-pong, measured
// just before it, strayed more than MaxDrift from the one the profile is
// fitted to (a guest whose vCPUs moved): on the profile with the pair's
// latency fitted to that ping-pong instead, so that the loop is compared
// with the machine it ran on. The row's source says so.
func (c *Calibration) followDrift(s *scenarios.Scenario, run scenarios.Runner) error {
	pair, field, ok := simulatedPair(c.Figures, c.topo)
	fs := figures(c.Figures)
	first, ok1 := fs.median(pingpongOf(pair))
	free := slices.Index(c.Series.Free, "profile."+field)
	if !ok || !ok1 || first <= 0 || free < 0 {
		return nil
	}
	for row, i := range refFigures(c.Figures, c.topo) {
		pp, ok := fs.median(pingpongOf(pair) + before + c.Figures[i].Name)
		if !ok || math.Abs(pp/first-1) <= MaxDrift || c.Rows[row].Role == "calibrate" {
			continue
		}
		fit := *c.Series
		ref := calibrateRef(c.Series, free)
		ref.Value = pp
		fit.Free, fit.Refs = []string{"profile." + field}, []scenarios.Reference{ref}
		// The search starts from the latency scaled as the ping-pong
		// moved: a guest moved to another core complex can halve or
		// double it, beyond the bounds around the first fit.
		cur, err := s.Current(&fit)
		if err != nil {
			return err
		}
		key := "profile." + field
		vals, err := solve(s, &fit, run, map[string]float64{key: cur[key] * pp / first})
		if err != nil {
			return err
		}
		one := *c.Series
		one.Refs = c.Series.Refs[row : row+1]
		rows, err := s.Predict(&one, s.Run.Seed, vals, run)
		if err != nil {
			return err
		}
		r := &c.Rows[row]
		r.Predicted, r.ErrorPct = rows[0].Predicted, rows[0].ErrorPct
		how := fmt.Sprintf("predicted with %s refitted to the ping-pong measured just before it, %.4g ns (%+.0f%% on the first)", field, pp, 100*(pp/first-1))
		r.Source += "; " + how
		c.Notes = append(c.Notes, fmt.Sprintf("%s x%v %s", r.Variant, r.X, how))
	}
	return nil
}

// solve sets each free value so that simulating its own calibrate figure
// gives the measurement back: bisection within the value's bounds, one value
// after another, the whole round repeated because values interact (the
// atomic is part of every loop). A figure the model cannot reach leaves its
// value at a bound and its error in the check, instead of spreading it over
// the other values as a least-squares fit would.
func solve(s *scenarios.Scenario, se *scenarios.Series, run scenarios.Runner, from map[string]float64) (map[string]float64, error) {
	vals, err := s.Current(se)
	if err != nil {
		return nil, err
	}
	maps.Copy(vals, from)
	start := maps.Clone(vals)
	for range 2 {
		for i, free := range se.Free {
			one := *se
			one.Refs = []scenarios.Reference{calibrateRef(se, i)}
			lo, hi := near(free, start[free])
			errAt := func(x float64) (float64, error) {
				over := maps.Clone(vals)
				over[free] = x
				rows, err := s.Predict(&one, s.Run.Seed, over, run)
				if err != nil {
					return 0, err
				}
				return rows[0].ErrorPct, nil
			}
			x, err := bisect(errAt, lo, hi)
			if err != nil {
				return nil, err
			}
			vals[free] = x
		}
	}
	return vals, nil
}

// near bounds the search for a value around its direct estimate: a
// fraction stays in [0, 1]; a latency within a factor of 4 of the estimate
// (and at least 0.1 ns wide), which also keeps the simulated loops from
// running billions of operations.
func near(free string, v float64) (lo, hi float64) {
	if scenarios.Overlap(free) {
		return 0, 1
	}
	return v / 4, max(4*v, 0.1)
}

// calibrateRef returns the calibrate reference of se's i-th free value
// (Series lists them in the same order).
func calibrateRef(se *scenarios.Series, i int) scenarios.Reference {
	n := 0
	for _, r := range se.Refs {
		if r.Role == "calibrate" {
			if n == i {
				return r
			}
			n++
		}
	}
	panic("hostbench: a free value without its calibrate reference")
}

// bisect finds where f, monotone on [lo, hi], crosses zero, or the bound
// where |f| is smallest when it does not.
func bisect(f func(float64) (float64, error), lo, hi float64) (float64, error) {
	flo, err := f(lo)
	if err != nil {
		return 0, err
	}
	fhi, err := f(hi)
	if err != nil {
		return 0, err
	}
	if (flo > 0) == (fhi > 0) {
		if math.Abs(flo) <= math.Abs(fhi) { // a tie keeps the lower bound: a value that changes nothing stays at its least
			return lo, nil
		}
		return hi, nil
	}
	for range 40 {
		mid := (lo + hi) / 2
		fm, err := f(mid)
		if err != nil {
			return 0, err
		}
		if (fm > 0) == (flo > 0) {
			lo, flo = mid, fm
		} else {
			hi = mid
		}
		if hi-lo <= 1e-3*math.Max(math.Abs(hi), 1e-2) {
			break
		}
	}
	return (lo + hi) / 2, nil
}

// use writes the profile file and loads it back into s, so the check runs
// on exactly what a user loads with --profile.
func (c *Calibration) use(s *scenarios.Scenario, prov Provenance) error {
	c.Profile = ProfileTOML(ProfileName, c.Values, c.Figures, prov, scenarios.ProfileKeys())
	p, err := scenarios.LoadProfile(fstest.MapFS{"host.toml": {Data: []byte(c.Profile)}}, "host.toml")
	if err != nil {
		return fmt.Errorf("the measured profile does not load: %w\n%s", err, c.Profile)
	}
	s.UseProfile(p)
	return nil
}

// Drift returns how much the simulated pair's ping-pong changed between its
// first measurement and its repeat after the contended loops (+0.3 for 30%
// slower), and false when the plan had no repeat.
func (c *Calibration) Drift() (float64, bool) {
	pair, _, ok := simulatedPair(c.Figures, c.topo)
	if !ok {
		return 0, false
	}
	fs := figures(c.Figures)
	first, ok1 := fs.median(pingpongOf(pair))
	later, ok2 := fs.median(pingpongOf(pair) + again)
	if !ok1 || !ok2 || first <= 0 {
		return 0, false
	}
	return later/first - 1, true
}

// MaxIQR is the widest spread, IQR over median, that a figure the profile
// is fitted to may have before the check calls it unsteady: on a quiet host
// these loops give 1-6%, and the ping-pong of a guest whose vCPUs moved
// while it was measured gave 76% (samples from both placements).
const MaxIQR = 0.25

// Unsteady returns the figures the profile is fitted to (the calibrate
// points) whose samples spread wider than MaxIQR: the machine was not one
// machine while they were measured, and the values fitted to them describe
// neither state.
func (c *Calibration) Unsteady() []Figure {
	pair, field, _ := simulatedPair(c.Figures, c.topo)
	timed := timedRunAhead(c.Figures)
	var out []Figure
	for _, i := range refFigures(c.Figures, c.topo) {
		f := c.Figures[i]
		r, _ := refOf(f, pair, field)
		if r.free == "profile.miss_overlap" && timed {
			continue // a prediction (Series)
		}
		if r.free != "" && f.Stat.IQRPct() > 100*MaxIQR {
			out = append(out, f)
		}
	}
	return out
}
