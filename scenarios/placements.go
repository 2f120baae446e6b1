package scenarios

import (
	"fmt"
	"maps"
	"slices"

	"contend/cpu"
)

// PlacementAxis is the [sweep] key whose values are placements, not
// numbers: every series is also run with each of them.
const PlacementAxis = "placement"

// numbers reads a [sweep] axis's TOML value: a list of numbers.
func numbers(v any) ([]float64, bool) {
	list, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]float64, 0, len(list))
	for _, x := range list {
		switch x := x.(type) {
		case int64:
			out = append(out, float64(x))
		case float64:
			out = append(out, x)
		default:
			return nil, false
		}
	}
	return out, true
}

// describeTOML says what a TOML value that should have been a list of
// numbers or names is, in the words of typeNames.
func describeTOML(v any) string {
	switch v := v.(type) {
	case []any:
		for _, x := range v {
			switch x := x.(type) {
			case int64, float64:
			case string:
				return fmt.Sprintf("the array holds a string, %q", x)
			default:
				return "the array holds " + valueType(x)
			}
		}
		return "an array"
	case string:
		return fmt.Sprintf("a string, %q, not an array", v)
	}
	return valueType(v) + ", not an array"
}

// placements reads [sweep] placement: a list of placement names.
func (c *checker) placements(field string, at []string, v any) {
	list, ok := v.([]any)
	if !ok {
		c.fail(field, at, "%s; list the placements to run, e.g. [\"smt-last\", \"spread\"]", describeTOML(v))
		return
	}
	if len(list) == 0 {
		c.fail(field, at, "no values; list the placements to run, e.g. [\"smt-last\", \"spread\"]")
		return
	}
	for _, x := range list {
		name, ok := x.(string)
		if !ok {
			c.fail(field, at, "%s among the placements; use %s", valueType(x), orList(cpu.PlacementNames()))
			return
		}
		p, ok := cpu.ParsePlacement(name)
		if !ok {
			c.fail(field, append(slices.Clone(at), quote(name)), "%q; use %s", name, orList(cpu.PlacementNames()))
			return
		}
		if slices.Contains(c.s.Placements, p) {
			c.fail(field, append(slices.Clone(at), quote(name)), "%q twice; list each placement once", name)
			return
		}
		c.s.Placements = append(c.s.Placements, p)
	}
}

// expandPlacements gives every series, after it, a copy for each swept
// placement that is not the series' own, named after the series and the
// placement ("same-node-spread"). A copy is a prediction of the same
// machine with its threads placed so: it has the series' profile, params
// (fitted values included) and base, but no references and nothing free,
// since what was measured was measured with the series' own placement. A
// scenario without series gets one per placement, as it would get one
// default series. A copy's name must not be taken.
func (c *checker) expandPlacements() {
	s := c.s
	if len(s.Placements) == 0 {
		return
	}
	at := []string{"[sweep]", keyNeedle(PlacementAxis)}
	if len(s.Series) == 0 {
		axis := "cores"
		if len(s.Sweep) > 0 {
			axis = s.Sweep[0].Name
		}
		for _, p := range s.Placements {
			p := p
			s.Series = append(s.Series, &Series{
				Name: s.Name + "-" + p.String(), Description: "placement " + p.String(),
				Profile: s.ProfileNames()[0], Variants: s.VariantNames(), Params: map[string]Value{},
				Axis: axis, Placement: &p, Copy: true,
			})
		}
		return
	}
	taken := map[string]bool{}
	for _, se := range s.Series {
		taken[se.Name] = true
	}
	var out []*Series
	for _, se := range s.Series {
		out = append(out, se)
		for _, p := range s.Placements {
			if own, ok := s.placementOf(se); ok && own == p {
				continue
			}
			name := se.Name + "-" + p.String()
			if taken[name] {
				c.fail("sweep."+PlacementAxis, at, "series %q is already defined, and the %s copy of series %q would take its name; rename one", name, p, se.Name)
				return
			}
			taken[name] = true
			p := p
			cp := *se
			cp.Name, cp.Placement, cp.Copy = name, &p, true
			cp.Description = fmt.Sprintf("%s; with placement %s", se.Description, p)
			cp.Params = maps.Clone(se.Params)
			cp.Refs, cp.Free, cp.Points = nil, nil, slices.Clone(se.Points)
			out = append(out, &cp)
		}
	}
	s.Series = out
}

// placementOf returns the placement a series runs with: its own, else the
// workload's; ok is false when the workload lists its CPUs instead.
func (s *Scenario) placementOf(se *Series) (cpu.Placement, bool) {
	switch {
	case se.Placement != nil:
		return *se.Placement, true
	case len(s.Workload.CPUs) > 0:
		return 0, false
	}
	return s.Workload.Placement, true
}
