package scenarios_test

import (
	"math"
	"testing"

	"contend/scenarios"
)

// Tolerances on the built-in scenarios' reference points, in percent of the
// measured value: a calibrate point was fitted and must stay fitted; a
// validate point is a prediction.
const (
	calibrateTolPct = 5
	validateTolPct  = 10
)

// shapes lists checks of a series beyond the tolerances: the direction its
// seed reports, which must hold at every point whatever the errors.
var shapes = map[string]func(t *testing.T, rows []scenarios.Row){
	// dst-use (seed 004): percpu-lazy above eager at every rx_queues.
	"dst-use": func(t *testing.T, rows []scenarios.Row) {
		eager, lazy := map[float64]float64{}, map[float64]float64{}
		for _, r := range rows {
			if math.IsNaN(r.Predicted) || math.IsInf(r.Predicted, 0) || r.Predicted <= 0 {
				t.Errorf("%s at %s=%v: %s predicted %v; want a finite positive number", r.Variant, r.Axis, r.X, r.Metric, r.Predicted)
			}
			switch r.Variant {
			case "eager":
				eager[r.X] = r.Predicted
			case "percpu-lazy":
				lazy[r.X] = r.Predicted
			}
		}
		if len(eager) == 0 {
			t.Fatal("no eager points")
		}
		for x, e := range eager {
			l, ok := lazy[x]
			if !ok {
				t.Errorf("rx_queues=%v: eager but no percpu-lazy point", x)
				continue
			}
			if !(l > e) {
				t.Errorf("rx_queues=%v: percpu-lazy %.0f, eager %.0f; seed 004 has percpu-lazy faster", x, l, e)
			}
		}
	},
}

func TestBuiltinPredictions(t *testing.T) {
	seen := map[string]bool{}
	for _, name := range scenarios.BuiltinNames() {
		s, err := scenarios.LoadBuiltin(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, se := range s.Series {
			seen[se.Name] = true
			t.Run(name+"/"+se.Name, func(t *testing.T) {
				rows, err := s.Predict(se, s.Run.Seed, nil, s.Serial)
				if err != nil {
					t.Fatal(err)
				}
				if len(rows) != len(se.Refs) {
					t.Fatalf("%d rows for %d reference points", len(rows), len(se.Refs))
				}
				if check, ok := shapes[se.Name]; ok {
					check(t, rows)
				}
				for _, r := range rows {
					tol := float64(validateTolPct)
					if r.Role == "calibrate" {
						tol = calibrateTolPct
					}
					if !(math.Abs(r.ErrorPct) <= tol) {
						t.Errorf("%s %s at %s=%v: %s measured %v %s, predicted %.4g (%+.1f%%); a %s point must be within %v%%",
							r.Scenario, r.Variant, r.Axis, r.X, r.Metric, r.Measured, r.Unit, r.Predicted, r.ErrorPct, r.Role, tol)
					}
				}
			})
		}
	}
	for name := range shapes {
		if !seen[name] {
			t.Errorf("shapes names series %q, which no built-in has", name)
		}
	}
}
