package scenarios

import (
	"fmt"
	"slices"
	"strings"

	"contend/models"
)

// The metrics of one shared line or lock, as perf c2c and lock_stat measure
// them; each is followed by the line's or the lock's name.
const (
	// HITMShare is a line's share of the HITMs on the scenario's shared
	// lines, in %: perf c2c's HITMs of the cacheline over those of every
	// cacheline matched to a line of the scenario.
	HITMShare = "hitm_share_"
	// HITMOfLoads is the share of a line's sampled accesses that found it
	// modified in another core's cache, in %: perf c2c's HITMs of the
	// cacheline over its loads; the simulation's HITMs over its accesses.
	HITMOfLoads = "hitm_of_loads_"
	// Contended is the share of a lock's acquisitions that had to wait, in
	// %: lock_stat's contentions over its acquisitions.
	Contended = "contended_"
	// MeanWait is how long a lock's contended acquisition waited on
	// average, from its first try to holding the lock (us, ns or ms):
	// lock_stat's waittime-total over its contentions (waittime-avg).
	MeanWait = "mean_wait_"
)

// SharedLines names the lines of s that can move between CPUs: its
// [[line]]s that are not per-cpu, and the word of each lock that lives on
// no line of the file, which is a line of the lock's name.
func (s *Scenario) SharedLines() []string {
	var out []string
	for _, l := range s.Lines {
		if !l.PerCPU {
			out = append(out, l.Name)
		}
	}
	for _, l := range s.Locks {
		if l.Line == "" {
			out = append(out, l.Name)
		}
	}
	slices.Sort(out)
	return out
}

// LockNames names the locks of s, sorted.
func (s *Scenario) LockNames() []string {
	out := make([]string, len(s.Locks))
	for i, l := range s.Locks {
		out[i] = l.Name
	}
	slices.Sort(out)
	return out
}

// LineLabels returns, for each shared line the named variants touch, the
// labels of the steps that touch it, sorted: the symbols perf c2c would
// show beside the cacheline (a lock's line, its acquire and release
// labels).
func (s *Scenario) LineLabels(variants ...string) map[string][]string {
	set := map[string]map[string]bool{}
	add := func(line, label string) {
		if set[line] == nil {
			set[line] = map[string]bool{}
		}
		set[line][label] = true
	}
	shared := s.SharedLines()
	s.eachStep(variants, func(st *Step) {
		if l := s.lockOf(st); l != nil {
			acq, rel := l.labels()
			line := or(l.Line, l.Name)
			add(line, acq)
			if rel != "" {
				add(line, rel)
			}
			return
		}
		if name, ok := st.labelName(); ok && wants[st.Kind] == "line" && slices.Contains(shared, st.Arg) {
			add(st.Arg, name)
		}
	})
	out := map[string][]string{}
	for line, labels := range set {
		out[line] = sortedKeys(labels)
	}
	return out
}

// objectMetric parses the metrics of one line or lock: its prefix and the
// object's name.
func objectMetric(metric string) (prefix, name string, ok bool) {
	for _, p := range []string{HITMShare, HITMOfLoads, Contended, MeanWait} {
		if name, ok := strings.CutPrefix(metric, p); ok && name != "" {
			return p, name, true
		}
	}
	return "", "", false
}

// objectValue extracts a line or lock metric from a result.
func objectValue(r *models.Result, prefix, name string) float64 {
	switch prefix {
	case HITMShare:
		var all, mine float64
		for _, l := range r.Lines {
			all += float64(l.HITM)
			if l.Name == name {
				mine = float64(l.HITM)
			}
		}
		return pct(mine, all)
	case HITMOfLoads:
		for _, l := range r.Lines {
			if l.Name == name {
				return pct(float64(l.HITM), float64(l.Accesses))
			}
		}
	case Contended:
		for _, l := range r.Locks {
			if l.Name == name {
				return pct(float64(l.Contended), float64(l.Acquisitions))
			}
		}
	case MeanWait: // in seconds
		for _, l := range r.Locks {
			if l.Name == name && l.Contended > 0 {
				return l.WaitedNs / float64(l.Contended) / 1e9
			}
		}
	}
	return 0
}

func pct(part, whole float64) float64 {
	if whole == 0 {
		return 0
	}
	return 100 * part / whole
}

// objectMetricError says why a line or lock metric names nothing the
// scenario simulates, or is nil.
func (s *Scenario) objectMetricError(metric string) error {
	prefix, name, ok := objectMetric(metric)
	if !ok {
		return nil
	}
	what, have := "shared line", s.SharedLines()
	if prefix == Contended || prefix == MeanWait {
		what, have = "lock", s.LockNames()
	}
	if slices.Contains(have, name) {
		return nil
	}
	return fmt.Errorf("%s has no %s %q, so it would be predicted 0; name one of %s", s.Name, what, name, orList(have))
}
