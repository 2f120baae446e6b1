package report

import (
	"bytes"
	"encoding/json"
	"fmt"

	"contend/scenarios"
)

// WriteFit says what fit found for series se of s: the values of its free
// parameters, in their units, and every reference point it was fitted to
// or predicts.
func WriteFit(buf *bytes.Buffer, s *scenarios.Scenario, se *scenarios.Series, best map[string]float64, rows []scenarios.Row) {
	fmt.Fprintf(buf, "series %s: fitted to %d calibrate points\n", se.Name, countRole(rows, "calibrate"))
	for _, f := range se.Free {
		if u := s.FreeUnit(se, f); u != "" {
			fmt.Fprintf(buf, "  %s = %.4g %s\n", f, best[f], u)
		} else {
			fmt.Fprintf(buf, "  %s = %.4g\n", f, best[f])
		}
	}
	for _, r := range rows {
		fmt.Fprintf(buf, "  %-9s %-16s %s=%s %-32s measured %s predicted %s (%s%%)\n", r.Role, r.Variant, r.Axis, Num(r.X), r.Metric, Fixed(r.Measured), Fixed(r.Predicted), Signed(r.ErrorPct, 1))
		if r.Note != "" {
			fmt.Fprintf(buf, "    note: %s\n", r.Note)
		}
	}
}

// WriteOtherFits warns of the other values of the free parameter param
// that meet the calibrate points too, and of where the model jumps across
// them.
func WriteOtherFits(buf *bytes.Buffer, param string, others []scenarios.Other) {
	for _, x := range others {
		if x.Root {
			fmt.Fprintf(buf, "  warning: %s = %.4g meets the calibrate points too: the model has more than one regime here; the other figures, or what the benchmark does, say which value is meant\n", param, x.Value)
		} else {
			fmt.Fprintf(buf, "  warning: at %s = %.4g the model jumps from %s%% to %s%% on the calibrate points: a border between regimes; check which side the measurement is on (the other figures, or what the benchmark does)\n", param, x.Value, Signed(x.From, 1), Signed(x.To, 1))
		}
	}
}

// WriteNothingToFit says that series se has nothing to fit.
func WriteNothingToFit(buf *bytes.Buffer, se *scenarios.Series) {
	fmt.Fprintf(buf, "series %s: nothing to fit (no free parameters or no calibrate points): every point is a prediction\n", se.Name)
}

func countRole(rows []scenarios.Row, role string) int {
	n := 0
	for _, r := range rows {
		if r.Role == role {
			n++
		}
	}
	return n
}

// RenderCorpusFit prints what fit --corpus found for the constant param:
// in text, the grid's summed errors and each case's error today, at the
// value fitted and at the value fitted without it; in json, res as it is.
func RenderCorpusFit(buf *bytes.Buffer, format, param string, res *scenarios.CorpusFit) error {
	if format == "json" {
		enc := json.NewEncoder(buf)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	fmt.Fprintf(buf, "%s fitted over %d cases: %.3g (today %.3g)\n", param, len(res.Cases), res.Best, res.Current)
	fmt.Fprintf(buf, "  grid:")
	for i, v := range res.Grid {
		fmt.Fprintf(buf, " %.3g=%.4f", v, res.Total[i])
	}
	fmt.Fprintf(buf, " (mean squared log error, summed over published cases: a scenario's series share its weight)\n\n")
	fmt.Fprintf(buf, "%-40s %6s %6s %10s %10s %12s %12s\n", "CASE", "WEIGHT", "POINTS", "RMS TODAY", "RMS FIT", "FIT WITHOUT", "RMS WITHOUT")
	for _, c := range res.Cases {
		fmt.Fprintf(buf, "%-40s %6.3g %6d %9.1f%% %9.1f%% %12.3g %11.1f%%\n", c.Case, c.Weight, c.Points, c.AtCurrent, c.AtBest, c.Held, c.AtHeld)
	}
	fmt.Fprintf(buf, "FIT WITHOUT: the value fitted on every other scenario, this one's series all left out\n")
	for _, s := range res.Skipped {
		fmt.Fprintf(buf, "not a case: %s (its profile sets snoop or snoop_window)\n", s)
	}
	fmt.Fprintf(buf, "archived hosts take no part: calibrate measures each one's snoop_window\n")
	return nil
}
