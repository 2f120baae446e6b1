package web

import (
	"contend/band"
	"contend/scenarios"
)

// bandOf is b around prediction v as the page gets it, with what it holds
// over the published cases (f.Describe, the words the CLI prints); no
// band (an empty Kind) when ok is false.
func bandOf(f *band.File, b band.Band, ok bool, v float64) Band {
	if !ok {
		return Band{}
	}
	c := b.Cell(v)
	return Band{Kind: c.Kind, Width: c.Width, Low: c.Low, High: c.High, Text: f.Describe(b)}
}

// predictionBand is the whole corpus's band of the prediction v of metric
// at x on se's axis, as run and sweep give it; none for a point outside a
// series, or one whose CPUs cannot be laid out.
func predictionBand(f *band.File, cl *band.Classifier, se *scenarios.Series, axis string, x float64, metric string, v float64) Band {
	if se == nil {
		return Band{}
	}
	k, err := cl.Kind(se, axis, x, metric)
	if err != nil {
		return Band{}
	}
	b, ok := f.Set().For(k)
	return bandOf(f, b, ok, v)
}

// withBands adds the band validate gives each reference row and change of
// se (of its kind, learned without its case; none for a calibrate row).
func withBands(f *band.File, sc *scenarios.Scenario, se *scenarios.Series, rows []scenarios.Row) ([]RefRow, []ChangeRow, error) {
	var c band.Corpus
	rowTags, changeTags, err := c.Add(band.NewClassifier(sc), sc, se, rows)
	if err != nil {
		return nil, nil, err
	}
	refs := make([]RefRow, len(rows))
	for i, r := range rows {
		b, ok := f.For(rowTags[i].Kind, rowTags[i].Case)
		refs[i] = RefRow{Row: r, Band: bandOf(f, b, ok && r.Role == "validate", r.Predicted)}
	}
	changes := []ChangeRow{}
	for i, ch := range scenarios.Changes(se, rows) {
		b, ok := f.For(changeTags[i].Kind, changeTags[i].Case)
		changes = append(changes, ChangeRow{Change: ch, Band: bandOf(f, b, ok, ch.PredictedPct)})
	}
	return refs, changes, nil
}
