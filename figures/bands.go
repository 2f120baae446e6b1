package figures

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"contend/band"
	"contend/scenarios"
)

// bandHeader are the columns of a prediction's error band in a figure's
// table: empty for a measured point and for a prediction of a kind the
// corpus has no band for.
var bandHeader = []string{"band_kind", "band_low", "band_high"}

// bandAlpha is how opaque a shaded band is: light enough that the curves,
// their intervals and the measured points stay in front, and that two
// bands overlapping still read.
const bandAlpha = 0x28

// bander finds the error band of each prediction of one scenario: its
// kind from the scenario (band.Classifier), its band from the corpus's.
// A nil bander finds none.
type bander struct {
	cl  *band.Classifier
	set band.Set
}

func newBander(s *scenarios.Scenario, f *band.File) *bander {
	if f == nil {
		return nil
	}
	return &bander{cl: band.NewClassifier(s), set: f.Set()}
}

// at is the band of the prediction of metric at x on se's axis.
func (b *bander) at(se *scenarios.Series, x float64, metric string) (band.Band, bool, error) {
	if b == nil {
		return band.Band{}, false, nil
	}
	k, err := b.cl.Kind(se, se.Axis, x, metric)
	if err != nil {
		return band.Band{}, false, err
	}
	bd, ok := b.set.For(k)
	return bd, ok, nil
}

// bandCells are a band's table cells around prediction v, empty for none.
func bandCells(b band.Band, ok bool, v float64) []string {
	if !ok {
		return []string{"", "", ""}
	}
	low, high := b.Interval(v)
	return []string{b.Kind.String(), num(low), num(high)}
}

// shade returns the region between low and high over xs, in col made
// light: one ring per run of consecutive xs that have a band (has), so a
// value without one leaves a gap. Its high ends stretch the axis, its low
// ends do not: on a log axis a band's low end may be zero.
func shade(xs, low, high []float64, has []bool, col color.Color) (plot.Plotter, error) {
	var rings []plotter.XYer
	var highs plotter.XYs
	for i := 0; i < len(xs); {
		if !has[i] {
			i++
			continue
		}
		j := i
		for j < len(xs) && has[j] {
			j++
		}
		if j-i > 1 {
			ring := make(plotter.XYs, 0, 2*(j-i))
			for k := i; k < j; k++ {
				ring = append(ring, plotter.XY{X: xs[k], Y: low[k]})
			}
			for k := j - 1; k >= i; k-- {
				ring = append(ring, plotter.XY{X: xs[k], Y: high[k]})
				highs = append(highs, plotter.XY{X: xs[k], Y: high[k]})
			}
			rings = append(rings, ring)
		}
		i = j
	}
	if len(rings) == 0 {
		return nil, nil
	}
	pg, err := plotter.NewPolygon(rings...)
	if err != nil {
		return nil, err
	}
	pg.Color, pg.LineStyle.Width = light(col), 0
	return region{pg, highs}, nil
}

// light is col at bandAlpha.
func light(col color.Color) color.Color {
	n := color.NRGBAModel.Convert(col).(color.NRGBA)
	n.A = bandAlpha
	return n
}

// region is a shaded band whose high ends alone set the axes' range.
type region struct {
	*plotter.Polygon
	highs plotter.XYs
}

func (r region) DataRange() (xmin, xmax, ymin, ymax float64) { return plotter.XYRange(r.highs) }

// unranged draws a plotter without letting it set the axes.
type unranged struct{ p plot.Plotter }

func (u unranged) Plot(c draw.Canvas, p *plot.Plot) { u.p.Plot(c, p) }

// swatch is a legend's sample of a shaded band.
func swatch(col color.Color) plot.Thumbnailer {
	pg, _ := plotter.NewPolygon(plotter.XYs{{}})
	pg.Color, pg.LineStyle.Width = light(col), 0
	return pg
}

// barThumb is a legend's sample of an error bar: a vertical line with caps.
type barThumb struct{ draw.LineStyle }

func (b barThumb) Thumbnail(c *draw.Canvas) {
	x, cap := c.Center().X, vg.Points(3)
	c.StrokeLine2(b.LineStyle, x, c.Min.Y, x, c.Max.Y)
	c.StrokeLine2(b.LineStyle, x-cap/2, c.Min.Y, x+cap/2, c.Min.Y)
	c.StrokeLine2(b.LineStyle, x-cap/2, c.Max.Y, x+cap/2, c.Max.Y)
}

// changeBars draws each change's error band through its point: the
// predicted change less and more the band's points, as after/before on
// the figure's log axis. A low end at or below -100% (no after/before)
// runs off the axis, to below, and gets no cap there. The bars set no
// axis: a wide band on a small change would squash the points.
func changeBars(g changeGroup, below float64, col color.Color) (plot.Plotter, error) {
	var xys plotter.XYs
	var errs plotter.YErrors
	for k, c := range g.cs {
		b := g.bands[k]
		if b == nil {
			continue
		}
		x, y := math.Log10(1+c.MeasuredPct/100), math.Log10(1+c.PredictedPct/100)
		low, high := b.Interval(c.PredictedPct)
		lo := below
		if low > -100 {
			lo = math.Max(below, math.Log10(1+low/100))
		}
		xys = append(xys, plotter.XY{X: x, Y: y})
		errs = append(errs, struct{ Low, High float64 }{y - lo, math.Log10(1+high/100) - y})
	}
	if len(xys) == 0 {
		return nil, nil
	}
	eb, err := plotter.NewYErrorBars(struct {
		plotter.XYs
		plotter.YErrors
	}{xys, errs})
	if err != nil {
		return nil, err
	}
	eb.LineStyle, eb.CapWidth = barStyle(col), vg.Points(2)
	return unranged{eb}, nil
}

// barStyle is an error bar's line: thin, in col made pale, under the
// points it passes through.
func barStyle(col color.Color) draw.LineStyle {
	n := color.NRGBAModel.Convert(col).(color.NRGBA)
	n.A = 0x8c
	return draw.LineStyle{Color: n, Width: vg.Points(0.5)}
}

func deref(b *band.Band) band.Band {
	if b == nil {
		return band.Band{}
	}
	return *b
}
