package figures

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"contend/models"
	"contend/scenarios"
)

// cells is a heat map's grid: shared lines by CPUs, transfers per packet
// (or per operation) of that CPU.
type cells struct {
	lines []string
	cpus  []int
	z     [][]float64 // [line][cpu]
}

func (c *cells) Dims() (int, int)       { return len(c.cpus), len(c.lines) }
func (c *cells) Z(col, row int) float64 { return c.z[row][col] }
func (c *cells) X(col int) float64      { return float64(col) }
func (c *cells) Y(row int) float64      { return float64(row) }

// transfersOf builds the grid of a result: every shared line that moved,
// every CPU that ran the workload.
func transfersOf(r *models.Result) *cells {
	c := &cells{}
	for _, cr := range r.Cores {
		c.cpus = append(c.cpus, cr.CPU)
	}
	slices.Sort(c.cpus)
	// Rows bottom to top; sorted by name, so the first name is on top.
	lines := slices.Clone(r.Lines)
	slices.SortFunc(lines, func(a, b models.LineResult) int { return strings.Compare(b.Name, a.Name) })
	for _, l := range lines {
		if l.PerCPU || l.Transfers == 0 {
			continue
		}
		row := make([]float64, len(c.cpus))
		for i, id := range c.cpus {
			if n := packetsOf(r, id); n > 0 {
				row[i] = float64(l.TransfersByCPU[id]) / float64(n)
			}
		}
		c.lines = append(c.lines, l.Name)
		c.z = append(c.z, row)
	}
	return c
}

func packetsOf(r *models.Result, cpu int) uint64 {
	for _, c := range r.Cores {
		if c.CPU == cpu {
			return c.Packets
		}
	}
	return 0
}

func totalTransfers(r *models.Result) uint64 {
	var n uint64
	for _, l := range r.Lines {
		if !l.PerCPU {
			n += l.Transfers
		}
	}
	return n
}

func heatmap(s *scenarios.Scenario, series []*scenarios.Series, o Options) (*Figure, error) {
	se := series[0]
	x := at(s, se, o)
	g, vi, err := onePoint(s, se, x, o, func(r *models.Result) float64 { return float64(totalTransfers(r)) })
	if err != nil {
		return nil, err
	}
	v, r := g.variants[vi], g.results[vi*g.reps]
	c := transfersOf(r)
	if len(c.lines) == 0 {
		return nil, fmt.Errorf("%s: variant %s moves no shared line at %s=%s; a heat map needs transfers (try another --variant or --x)", s.Name, v, se.Axis, num(x))
	}
	f := &Figure{Kind: "heatmap", Header: []string{"series", "variant", "axis", "x", "line", "cpu", "transfers", "transfers_per_packet"},
		panelH: vg.Points(float64(max(90, 50+18*len(c.lines))))}
	lines := map[string]models.LineResult{}
	for _, l := range r.Lines {
		lines[l.Name] = l
	}
	for li, name := range c.lines {
		for ci, id := range c.cpus {
			f.Rows = append(f.Rows, []string{se.Name, v, se.Axis, num(x), name, strconv.Itoa(id),
				strconv.FormatUint(lines[name].TransfersByCPU[id], 10), num(c.z[li][ci])})
		}
	}
	return f, f.drawCells(c, fmt.Sprintf("%s, %s, %s = %s", se.Name, v, se.Axis, num(x)))
}

// onePoint simulates every variant of se once at x and picks the one
// o names, or the one score ranks highest.
func onePoint(s *scenarios.Scenario, se *scenarios.Series, x float64, o Options, score func(*models.Result) float64) (*grid, int, error) {
	o.Replications = 1
	g, err := simulate(s, se, []float64{x}, o)
	if err != nil {
		return nil, 0, err
	}
	vi, err := pickVariant(s, g, o.Variant, score)
	return g, vi, err
}

// pickVariant returns the index of the named variant, or of the one that
// scores highest (the first on a tie).
func pickVariant(s *scenarios.Scenario, g *grid, name string, score func(*models.Result) float64) (int, error) {
	if name != "" {
		i := slices.Index(g.variants, name)
		if i < 0 {
			return 0, fmt.Errorf("%s: series %s has no variant %q; it runs %v", s.Name, g.se.Name, name, g.variants)
		}
		return i, nil
	}
	best := 0
	for i := range g.variants {
		if score(g.results[i*g.reps]) > score(g.results[best*g.reps]) {
			best = i
		}
	}
	return best, nil
}

// sequential is white for nothing to dark blue for the most: prints in grey
// and reads without a rainbow.
func sequential() palette.ColorMap {
	cm, err := moreland.NewLuminance([]color.Color{color.RGBA{0x08, 0x30, 0x6b, 0xff}, color.White})
	if err != nil {
		panic("figures: " + err.Error())
	}
	return palette.Reverse(cm)
}

func (f *Figure) drawCells(c *cells, title string) error {
	hi := 0.0
	for _, row := range c.z {
		hi = max(hi, slices.Max(row))
	}
	cm := sequential()
	cm.SetMax(hi)
	h := plotter.NewHeatMap(c, cm.Palette(64))
	h.Min, h.Max = 0, hi
	p := titled(newPlot("CPU", ""), title)
	p.Add(h)
	if len(c.cpus) <= 32 {
		if err := cellValues(p, c, hi); err != nil {
			return err
		}
	}
	names := make([]string, len(c.cpus))
	for i, id := range c.cpus {
		names[i] = strconv.Itoa(id)
	}
	p.NominalX(names...)
	p.NominalY(c.lines...)
	f.panels = append(f.panels, p)

	bar := newPlot("line transfers per packet of the CPU", "")
	bar.HideY()
	bar.Add(&plotter.ColorBar{ColorMap: cm})
	f.scale = bar
	return nil
}

// twoDigits prints v with two significant digits, and 0 as 0.
func twoDigits(v float64) string {
	if v == 0 {
		return "0"
	}
	return strconv.FormatFloat(v, 'f', max(0, 1-int(math.Floor(math.Log10(v)))), 64)
}

// cellValues prints each cell's value in it, white on the darker half of
// the scale: a reader of the paper gets the numbers, not only a shade.
func cellValues(p *plot.Plot, c *cells, hi float64) error {
	var d plotter.XYLabels
	var styles []text.Style
	for row, line := range c.z {
		for col, v := range line {
			d.XYs = append(d.XYs, plotter.XY{X: float64(col), Y: float64(row)})
			d.Labels = append(d.Labels, twoDigits(v))
			sty := text.Style{Font: font.From(sans, 5), XAlign: draw.XCenter, YAlign: draw.YCenter, Handler: plot.DefaultTextHandler, Color: color.Black}
			if v > hi/2 {
				sty.Color = color.White
			}
			styles = append(styles, sty)
		}
	}
	l, err := plotter.NewLabels(d)
	if err != nil {
		return err
	}
	l.TextStyle = styles
	p.Add(l)
	return nil
}
