package scenarios

import (
	"fmt"
	"slices"
	"strings"

	"contend/cpu"
	"contend/models"
)

// Metrics a reference point may name, besides share_of_cycles_<label>,
// offcpu_in_<label> and the metrics of one line or lock (linemetrics.go).
var metricUnits = map[string][]string{
	"throughput_per_core":  {"Mpps", "kpps", "pps"},
	"throughput":           {"Mpps", "kpps", "pps"},
	"cost":                 {"ns"},
	"duration":             {"s", "ms"},
	"cpu_util":             {"%"},
	"grace_period":         {"ms"},
	"grace_periods":        {"batches"},
	"drops":                {"%"},
	"cycles_per_packet":    {"cycles"},
	"transfers_per_packet": {"lines"},
}

func (c *checker) series(i int, sr *seriesRaw, variants map[string]bool) {
	a := headers("[[series]]", i+1)
	s := &Series{Name: sr.Name, Description: sr.Description, Profile: sr.Profile, Variants: sr.Variants,
		Params: map[string]Value{}, Free: sr.Free, Axis: sr.Axis, Points: sr.Points}
	if s.Name == "" {
		c.fail("series.name", a, "missing; name the measured series")
	}
	if slices.ContainsFunc(c.s.Series, func(o *Series) bool { return o.Name == s.Name }) {
		c.fail("series.name", append(a, sameLine(keyNeedle("name"), quote(s.Name))), "series %q is defined twice; give each series its own name", s.Name)
	}
	if _, ok := c.s.Profiles[s.Profile]; !ok {
		c.fail("series.profile", append(a, sameLine(keyNeedle("profile"), quote(s.Profile))), "%q is not a defined profile; define [profile.%s] or fix the name", s.Profile, s.Profile)
	}
	if sr.Placement != "" {
		pl, ok := cpu.ParsePlacement(sr.Placement)
		if !ok {
			c.fail("series.placement", append(a, keyNeedle("placement")), "%q; use %s", sr.Placement, orList(cpu.PlacementNames()))
		}
		s.Placement = &pl
	}
	for i, v := range s.Variants {
		if !variants[v] {
			c.fail("series.variants", append(a, quote(v)), "%q is not a variant of this scenario; use one of its [[variant]] names", v)
		}
		if slices.Contains(s.Variants[:i], v) {
			c.fail("series.variants", append(a, keyNeedle("variants"), quote(v), quote(v)), "%q twice; list each variant once", v)
		}
	}
	if s.Base = sr.Base; s.Base != "" && (!variants[s.Base] || len(s.Variants) > 0 && !slices.Contains(s.Variants, s.Base)) {
		c.fail("series.base", append(a, keyNeedle("base")), "%q is not a variant of this series; name the variant the others change (the before)", s.Base)
	}
	for _, name := range sortedKeys(sr.Params) {
		if _, ok := c.s.Params[name]; !ok {
			c.fail("series.params."+name, append(a, keyNeedle(name)), "%q is not a param of this scenario; define it under [params] first", name)
		}
		if v, ok := c.value("series.params."+name, append(a, keyNeedle(name)), sr.Params[name]); ok {
			if base, known := c.s.Params[name]; known && base.IsTime != v.IsTime {
				as := "a plain number"
				if base.IsTime {
					as = "a duration (\"25ns\")"
				}
				c.fail("series.params."+name, append(a, keyNeedle(name)), "[params] gives %q as %s; give it the same way here", name, as)
			}
			s.Params[name] = v
		}
	}
	if s.Axis == "" {
		s.Axis = "cores"
	}
	if len(s.Points) > 0 {
		c.axis("series.points", append(a, keyNeedle("points")), s.Axis, s.Points)
	}
	for i, f := range s.Free {
		if !c.knownFree(f) {
			c.fail("series.free", append(a, quote(f)), "%q is not a parameter that can be fitted; use params.<name> or profile.<latency field>", f)
		}
		if slices.Contains(s.Free[:i], f) {
			c.fail("series.free", append(a, keyNeedle("free"), quote(f), quote(f)), "%q twice; list each parameter once (a parameter freed twice counts twice towards the calibrate points)", f)
		}
	}
	c.fitBounds(a, s)
	if len(sr.Reference) > MaxAxisValues {
		c.fail("series.reference", a, "%d reference points; a series has at most %d (MaxAxisValues): split it", len(sr.Reference), MaxAxisValues)
	}
	ncal := 0
	points := map[string]int{} // reference number, by what it measures
	for j, r := range sr.Reference {
		ref := Reference{Scenario: r.Scenario, Variant: r.Variant, Axis: r.Axis, Metric: r.Metric, Unit: r.Unit, Role: r.Role, Source: r.Source}
		ra := append(append([]string{}, a...), headers("[[series.reference]]", j+1)...)
		key := func(k string) []string { return append(append([]string{}, ra...), keyNeedle(k)) }
		if ref.Scenario == "" {
			ref.Scenario = s.Name
		}
		if ref.Axis == "" {
			ref.Axis = s.Axis
		}
		if !variants[r.Variant] {
			c.fail("series.reference.variant", key("variant"), "%q is not a variant of this scenario; use one of its [[variant]] names", r.Variant)
		}
		if r.X == nil || r.Value == nil {
			c.fail("series.reference", ra, "a reference point needs x and value")
			continue
		}
		ref.X, ref.Value = *r.X, *r.Value
		if r.Axis != "" {
			c.axis("series.reference.axis", key("axis"), ref.Axis, []float64{ref.X})
		} else {
			c.axis("series.reference.x", key("x"), ref.Axis, []float64{ref.X})
		}
		switch {
		case !(ref.Value >= MinRefValue && ref.Value <= MaxRefValue):
			c.fail("series.reference.value", key("value"), "%v; a measured value is a finite number above 0 (an error is relative to it), from %g to %g (MinRefValue, MaxRefValue), beyond which errors overflow: give the figure in the unit it was measured in", ref.Value, MinRefValue, MaxRefValue)
		case ref.Unit == "%" && ref.Value > 100:
			c.fail("series.reference.value", key("value"), "%v%%; a share is at most 100%%: give the percentage, e.g. 12.5", ref.Value)
		}
		if units, ok := c.s.unitsFor(ref.Metric); !ok {
			c.fail("series.reference.metric", key("metric"), "%q is not a metric contend predicts; use throughput_per_core, throughput (Mpps/kpps/pps), cost (ns), duration (s), cpu_util (%%), grace_period (ms), <stat>_grace_period (ms, us), <stat>_latency_<rcu call> (ms, us), drops (%%), cycles_per_packet (cycles), transfers_per_packet (lines), share_of_cycles_<label> (%%), offcpu_in_<label> (s), hitm_share_<line> (%%), hitm_of_loads_<line> (%%), contended_<lock> (%%) or mean_wait_<lock> (us, ns, ms); <stat> is one of %s", ref.Metric, strings.Join(models.LatencyStats, ", "))
		} else if !slices.Contains(units, ref.Unit) {
			c.fail("series.reference.unit", key("unit"), "%q is not a unit of %s; use %s", ref.Unit, ref.Metric, orList(units))
		} else {
			c.labelMetric(key("metric"), &ref)
			if err := c.s.objectMetricError(ref.Metric); err != nil {
				c.fail("series.reference.metric", key("metric"), "%v", err)
			}
		}
		pt := fmt.Sprintf("variant %q at %s = %v, %s", ref.Variant, ref.Axis, ref.X, ref.Metric)
		if k, dup := points[pt]; dup {
			c.fail("series.reference", ra, "reference %d gives %s again (reference %d gave it first); keep one", j+1, pt, k)
		}
		points[pt] = j + 1
		switch ref.Role {
		case "calibrate":
			if ncal++; ncal == len(s.Free)+1 {
				c.fail("series.reference.role", key("role"), "calibrate point %d of a series with %d free parameters; a series calibrates at most as many points as it has free parameters: mark it \"validate\" or free another parameter", ncal, len(s.Free))
			}
		case "validate":
		default:
			c.fail("series.reference.role", key("role"), "%q; a reference is used to \"calibrate\" or only to \"validate\"", ref.Role)
		}
		s.Refs = append(s.Refs, ref)
	}
	c.s.Series = append(c.s.Series, s)
}

