package advise

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"contend/models"
	"contend/scenarios"
)

// Row is a candidate as simulated.
type Row struct {
	Candidate
	Rate float64 // units of work per second, mean over the replications
	Gain float64 // percent over the base variant
	// Low and High bound the gain's 90% interval when the profile's spread
	// was sampled; both are Gain otherwise.
	Low, High float64
	// BandLow and BandHigh widen Low and High by the error band of a
	// change of this kind (Env.Bands); they are Low and High without one.
	BandLow, BandHigh float64
	Explain           string
}

// Rate is what a candidate is ranked by: the flood's packets per second, or
// the batch's operations per second when the variants differ in the batch.
func Rate(s *scenarios.Scenario, r *models.Result) float64 {
	if ByBatch(s) && r.Batch != nil && r.Batch.Seconds > 0 {
		return float64(r.Batch.Ops) / r.Batch.Seconds
	}
	return r.PPS
}

// ByBatch says whether the variants of s differ in a batch of operations
// rather than in a flood.
func ByBatch(s *scenarios.Scenario) bool {
	return s.Workload.Kind == scenarios.WorkloadBatch || s.Workload.Kind == scenarios.WorkloadBoth && s.Workload.FloodVariant != ""
}

// Rank orders rows by the lower bound of their gain with the error band,
// best first; without sampled spread or band that is the gain itself.
// Ties keep the rules' order.
func Rank(rows []Row) {
	slices.SortStableFunc(rows, func(a, b Row) int { return cmp.Compare(b.BandLow, a.BandLow) })
}

// moving is below this many transfers per packet: a line that stopped.
const still = 0.005

// Explain says which lines move less (or more) in got than in base, as
// transfers per unit of work from the simulated perf c2c of each, and the
// total that goes away: the reason a candidate gains.
func Explain(c Candidate, base, got []*models.Result, unit string) string {
	b, g := transfers(base), renamed(c, transfers(got))
	names := make([]string, 0, len(b)+len(g))
	for n := range b {
		names = append(names, n)
	}
	for n := range g {
		if _, ok := b[n]; !ok {
			names = append(names, n)
		}
	}
	slices.SortFunc(names, func(x, y string) int {
		return cmp.Or(cmp.Compare(g[x]-b[x], g[y]-b[y]), cmp.Compare(x, y))
	})
	var parts []string
	var tb, tg float64
	for _, n := range names {
		tb, tg = tb+b[n], tg+g[n]
		if math.Abs(g[n]-b[n]) < still || len(parts) == 3 {
			continue
		}
		p := fmt.Sprintf("%s %.2f → %.2f", n, b[n], g[n])
		if g[n] < still {
			p = fmt.Sprintf("%s stops moving (%.2f → 0)", n, b[n])
		}
		parts = append(parts, p)
	}
	total := fmt.Sprintf("%.2f → %.2f transfers/%s", tb, tg, unit)
	if n, busy := busiest(c, got); busy >= busyLeft {
		total += fmt.Sprintf("; busiest left: %s, %.0f%% busy", n, busy)
	}
	// About as many transfers, in another order (a claim by store overlaps
	// the grant): say where the time went.
	if l, b, g, faster := mostSaved(base, got); faster && tg > 0.99*tb && b > 1.01*g {
		total += fmt.Sprintf("; %s %.1f → %.1f ns/%s on-CPU", l, b, g, unit)
	}
	blocked := offCPU(base, got, unit)
	switch {
	case len(parts) > 0:
		return strings.Join(append([]string{strings.Join(parts, ", ") + "; " + total}, blocked...), "; ")
	case len(blocked) > 0:
		return strings.Join(blocked, "; ")
	}
	return "no line moves less: " + total
}

// mostSaved is the symbol of the simulated perf report whose on-CPU ns per
// unit of work fall most from base to got, both values, and whether a unit
// of work takes less on-CPU time in all.
func mostSaved(base, got []*models.Result) (string, float64, float64, bool) {
	b, g := onCPUNs(base), onCPUNs(got)
	label, most, sb, sg := "", 0.0, 0.0, 0.0
	for _, l := range slices.Sorted(maps.Keys(b)) {
		sb += b[l]
		if d := b[l] - g[l]; d > most {
			label, most = l, d
		}
	}
	for _, l := range slices.Sorted(maps.Keys(g)) {
		sg += g[l]
	}
	return label, b[label], g[label], sg < 0.99*sb
}

// busyLeft is the busy share above which a candidate's busiest line is
// named: what still limits it, and where a further change would go.
const busyLeft = 50

