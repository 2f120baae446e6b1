package hostbench

import (
	"fmt"
	"slices"
	"strings"
	"testing/fstest"

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
	r := ref{threads: n, metric: metric}
	switch j.Kernel {
	case Add, SharedAdd:
		r.variant = "add" + workSuffix(j.Work)
		if n == 1 && j.Work == 0 {
			r.free = "profile.atomic"
		}
		if n == 1 && j.Work == 10 {
			r.free = "profile.atomic_overlap"
		}
	case CAS, Swap, FalseShare, Padded, TicketLock, TASLock, MCSLock:
		r.variant = j.Kernel.String()
	case StoreAdd:
		r.variant, r.free = "store-add", "profile.store_drain"
	case PingPong:
		if f.Name != pingpongOf(pair) {
			return r, false
		}
		r.variant, r.metric, r.free = "pingpong", "cost", "profile."+pairField
	default:
		return r, false
	}
	return r, true
}

// simulatedPair is the pair class of CPUs 0 and 1 in the model of a machine
// of that shape, with the profile field it costs, and the measured class
// that stands for it.
func simulatedPair(figs figures, t Topology) (PairClass, string, bool) {
	_, cores, _ := t.Shape()
	if cores >= 2 {
		c, ok := classFor(figs, SameLLC, OtherLLC)
		return c, "same_socket", ok
	}
	c, ok := classFor(figs, OtherSocket)
	return c, "other_socket", ok
}

// Series makes the measured figures the reference points of a series of
// Scenario: calibrate for the figures a free profile value is fitted to
// (uncontended loops and the ping-pong), validate for every other one (the
// contended loops, and uncontended ones that only check the model).
func Series(figs []Figure, t Topology) *scenarios.Series {
	se := &scenarios.Series{Name: "host", Profile: ProfileName, Axis: "threads", Params: map[string]scenarios.Value{}}
	pair, field, _ := simulatedPair(figs, t)
	for _, f := range figs {
		r, ok := refOf(f, pair, field)
		if !ok || f.Stat.Median <= 0 {
			continue
		}
		value, unit := f.Stat.Median, "ns"
		if r.metric == "throughput" {
			value, unit = float64(r.threads)*1e3/f.Stat.Median, "Mpps"
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

// Calibration is a measured machine.
type Calibration struct {
	Figures []Figure
	Values  map[string]Value
	Profile string          // the profile file's text
	Rows    []scenarios.Row // every figure of the series, measured and simulated
	Series  *scenarios.Series
}

// Calibrate makes a profile from measured figures: direct estimates, then
// the fields the ping-pong and the uncontended loops set are fitted so that
// simulating Scenario on the profile gives those figures back. The rows
// compare every figure with its simulation on the final profile.
func Calibrate(figs []Figure, t Topology, prov Provenance, run func(*scenarios.Scenario) scenarios.Runner) (*Calibration, error) {
	c := &Calibration{Figures: figs, Values: Estimate(figs, t)}
	s, err := scenarios.LoadBuiltin(Scenario)
	if err != nil {
		return nil, err
	}
	if err := c.use(s, prov); err != nil {
		return nil, err
	}
	c.Series = Series(figs, t)
	s.Series = []*scenarios.Series{c.Series}
	best, _, err := s.Fit(c.Series, s.Run.Seed, run(s))
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
	c.Rows, err = s.Predict(c.Series, s.Run.Seed, nil, run(s))
	return c, err
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