// fitBounds checks that each free parameter of se has a range to be fitted
// in (Bounds): finite and not empty. Fit maps its search onto that range,
// and an empty or infinite one makes every value NaN.
func (c *checker) fitBounds(a []string, se *Series) {
	pr, ok := c.s.Profiles[se.Profile]
	if c.err != nil || !ok {
		return // the profile is not resolved, and what is wrong already said
	}
	for _, f := range se.Free {
		if !c.knownFree(f) {
			continue
		}
		lo, hi := c.s.Bounds(se, f)
		if finite(lo) && finite(hi) && lo < hi {
			continue
		}
		at := append(slices.Clone(a), keyNeedle("free"), quote(f))
		cur, _ := c.s.Current(&Series{Profile: se.Profile, Params: se.Params, Free: []string{f}})
		if _, isProfile := strings.CutPrefix(f, "profile."); isProfile {
			c.fail("series.free", at, "%s is fitted from %g ns up to the profile's memory latency (%g ns), or its own %g ns if more: nothing lies between; give profile %q its memory latency, e.g. memory = \"90ns\"", f, lo, pr.Memory.Nanoseconds(), cur[f], se.Profile)
			continue
		}
		c.fail("series.free", at, "%s is %g, and a free param is fitted from %g up to 100 times its value, which overflows; give it a value of at most 1e300 or do not free it", f, cur[f], lo)
	}
}

