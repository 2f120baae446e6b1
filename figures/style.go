package figures

import (
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Font sizes that stay readable when a 3.4 in figure is printed at 100%.
const (
	tickSize   = 7
	labelSize  = 8
	legendSize = 7
)

// sans is the face of every text: a sans-serif reads better in small print.
var sans = font.Font{Typeface: "Liberation", Variant: "Sans"}

// okabeIto is Okabe and Ito's, safe for colour-blind readers; the dashes
// tell the lines apart when printed in grey.
var okabeIto = []color.Color{
	color.RGBA{0x00, 0x72, 0xB2, 0xff}, // blue
	color.RGBA{0xD5, 0x5E, 0x00, 0xff}, // vermillion
	color.RGBA{0x00, 0x9E, 0x73, 0xff}, // bluish green
	color.RGBA{0xCC, 0x79, 0xA7, 0xff}, // reddish purple
	color.RGBA{0xE6, 0x9F, 0x00, 0xff}, // orange
	color.RGBA{0x56, 0xB4, 0xE9, 0xff}, // sky blue
	color.RGBA{0x00, 0x00, 0x00, 0xff}, // black
}

var dashes = [][]vg.Length{nil, {vg.Points(4), vg.Points(2)}, {vg.Points(1), vg.Points(1.5)}, {vg.Points(5), vg.Points(1.5), vg.Points(1), vg.Points(1.5)}}

// glyphs mark measured points; one shape per source of measurements.
// Calibrate points are filled, validate points (predictions) outlined.
var glyphs = map[bool][]draw.GlyphDrawer{
	true:  {draw.CircleGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}},
	false: {draw.RingGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}},
}

func colorOf(i int) color.Color { return okabeIto[i%len(okabeIto)] }

func dashOf(i int) []vg.Length { return dashes[i%len(dashes)] }

// newPlot returns a plot with the house fonts and axis labels.
func newPlot(xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(sans, labelSize)
		a.Tick.Label.Font = font.From(sans, tickSize)
		a.Label.Padding = vg.Points(2)
		a.Padding = vg.Points(1)
		a.Width = vg.Points(0.5)
		a.Tick.LineStyle.Width = vg.Points(0.5)
		a.Tick.Length = vg.Points(3)
	}
	p.X.Label.Text, p.Y.Label.Text = xlabel, ylabel
	p.Title.TextStyle.Font = font.From(sans, labelSize)
	return p
}

// titled sets a panel's title (the series and its machine), used when a
// figure stacks several panels.
func titled(p *plot.Plot, title string) *plot.Plot {
	p.Title.Text = title
	p.Title.Padding = vg.Points(2)
	return p
}

var (
	lightGrey = color.Gray{Y: 0xd4}
	paleGrey  = color.Gray{Y: 0xee}
	midGrey   = color.Gray{Y: 0x99}
)
