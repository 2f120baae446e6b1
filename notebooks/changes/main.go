package main

import (
	"fmt"
	"log"
	"math"
	"strings"

	"contend/band"
	"contend/figures"
	"contend/notebooks/nb"
	"contend/scenarios"
)

func main() {
	var scens []*scenarios.Scenario
	for _, name := range scenarios.BuiltinNames() {
		scens = append(scens, nb.Builtin(name))
	}
	f, err := figures.Changes(scens, figures.Options{Bands: band.Committed()})
	if err != nil {
		log.Fatal(err)
	}
	measured, predicted := nb.Column(f, "measured_pct"), nb.Column(f, "predicted_pct")
	low, high := nb.Column(f, "band_low"), nb.Column(f, "band_high")
	// Per series, in the table's order: how many of its changes are inside
	// the band, and the furthest outside.
	type tally struct {
		in, banded, n int
		far           float64
		example       string
	}
	var order []string
	bySeries := map[string]*tally{}
	within, banded := 0, 0
	for i, r := range f.Rows {
		t := bySeries[r[0]]
		if t == nil {
			t = &tally{}
			bySeries[r[0]] = t
			order = append(order, r[0])
		}
		t.n++
		// The bar: the change's error band, learned without its case.
		if low[i] <= measured[i] && measured[i] <= high[i] {
			t.banded++
			banded++
		}
		// After/before predicted against measured: the figure's band.
		d := (1+predicted[i]/100)/(1+measured[i]/100) - 1
		if math.Abs(d) <= 0.1 {
			t.in++
			within++
		} else if math.Abs(d) > math.Abs(t.far) {
			t.far = d
			t.example = fmt.Sprintf("%s %s at %s=%s, %+.0f%% measured, %+.0f%% predicted", r[1], r[5], r[3], r[4], measured[i], predicted[i])
		}
	}
	var lines []string
	for _, name := range order {
		t := bySeries[name]
		line := fmt.Sprintf("- %s: %d of %d inside, %d within its bar", name, t.in, t.n, t.banded)
		if t.example != "" {
			line += fmt.Sprintf("; furthest out %s", t.example)
		}
		lines = append(lines, line)
	}
	nb.Save("changes", "Every published change: measured against predicted", f, fmt.Sprintf(`
Each point is a change a commit measured, against the same change simulated:
a variant's reference point over its series' base (the before) at the same
point and metric, after/before, on log axes; one colour and glyph per
scenario, and on the right the square from 0.5 to 2, where most changes
lie, enlarged. On the diagonal the model
predicts the change exactly; in the grey band its after/before is within 10%%
of the measured one. %d of the %d changes are inside it. The bar through each
point is its 90%% error band: the predicted change less and more the points
that changes of its kind have missed by over the published cases, learned
without the point's own case, as contend validate --changes gives it. Where
the bar crosses the diagonal the measured change is within it: %d of the %d.

%s`, within, len(measured), banded, len(measured), strings.Join(lines, "\n")))
}
