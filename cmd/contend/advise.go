package main

import (
	"bytes"
	"fmt"
	"io"

	"contend/advise"
	"contend/internal/iofiles"
	"contend/report"
	"contend/scenarios"
	"contend/sweep"
)

func cmdAdvise(args []string, stdout, stderr io.Writer) error {
	var o options
	fs := newFlags("advise", &o, stderr, "text", "csv", "json")
	profileFlag(fs, &o)
	variant := fs.String("variant", "", "the variant to improve (required)")
	seriesName := fs.String("series", "", "the measured machine to simulate on (default: the first series that runs the variant)")
	cores := fs.Int("cores", 0, "CPUs to simulate (default: the series' largest point on a CPU axis, else the workload's cores)")
	write := fs.String("write", "", "write each row as a scenario holding its variant into the directory `DIR`")
	samples := samplesFlag(fs, "every gain", "; rows rank by its lower bound")
	if err := parse(fs, &o, args); err != nil {
		return err
	}
	if err := sweep.CheckSamples(*samples); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("name one scenario: contend advise ingress --variant locked --cores 2")
	}
	if err := iofiles.CheckDir("--write", *write); err != nil {
		return err
	}
	s, err := o.loader().Load(fs.Arg(0))
	if err != nil {
		return err
	}
	pt, err := advise.PointOf(s, *variant, *seriesName, *cores)
	if err != nil {
		return err
	}
	pt.Seed = seedOf(&o, s)
	prog := progress(&o, "advise")
	a, err := advise.At(s, pt, *samples, advise.Env{
		Run:   func(s *scenarios.Scenario) scenarios.Runner { return sweep.Runner(s, o.jobs, prog) },
		Load:  func(extra []byte) (*scenarios.Scenario, error) { return o.loader().LoadWith(fs.Arg(0), extra) },
		Bands: bands(),
	})
	if err != nil {
		return err
	}
	if *write != "" {
		if err := advise.WriteScenarios(fs.Arg(0), *write, o.profile, &o.files, a); err != nil {
			return err
		}
	}
	var buf bytes.Buffer
	if err := report.RenderAdvice(&buf, o.format, &a.Advice); err != nil {
		return err
	}
	return emit(&o, stdout, &buf)
}
