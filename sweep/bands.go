package sweep

import (
	"contend/band"
	"contend/scenarios"
)

// kindsOf is the kind of the predictions of metric at each point of ax.
func kindsOf(cl *band.Classifier, se *scenarios.Series, ax scenarios.Axis, metric string) []band.Kind {
	out := make([]band.Kind, len(ax.Values))
	for i, x := range ax.Values {
		out[i], _ = cl.Kind(se, ax.Name, x, metric)
	}
	return out
}

// Bands sets each table's error bands from the whole corpus of f: of
// every value, by the kind of figure its metric and point make (the
// group's Kinds), and of every change against the first variant (the
// table's Δ% columns). A value whose point completed no packet has none.
// Where the table has intervals over the profile's spread, each banded
// value's interval widened by its band is Combined.
func (p *Plan) Bands(tables []Table, f *band.File) {
	set := f.Set()
	t := 0
	for _, g := range p.Groups {
		for _, mu := range g.Metrics {
			tb := &tables[t]
			t++
			tb.Bands = make([][]band.Cell, len(g.X))
			tb.ChangeBands = make([][]band.Cell, len(g.X))
			if tb.Intervals != nil {
				tb.Combined = make([][]band.Range, len(g.X))
			}
			for i := range g.X {
				k := band.Kind{}
				if i < len(mu.Kinds) {
					k = mu.Kinds[i]
				}
				tb.Bands[i] = make([]band.Cell, len(g.Variants))
				tb.ChangeBands[i] = []band.Cell{}
				if tb.Combined != nil {
					tb.Combined[i] = make([]band.Range, len(g.Variants))
				}
				b, ok := set.For(k)
				for j, v := range tb.Values[i] {
					if k.Figure == "" || !ok || tb.NoteAt(i, j) != "" {
						continue
					}
					tb.Bands[i][j] = b.Cell(v)
					if tb.Combined != nil {
						tb.Combined[i][j] = b.Widen(tb.Intervals[i][j].Low, tb.Intervals[i][j].High)
					}
					if base := tb.Values[i][0]; j > 0 && base != 0 && tb.NoteAt(i, 0) == "" {
						tb.ChangeBands[i] = append(tb.ChangeBands[i], f.Cell(band.Kind{Figure: band.Change, Reach: k.Reach}, 100*(v-base)/base))
					}
				}
			}
		}
	}
}

// BandedTables is Tables with each value's interval over the profile's
// spread (ivs, as Intervals returns them; nil for none) and its error band
// from f.
func (p *Plan) BandedTables(values [][]float64, ivs [][][]Bounds, f *band.File) []Table {
	tables := p.Tables(values)
	if ivs != nil {
		for i := range tables {
			tables[i].Intervals = ivs[i]
		}
	}
	p.Bands(tables, f)
	return tables
}
