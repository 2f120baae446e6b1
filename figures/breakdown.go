package figures

import (
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
	f := &Figure{Kind: "breakdown", Header: []string{"series", "variant", "axis", "x", "symbol", "state", "pct_of_cpu_time"}, panelH: 1.9 * vg.Inch}
	for _, se := range series {
		x := at(s, se, o)
		o.Xs = []float64{x}
		o.Replications = 1
		g, err := simulate(s, se, []float64{x}, o)
		if err != nil {
			return nil, err
		}
		totals := make([][]float64, len(states)) // [state][variant]
		for i := range totals {
			totals[i] = make([]float64, len(g.variants))
		}
		for vi, v := range g.variants {
			by, idle := shares(g.results[vi*g.reps])
			syms := slices.Sorted(maps.Keys(by))
			for si := range states[:4] {
				for _, sym := range syms {
					if pct := by[sym][si]; pct > 0 {
						totals[si][vi] += pct
						f.Rows = append(f.Rows, []string{se.Name, v, se.Axis, num(x), sym, states[si], num(pct)})
					}
				}
			}
			totals[4][vi] = idle
			f.Rows = append(f.Rows, []string{se.Name, v, se.Axis, num(x), "", "idle", num(idle)})
		}
		if err := f.addBars(g.variants, totals); err != nil {
			return nil, err
		}
		title := fmt.Sprintf("%s, %s = %s", se.Name, se.Axis, num(x))
		titled(f.panels[len(f.panels)-1], title)
	}
	return f, nil
}

// addBars stacks one bar per variant by state.
func (f *Figure) addBars(variants []string, totals [][]float64) error {
	p := newPlot("", "CPU time (%)")
	var below *plotter.BarChart
	width := vg.Points(min(40, 110/float64(len(variants))))
	for si, st := range states {
		if slices.Max(totals[si]) < 0.05 {
			continue // a state no variant is in (below 0.05%): no empty legend entry
		}
		b, err := plotter.NewBarChart(plotter.Values(totals[si]), width)
		if err != nil {
			return err
		}
		b.Color = stateColor(si)
		b.LineStyle.Width = vg.Points(0.3)
		if below != nil {
			b.StackOn(below)
		}
		below = b
		p.Add(b)
		f.addLegend(stateNames[st], b)
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