// busiest returns the shared line of c whose home is busy the largest share
// of the run (mean over replications; of a lock's MCS nodes, the busiest),
// named as base names it, and that share in percent.
func busiest(c Candidate, rs []*models.Result) (string, float64) {
	busy := map[string]float64{}
	for _, r := range rs {
		most := map[string]float64{}
		for _, l := range r.Lines {
			if !l.PerCPU {
				n := nodeGroup(l.Name)
				most[n] = max(most[n], l.BusyPct)
			}
		}
		for n, b := range renamedMax(c, most) {
			busy[n] += b / float64(len(rs))
		}
	}
	name, most := "", 0.0
	for _, n := range slices.Sorted(maps.Keys(busy)) {
		if busy[n] > most {
			name, most = n, busy[n]
		}
	}
	return name, most
}

// offCPU says, per label, how the time a unit of work spends blocked
// (in synchronize_rcu, a sleep) changes, where it does.
func offCPU(base, got []*models.Result, unit string) []string {
	b, g := blockedNs(base), blockedNs(got)
	var out []string
	for _, n := range slices.Sorted(maps.Keys(b)) {
		if math.Abs(g[n]-b[n]) >= 0.01*b[n] {
			out = append(out, fmt.Sprintf("off-CPU in %s %s → %s/%s", n, us(b[n]), us(g[n]), unit))
		}
	}
	return out
}

func us(ns float64) string {
	if ns >= 10e3 {
		return fmt.Sprintf("%.0fµs", ns/1e3)
	}
	return fmt.Sprintf("%.2fµs", ns/1e3)
}

// blockedNs is the mean off-CPU ns per unit of each label over
// replications: of the batch's operations when there is a batch (its
// blocking is what a deferred free removes), else of the flood's packets.
func blockedNs(rs []*models.Result) map[string]float64 {
	out := map[string]float64{}
	for _, r := range rs {
		if b := r.Batch; b != nil {
			for _, o := range b.OffCPU {
				out[o.Label] += o.Seconds * 1e9 / float64(max(b.Ops, 1)) / float64(len(rs))
			}
			continue
		}
		for _, l := range r.Profile {
			if l.OffCPUPerOpNs > 0 {
				out[l.Label] += l.OffCPUPerOpNs / float64(len(rs))
			}
		}
	}
	return out
}

// onCPUNs is the mean on-CPU ns per unit of each label of the simulated
// perf report over replications.
func onCPUNs(rs []*models.Result) map[string]float64 {
	out := map[string]float64{}
	for _, r := range rs {
		for _, l := range r.Profile {
			out[l.Label] += l.NsPerPacket / float64(len(rs))
		}
	}
	return out
}

// renamed gives the lines of a lock that replaces another the names the
// old lock's lines had (its word, when both have a line of their own, and
// its MCS nodes), so that base and candidate compare line by line; values
// that land on one name add up.
func renamed(c Candidate, g map[string]float64) map[string]float64 {
	out := map[string]float64{}
	for _, n := range slices.Sorted(maps.Keys(g)) {
		out[baseName(c, n)] += g[n]
	}
	return out
}

// renamedMax is renamed for shares: of values that land on one name, the
// largest.
func renamedMax(c Candidate, g map[string]float64) map[string]float64 {
	out := map[string]float64{}
	for _, n := range slices.Sorted(maps.Keys(g)) {
		b := baseName(c, n)
		out[b] = max(out[b], g[n])
	}
	return out
}

// baseName is the name a line of c has in the base variant.
func baseName(c Candidate, n string) string {
	// Newest first: a lock that replaced one that replaced another
	// (combined) goes back to the first.
	for _, l := range slices.Backward(c.Locks) {
		switch {
		case l.replaces == "":
		case n == l.Name && l.ownWord:
			n = l.replaces
		case strings.HasPrefix(n, l.Name+"/"):
			n = l.replaces + strings.TrimPrefix(n, l.Name)
		}
	}
	return n
}

// nodeGroup names a queued lock's per-CPU nodes ("lock/mcs_node.3") as one:
// a table of sixteen nodes says less than their sum.
func nodeGroup(name string) string {
	if i := strings.LastIndexByte(name, '.'); i > 0 && strings.Contains(name, "/") {
		return name[:i] + ".*"
	}
	return name
}

// transfers is the mean transfers per unit of each line over replications.
func transfers(rs []*models.Result) map[string]float64 {
	out := map[string]float64{}
	for _, r := range rs {
		for _, l := range r.Lines {
			out[nodeGroup(l.Name)] += l.TransfersPerPacket / float64(len(rs))
		}
	}
	return out
}
