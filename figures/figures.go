package figures

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"contend/band"
	"contend/scenarios"
	"contend/sim"
)

// Kinds are the figures Make draws, in the order the CLI lists them.
var Kinds = []string{"scaling", "breakdown", "heatmap", "timeline", "insertion", "changes", "transfers"}

// Formats are the output formats Render writes, named by file extension.
var Formats = []string{"svg", "png", "pdf", "eps"}

// FormatOf says which format a figure written to path takes, from its
// extension: SVG when path is empty (stdout).
func FormatOf(path string) (string, error) {
	if path == "" {
		return "svg", nil
	}
	format := strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), ".")
	if !slices.Contains(Formats, format) {
		return "", fmt.Errorf("-o %s: the extension names the format; use .svg, .png, .pdf or .eps", path)
	}
	return format, nil
}

// Width is one column of a two-column paper.
const Width = 3.4 * vg.Inch

// MaxWidth is the widest figure Render draws, and MaxRasterBytes the most
// memory a PNG's pixels may take (4 bytes each at rasterDPI): a width past
// them is refused rather than allocated.
const (
	MaxWidth       = 100 * vg.Inch
	MaxRasterBytes = 100 << 20
	rasterDPI      = 300 // what publishers ask for line art in raster form
)

// Options choose what a figure shows. Zero values take the scenario's own.
type Options struct {
	Kind         string
	Series       string    // only this series (default: every series the kind can draw)
	Variant      string    // heatmap, timeline, transfers: this variant (default: the busiest)
	X            float64   // breakdown, heatmap, timeline, transfers: the point on the series axis
	Xs           []float64 // scaling, insertion: the axis values (default: the series' points and sweep)
	Seed         int64
	Replications int      // scaling, insertion: runs per point, for the 95% interval
	By           string   // breakdown: stack by "state" (default) or "symbol"
	Window       sim.Time // timeline: the span drawn (default 100 ms)
	Run          scenarios.Runner
	// Bands are the error bands learned from the published cases
	// (band.Committed()) that scaling, insertion and changes draw around
	// each prediction; nil draws none.
	Bands *band.File
}

// defaultsOf returns o with s's own values where o leaves them zero: its seed,
// its serial runner, and a 100 ms timeline window.
func (o Options) defaultsOf(s *scenarios.Scenario) Options {
	if o.Seed == 0 {
		o.Seed = s.Run.Seed
	}
	if o.Run == nil {
		o.Run = s.Serial
	}
	if o.Window == 0 {
		o.Window = 100 * sim.Millisecond
	}
	return o
}

// Figure is a drawn figure and the table behind it.
type Figure struct {
	Kind    string
	Header  []string
	Rows    [][]string
	panels  []*plot.Plot // stacked top to bottom, x axes aligned
	legend  []entry
	scale   *plot.Plot // heatmap: the colour scale, under the panels
	panelH  vg.Length
	cols    int      // panels side by side (0: one, stacked)
	note    string   // the caption line over the panels: the machine
	sources []string // of reference points, in order of appearance: one glyph each
}

type entry struct {
	name   string
	thumbs []plot.Thumbnailer
}

// addLegend adds an entry unless one of that name is there (panels of
// one figure share their styles).
func (f *Figure) addLegend(name string, thumbs ...plot.Thumbnailer) {
	for _, e := range f.legend {
		if e.name == name {
			return
		}
	}
	f.legend = append(f.legend, entry{name, thumbs})
}

// Make simulates what the figure of o.Kind needs and draws it.
func Make(s *scenarios.Scenario, o Options) (*Figure, error) {
	o = o.defaultsOf(s)
	if len(s.Series) == 0 {
		return nil, fmt.Errorf("%s has no [[series]] to draw; add one with its profile, variants, axis and points", s.Name)
	}
	var series []*scenarios.Series
	for _, se := range s.Series {
		if o.Series == "" || se.Name == o.Series {
			series = append(series, se)
		}
	}
	if len(series) == 0 {
		return nil, fmt.Errorf("%s has no series %q; it has %s", s.Name, o.Series, strings.Join(seriesNames(s), ", "))
	}
	mk, ok := kinds[o.Kind]
	if !ok {
		return nil, fmt.Errorf("--kind %q: use %s", o.Kind, strings.Join(Kinds, ", "))
	}
	f, err := mk(s, series, o)
	if err != nil {
		return nil, err
	}
	if f.note == "" {
		f.note = machineNote(s, series)
	}
	return f, nil
}

var kinds = map[string]func(*scenarios.Scenario, []*scenarios.Series, Options) (*Figure, error){
	"scaling": scaling, "insertion": insertion, "breakdown": breakdown, "heatmap": heatmap,
	"timeline": timeline, "changes": changes, "transfers": transfers,
}

func seriesNames(s *scenarios.Scenario) []string {
	out := []string{}
	for _, se := range s.Series {
		out = append(out, se.Name)
	}
	return out
}

// WriteCSV writes the table behind the figure.
func (f *Figure) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	for _, rec := range append([][]string{f.Header}, f.Rows...) {
		safe := make([]string, len(rec))
		for i, c := range rec {
			safe[i] = CSVCell(c)
		}
		cw.Write(safe)
	}
	cw.Flush()
	return cw.Error()
}

// Height is the figure's height when drawn width wide.
func (f *Figure) Height(width vg.Length) vg.Length {
	h := f.panelH*vg.Length(f.rows()) + f.legendHeight(width) + f.noteHeight(width)
	if f.scale != nil {
		h += scaleHeight
	}
	return h
}

const scaleHeight = 0.5 * vg.Inch

// columns is how many panels stand side by side, rows how many rows of
// them there are.
func (f *Figure) columns() int { return max(f.cols, 1) }

