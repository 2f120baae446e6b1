package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"contend/cpu"
	"contend/scenarios"
)

// fitCorpus is contend fit --corpus PARAM [files]: one constant fitted over
// every built-in scenario's series with validate points (and the files
// named), each case's leave-one-case-out error beside it.
func fitCorpus(o *options, param, gridText string, args []string, stdout io.Writer) error {
	if _, ok := scenarios.CorpusParams[param]; !ok {
		return fmt.Errorf("--corpus %s: not a corpus constant; use profile.snoop", termText(param))
	}
	grid := []float64{0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1}
	if gridText != "" {
		grid = nil
		for _, f := range strings.Split(gridText, ",") {
			v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
			if err != nil {
				return fmt.Errorf("--grid %s: %q is not a number; give values separated by commas, e.g. --grid 0.1,0.3,0.5", termText(gridText), termText(f))
			}
			grid = append(grid, v)
		}
	}
	names := args
	if len(names) == 0 {
		names = scenarios.BuiltinNames()
	}
	var ss []*scenarios.Scenario
	for _, n := range names {
		s, err := load(n, o)
		if err != nil {
			return err
		}
		ss = append(ss, s)
	}
	prog := progress(o, "fit")
	res, err := scenarios.FitCorpus(scenarios.Corpus(ss), param, cpu.DefaultSnoop, grid,
		func(s *scenarios.Scenario) int64 { return seedOf(o, s) },
		func(s *scenarios.Scenario) scenarios.Runner { return runner(s, o.jobs, prog) })
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if o.format == "json" {
		enc := json.NewEncoder(&buf)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			return err
		}
		return emit(o, stdout, &buf)
	}
	fmt.Fprintf(&buf, "%s fitted over %d cases: %.3g (today %.3g)\n", param, len(res.Cases), res.Best, res.Current)
	fmt.Fprintf(&buf, "  grid:")
	for i, v := range res.Grid {
		fmt.Fprintf(&buf, " %.3g=%.4f", v, res.Total[i])
	}
	fmt.Fprintf(&buf, " (summed mean squared log error)\n\n")
	fmt.Fprintf(&buf, "%-40s %6s %10s %10s %12s %12s\n", "CASE", "POINTS", "RMS TODAY", "RMS FIT", "FIT WITHOUT", "RMS WITHOUT")
	for _, c := range res.Cases {
		fmt.Fprintf(&buf, "%-40s %6d %9.1f%% %9.1f%% %12.3g %11.1f%%\n", c.Case, c.Points, c.AtCurrent, c.AtBest, c.Held, c.AtHeld)
	}
	for _, s := range res.Skipped {
		fmt.Fprintf(&buf, "not a case: %s (its profile sets snoop or snoop_window)\n", s)
	}
	fmt.Fprintf(&buf, "archived hosts take no part: calibrate measures each one's snoop_window\n")
	return emit(o, stdout, &buf)
}
