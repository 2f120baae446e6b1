package main

import (
	"bytes"
	"fmt"
	"io"

	"contend/cpu"
	"contend/report"
	"contend/scenarios"
	"contend/sweep"
)

// fitCorpus is contend fit --corpus PARAM [files]: one constant fitted over
// every built-in scenario's series with validate points (and the files
// named), each case's leave-one-case-out error beside it.
func fitCorpus(o *options, param, gridText string, args []string, stdout io.Writer) error {
	if _, ok := scenarios.CorpusParams[param]; !ok {
		return fmt.Errorf("--corpus %s: not a corpus constant; use profile.snoop", report.TermText(param))
	}
	grid, err := scenarios.ParseGrid(gridText)
	if err != nil {
		return err // Main escapes it
	}
	names := args
	if len(names) == 0 {
		names = scenarios.BuiltinNames()
	}
	var ss []*scenarios.Scenario
	for _, n := range names {
		s, err := o.loader().Load(n)
		if err != nil {
			return err
		}
		ss = append(ss, s)
	}
	prog := progress(o, "fit")
	res, err := scenarios.FitCorpus(scenarios.Corpus(ss), param, cpu.DefaultSnoop, grid, o.jobs,
		func(s *scenarios.Scenario) int64 { return seedOf(o, s) },
		func(s *scenarios.Scenario) scenarios.Runner { return sweep.Runner(s, o.jobs, prog) })
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := report.RenderCorpusFit(&buf, o.format, param, res); err != nil {
		return err
	}
	return emit(o, stdout, &buf)
}
