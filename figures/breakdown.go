package figures

import (
	"cmp"
	"fmt"
	"image/color"
	"maps"
	"slices"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"contend/models"
	"contend/scenarios"
)

// states are how a CPU spends its time, in the order the bars stack.
var states = []string{"work", "stall", "spin", "blocked", "idle"}

var stateNames = map[string]string{
	"work": "work", "stall": "coherence stall", "spin": "spin (lock wait)",
	"blocked": "blocked (off-CPU)", "idle": "idle",
}

// at returns the point on a series' axis a single-point figure shows: o.X,
// else the largest of the series' axis values (where contention is).
func at(s *scenarios.Scenario, se *scenarios.Series, o Options) float64 {
	if o.X != 0 {
		return o.X
	}
	xs := axisValues(s, se, o)
	if len(xs) == 0 {
		return float64(s.Workload.Cores)
	}
	return xs[len(xs)-1]
}

// shares splits the time of the CPUs in a result's profile into states, by
// symbol, as percentages of their time; idle is what is left.
func shares(r *models.Result) (bySymbol map[string][]float64, idle float64) {
	ncpu := 0
	for _, c := range r.Cores {
		if c.Role == "flood" || r.Packets == 0 {
			ncpu++
		}
	}
	total := r.Seconds * 1e9 * float64(max(ncpu, 1))
	bySymbol = map[string][]float64{}
	used := 0.0
	for _, l := range r.Profile {
		ns := []float64{l.WorkNs, l.StallNs, l.SpinNs, l.SleepNs}
		pct := make([]float64, len(ns))
		for i, v := range ns {
			pct[i] = 100 * v / total
			used += pct[i]
		}
		bySymbol[l.Label] = pct
	}
	return bySymbol, max(0, 100-used)
}

func breakdown(s *scenarios.Scenario, series []*scenarios.Series, o Options) (*Figure, error) {
	if o.By != "" && o.By != "state" && o.By != "symbol" {
		return nil, fmt.Errorf("--by %q: use state or symbol", o.By)
	}
	f := &Figure{Kind: "breakdown", Header: []string{"series", "variant", "axis", "x", "symbol", "state", "pct_of_cpu_time"}, panelH: 1.9 * vg.Inch}
	for _, se := range series {
		x := at(s, se, o)
		o.Xs = []float64{x}
		o.Replications = 1
		g, err := simulate(s, se, []float64{x}, o)
		if err != nil {
			return nil, err
		}
		split := make([]cpuTime, len(g.variants))
		for vi, v := range g.variants {
			split[vi].bySymbol, split[vi].idle = shares(g.results[vi*g.reps])
			for si := range states[:4] {
				for _, sym := range slices.Sorted(maps.Keys(split[vi].bySymbol)) {
					if pct := split[vi].bySymbol[sym][si]; pct > 0 {
						f.Rows = append(f.Rows, []string{se.Name, v, se.Axis, num(x), sym, states[si], num(pct)})
					}
				}
			}
			f.Rows = append(f.Rows, []string{se.Name, v, se.Axis, num(x), "", "idle", num(split[vi].idle)})
		}
		segs := byState(split)
		if o.By == "symbol" {
			segs = bySymbol(split)
		}
		if err := f.addBars(g.variants, segs); err != nil {
			return nil, err
		}
		titled(f.panels[len(f.panels)-1], fmt.Sprintf("%s, %s = %s", se.Name, se.Axis, num(x)))
	}
	return f, nil
}

// cpuTime is one variant's time: per symbol, the percentage in each state
// but idle (work, stall, spin, blocked), and the idle rest.
type cpuTime struct {
	bySymbol map[string][]float64
	idle     float64
}

// segment is one part of every bar: its share of each variant's time.
type segment struct {
	name  string
	color color.Color
	pct   []float64 // by variant
}

// byState stacks work, stall, spin, blocked and idle.
func byState(split []cpuTime) []segment {
	segs := make([]segment, len(states))
	for si, st := range states {
		segs[si] = segment{name: stateNames[st], color: stateColor(si), pct: make([]float64, len(split))}
		for vi, t := range split {
			if st == "idle" {
				segs[si].pct[vi] = t.idle
				continue
			}
			for _, pct := range t.bySymbol {
				segs[si].pct[vi] += pct[si]
			}
		}
	}
	return segs
}

// shownSymbols is how many symbols get their own colour; the rest share one.
const shownSymbols = 5

// bySymbol stacks the on-CPU time of the symbols that take most of it (as
// perf report would list them), then time blocked off-CPU, then idle.
func bySymbol(split []cpuTime) []segment {
	onCPU := func(pct []float64) float64 { return pct[0] + pct[1] + pct[2] }
	peak := map[string]float64{}
	for _, t := range split {
		for sym, pct := range t.bySymbol {
			peak[sym] = max(peak[sym], onCPU(pct))
		}
	}
	syms := slices.Sorted(maps.Keys(peak))
	slices.SortStableFunc(syms, func(a, b string) int { return cmp.Compare(peak[b], peak[a]) })
	shown := syms[:min(shownSymbols, len(syms))]
	colors := []color.Color{okabeIto[0], okabeIto[1], okabeIto[2], okabeIto[4], okabeIto[5]}
	segs := make([]segment, 0, len(shown)+3)
	for i, sym := range shown {
		segs = append(segs, segment{name: sym, color: colors[i], pct: make([]float64, len(split))})
	}
	other := segment{name: "other symbols", color: midGrey, pct: make([]float64, len(split))}
	off := segment{name: stateNames["blocked"], color: stateColor(3), pct: make([]float64, len(split))}
	idle := segment{name: stateNames["idle"], color: stateColor(4), pct: make([]float64, len(split))}
	for vi, t := range split {
		for sym, pct := range t.bySymbol {
			if i := slices.Index(shown, sym); i >= 0 {
				segs[i].pct[vi] += onCPU(pct)
			} else {
				other.pct[vi] += onCPU(pct)
			}
			off.pct[vi] += pct[3]
		}
		idle.pct[vi] = t.idle
	}
	return append(segs, other, off, idle)
}

// addBars stacks one bar per variant, segment on segment.
func (f *Figure) addBars(variants []string, segs []segment) error {
	p := newPlot("", "CPU time (%)")
	var below *plotter.BarChart
	width := vg.Points(min(40, 110/float64(len(variants))))
	for _, sg := range segs {
		if slices.Max(sg.pct) < 0.05 {
			continue // in no bar (below 0.05%): no empty legend entry
		}
		b, err := plotter.NewBarChart(plotter.Values(sg.pct), width)
		if err != nil {
			return err
		}
		b.Color = sg.color
		b.LineStyle.Width = vg.Points(0.3)
		if below != nil {
			b.StackOn(below)
		}
		below = b
		p.Add(b)
		f.addLegend(sg.name, b)
	}
	p.NominalX(variants...)
	p.X.Min, p.X.Max = -0.5, float64(len(variants))-0.5
	p.Y.Min, p.Y.Max = 0, 100
	f.panels = append(f.panels, p)
	return nil
}

// stateColor: work blue, stall vermillion, spin orange, blocked purple,
// idle light grey.
func stateColor(i int) color.Color {
	return []color.Color{okabeIto[0], okabeIto[1], okabeIto[4], okabeIto[3], lightGrey}[i]
}