func (c *checker) knownFree(f string) bool {
	if name, ok := strings.CutPrefix(f, "params."); ok {
		_, known := c.s.Params[name]
		return known
	}
	if key, ok := strings.CutPrefix(f, "profile."); ok {
		return Overlap(f) || (&Profile{}).field(key) != nil
	}
	return false
}

// CheckMetric says whether contend predicts metric in unit, and if not,
// what to write instead.
func CheckMetric(metric, unit string) error {
	units, ok := unitsOf(metric)
	switch {
	case !ok:
		return fmt.Errorf("%q is not a metric contend predicts; use throughput_per_core, throughput, cost, duration, cpu_util, grace_period, <stat>_grace_period, <stat>_latency_<rcu call>, drops, cycles_per_packet, transfers_per_packet, share_of_cycles_<label>, offcpu_in_<label>, hitm_share_<line>, hitm_of_loads_<line>, contended_<lock> or mean_wait_<lock>; <stat> is one of %s", metric, strings.Join(models.LatencyStats, ", "))
	case !slices.Contains(units, unit):
		return fmt.Errorf("%q is not a unit of %s; use %s", unit, metric, orList(units))
	}
	return nil
}

// BatchUnit is what one operation of the batch is called: the scenario's
// unit of work when the batch runs alone and the scenario names one, its
// batch_unit beside a flood (where unit names the flood's work), else "op".
func (s *Scenario) BatchUnit() string {
	if s.Workload.Kind == WorkloadBatch && s.Workload.Unit != "" && s.Workload.Unit != "packet" {
		return s.Workload.Unit
	}
	if s.Workload.Kind == WorkloadBoth && s.Workload.BatchUnitName != "" {
		return s.Workload.BatchUnitName
	}
	return "op"
}

// RateUnit is the unit tables give rates in: Mpps for packets, else
// M<unit>s/s (Mops/s, Mcalls/s).
func (s *Scenario) RateUnit() string {
	if s.Workload.Unit == "" || s.Workload.Unit == "packet" {
		return "Mpps"
	}
	return "M" + s.Workload.Unit + "s/s"
}

// unitsFor returns the units a reference of metric may use in s: a rate
// may also be given in the scenario's own unit of work.
func (s *Scenario) unitsFor(metric string) ([]string, bool) {
	units, ok := unitsOf(metric)
	if ok && (metric == "throughput" || metric == "throughput_per_core") && s.Workload.Unit != "" && s.Workload.Unit != "packet" {
		per := s.Workload.Unit + "s/s"
		units = append(slices.Clone(units), "M"+per, "k"+per, per)
	}
	return units, ok
}

func unitsOf(metric string) ([]string, bool) {
	if units, ok := metricUnits[metric]; ok {
		return units, true
	}
	if strings.HasPrefix(metric, "share_of_cycles_") {
		return []string{"%"}, true
	}
	if strings.HasPrefix(metric, "offcpu_in_") {
		return []string{"s"}, true
	}
	if prefix, _, ok := objectMetric(metric); ok {
		if prefix == MeanWait {
			return []string{"us", "ns", "ms"}, true
		}
		return []string{"%"}, true
	}
	if _, _, ok := latencyMetric(metric); ok {
		return []string{"ms", "us"}, true
	}
	return nil, false
}