func (f *Figure) rows() int { return (len(f.panels) + f.columns() - 1) / f.columns() }

const (
	legendThumb = 14
)

// legendColumns is two when every entry fits in half the width, else one.
func (f *Figure) legendColumns(width vg.Length) int {
	sty := plot.NewLegend().TextStyle
	sty.Font = font.From(sans, legendSize)
	for _, e := range f.legend {
		if sty.Width(e.name)+vg.Points(legendThumb+12) > width/2 {
			return 1
		}
	}
	return 2
}

// legendHeight is the strip under the panels: the legend never covers data.
func (f *Figure) legendHeight(width vg.Length) vg.Length {
	var h vg.Length
	for _, l := range f.legends(width) {
		h = max(h, l.Rectangle(draw.Canvas{}).Size().Y)
	}
	if h == 0 {
		return 0
	}
	return h + vg.Points(5)
}

// legends are the legend's columns, filled column by column.
func (f *Figure) legends(width vg.Length) []*plot.Legend {
	cols := f.legendColumns(width)
	per := (len(f.legend) + cols - 1) / cols
	var out []*plot.Legend
	for col := range cols {
		l := plot.NewLegend()
		l.TextStyle.Font = font.From(sans, legendSize)
		l.Top, l.Left = true, true
		l.ThumbnailWidth = vg.Points(legendThumb)
		l.Padding = vg.Points(1)
		for _, e := range f.legend[min(col*per, len(f.legend)):min((col+1)*per, len(f.legend))] {
			l.Add(e.name, e.thumbs...)
		}
		out = append(out, &l)
	}
	return out
}

// Render draws the figure width wide in format (svg, png, pdf or eps).
func (f *Figure) Render(width vg.Length, format string) ([]byte, error) {
	if !slices.Contains(Formats, format) {
		return nil, fmt.Errorf("format %q: use %s", format, strings.Join(Formats, ", "))
	}
	if !(width >= vg.Inch && width <= MaxWidth) {
		return nil, fmt.Errorf("width %.4g in: give 1 to %g in", float64(width/vg.Inch), float64(MaxWidth/vg.Inch))
	}
	h := f.Height(width)
	var c vg.CanvasWriterTo
	if format == "png" {
		if err := checkRaster(width, h); err != nil {
			return nil, err
		}
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(width, h), vgimg.UseDPI(rasterDPI), vgimg.UseBackgroundColor(color.White))}
	} else {
		var err error
		if c, err = draw.NewFormattedCanvas(width, h, format); err != nil {
			return nil, err
		}
	}
	f.draw(draw.New(c))
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// checkRaster refuses a PNG whose pixels would take more than
// MaxRasterBytes, and says what width fits (the height barely depends on it).
func checkRaster(width, height vg.Length) error {
	px := func(l vg.Length) float64 { return math.Ceil(float64(l/vg.Inch) * rasterDPI) }
	bytes := 4 * px(width) * px(height)
	if bytes <= MaxRasterBytes {
		return nil
	}
	fits := MaxRasterBytes / (4 * px(height) * rasterDPI)
	return fmt.Errorf("a %.4g × %.4g in PNG at %d dpi takes %.0f MB, more than %d MB; give a width of at most %.3g in, or write .svg or .pdf, which scale",
		float64(width/vg.Inch), float64(height/vg.Inch), rasterDPI, bytes/(1<<20), MaxRasterBytes>>20, math.Floor(fits*10)/10)
}

func (f *Figure) draw(dc draw.Canvas) {
	lh, nh := f.legendHeight(dc.Max.X-dc.Min.X), f.noteHeight(dc.Max.X-dc.Min.X)
	f.drawNote(draw.Crop(dc, 0, 0, 0, -(dc.Max.Y - dc.Min.Y - nh)))
	legend := draw.Crop(dc, 0, 0, nh, -(dc.Max.Y - dc.Min.Y - lh - nh))
	area := draw.Crop(dc, 0, 0, lh+nh, 0)
	var strip draw.Canvas
	if f.scale != nil {
		strip = draw.Crop(area, 0, 0, 0, -(area.Max.Y - area.Min.Y - scaleHeight))
		area = draw.Crop(area, 0, 0, scaleHeight, 0)
	}
	cols := f.columns()
	rows := make([][]*plot.Plot, f.rows())
	for i := range rows {
		rows[i] = make([]*plot.Plot, cols)
		copy(rows[i], f.panels[i*cols:])
	}
	tiles := draw.Tiles{Rows: len(rows), Cols: cols, PadTop: vg.Points(2), PadRight: vg.Points(6), PadX: vg.Points(8), PadY: vg.Points(4)}
	var last draw.Canvas
	for i, cs := range plot.Align(rows, tiles, area) {
		for j, c := range cs {
			if p := rows[i][j]; p != nil {
				p.Draw(c)
				last = p.DataCanvas(c)
			}
		}
	}
	if f.scale != nil {
		// The scale spans exactly the data of the panel above it.
		d := f.scale.DataCanvas(strip)
		f.scale.Draw(draw.Crop(strip, last.Min.X-d.Min.X, last.Max.X-d.Max.X, 0, 0))
	}
	f.drawLegend(legend)
}

// drawLegend lays the entries out in columns, filled column by column.
func (f *Figure) drawLegend(c draw.Canvas) {
	ls := f.legends(c.Max.X - c.Min.X)
	colW := (c.Max.X - c.Min.X) / vg.Length(len(ls))
	for col, l := range ls {
		left := vg.Points(4) + vg.Length(col)*colW
		l.Draw(draw.Crop(c, left, -(c.Max.X - c.Min.X - left - colW), 0, -vg.Points(3)))
	}
}
