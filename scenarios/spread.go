package scenarios

import "sort"

// Uncertain is a profile value written with a spread ("45ns ± 4ns"), in the
// units Overrides take: ns.
type Uncertain struct {
	Key   string  // "profile.<field>", an Overrides key
	Value float64 // as written
	SD    float64 // one standard deviation
}

// Uncertain lists the values of se's profile that carry a spread, by key, so
// that a caller can sample them through Overrides.
func (s *Scenario) Uncertain(se *Series) []Uncertain {
	pr := s.Profiles[se.Profile]
	if pr == nil {
		return nil
	}
	keys := make([]string, 0, len(pr.Spread))
	for k := range pr.Spread {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]Uncertain, 0, len(keys))
	for _, k := range keys {
		out = append(out, Uncertain{Key: "profile." + k,
			Value: pr.durs[k].Time(pr.GHz).Nanoseconds(), SD: pr.Spread[k].Time(pr.GHz).Nanoseconds()})
	}
	return out
}
