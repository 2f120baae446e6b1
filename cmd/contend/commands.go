package main

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"

	"contend/internal/iofiles"
	"contend/report"
	"contend/scenarios"
	"contend/sweep"
)

func cmdList(args []string, stdout, stderr io.Writer) error {
	var o options
	fs := newFlags("list", &o, stderr, "text")
	if err := parse(fs, &o, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("list takes no scenario names (got %s); to see one, use contend run %s", strings.Join(fs.Args(), " "), fs.Arg(0))
	}
	var buf bytes.Buffer
	if err := report.WriteList(&buf); err != nil {
		return err
	}
	return emit(&o, stdout, &buf)
}

func cmdRun(args []string, stdout, stderr io.Writer) error {
	return runTables("run", false, args, stdout, stderr)
}

func cmdSweep(args []string, stdout, stderr io.Writer) error {
	return runTables("sweep", true, args, stdout, stderr)
}

func runTables(name string, axes bool, args []string, stdout, stderr io.Writer) error {
	var o options
	fs := newFlags(name, &o, stderr, "text", "csv", "json")
	profileFlag(fs, &o)
	seriesName := fs.String("series", "", "only this series")
	samples := samplesFlag(fs, "every value", "")
	var sh shardFlags
	if axes {
		sh.declare(fs)
	}
	if err := parse(fs, &o, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return fmt.Errorf("name a scenario: contend %s ingress (see contend list)", name)
	}
	if err := sweep.CheckSamples(*samples); err != nil {
		return err
	}
	slice, err := sh.slice()
	if err != nil {
		return err
	}
	if slice != nil && *samples > 0 {
		return fmt.Errorf("--uncertainty with --shard: a shard holds one prediction per point; sample the spread without --shard")
	}
	p := &sweep.Plan{}
	for _, arg := range fs.Args() {
		s, err := o.loader().Load(arg)
		if err != nil {
			return err
		}
		if err := p.Add(s, seedOf(&o, s), *seriesName, axes); err != nil {
			return err
		}
	}
	values, err := p.Simulate(slice, o.jobs, progress(&o, name))
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if slice != nil {
		err = report.WriteJSON(&buf, p.Shard(*slice, o.format, o.seed, values))
	} else {
		var ivs [][][]sweep.Bounds
		if *samples > 0 {
			if ivs, err = p.Intervals(*samples, o.jobs, progress(&o, name)); err != nil {
				return err
			}
		}
		err = report.RenderTables(&buf, o.format, p.BandedTables(values, ivs, bands()), bands())
	}
	if err != nil {
		return err
	}
	return emit(&o, stdout, &buf)
}

func cmdValidate(args []string, stdout, stderr io.Writer) error {
	var o options
	fs := newFlags("validate", &o, stderr, "text", "csv", "json")
	profileFlag(fs, &o)
	samples := samplesFlag(fs, "each figure", ", and whether the measured figure is inside")
	onlyChanges := fs.Bool("changes", false, "print only what each variant changes against its series' base (the before), measured and predicted")
	corpus := fs.Bool("corpus", false, "learn the error bands from every built-in scenario's validate points and the files named: each point's kind and error, and each kind's 90% band (--format json writes band/band.json)")
	if err := parse(fs, &o, args); err != nil {
		return err
	}
	if err := sweep.CheckSamples(*samples); err != nil {
		return err
	}
	if *onlyChanges && *samples > 0 || *corpus && (*onlyChanges || *samples > 0) {
		return fmt.Errorf("--changes, --corpus and --uncertainty: the changes have no intervals, and the corpus is every validate point and change at its prediction; drop one of them")
	}
	var v sweep.Validation
	names := fs.Args()
	if len(names) == 0 || *corpus {
		names = append(scenarios.BuiltinNames(), names...)
	}
	prog := progress(&o, "validate")
	var scens []*scenarios.Scenario
	var seeds []int64
	for _, arg := range names {
		s, err := o.loader().Load(arg)
		if err != nil {
			return err
		}
		if *samples > 0 {
			if err := v.Add(s, seedOf(&o, s), *samples, sweep.Runner(s, o.jobs, prog)); err != nil {
				return err
			}
			continue
		}
		scens, seeds = append(scens, s), append(seeds, seedOf(&o, s))
	}
	if err := v.AddAll(scens, seeds, o.jobs, prog); err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := report.RenderValidationAs(&buf, o.format, *onlyChanges, *corpus, v, bands()); err != nil {
		return err
	}
	return emit(&o, stdout, &buf)
}

func cmdFit(args []string, stdout, stderr io.Writer) error {
	var o options
	fs := newFlags("fit", &o, stderr, "text", "json")
	profileFlag(fs, &o)
	seriesName := fs.String("series", "", "only this series")
	corpus := fs.String("corpus", "", "fit the constant `PARAM` (profile.snoop) once over every built-in scenario's series with validate points and the files named, each case's leave-one-case-out error beside it")
	grid := fs.String("grid", "", "with --corpus, the values to try, separated by commas (default 0.05,0.1,0.2,0.3,0.4,0.5,0.6,0.8,1)")
	write := fs.String("write", "", "write a copy of the scenario with the fitted values to `FILE` (never the input)")
	scan := fs.Int("scan", 0, "with one free parameter, also try `N` values over its bounds and warn of other values that meet the calibrate points, or where the model jumps across them (0: do not)")
	if err := parse(fs, &o, args); err != nil {
		return err
	}
	if *corpus != "" {
		return fitCorpus(&o, *corpus, *grid, fs.Args(), stdout)
	}
	if o.format != "text" {
		return fmt.Errorf("--format %s: fit of one scenario writes text; --format json is for --corpus", report.TermText(o.format))
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("name one scenario: contend fit ingress [--series ingress-bare]")
	}
	if err := iofiles.CheckPath("--write", *write); err != nil {
		return err
	}
	if err := o.files.Write("--write", *write); err != nil {
		return err
	}
	if *scan == 1 {
		return fmt.Errorf("--scan %d: give 2 to 10000 values to try (100 or more to find a narrow window), or 0 for none", *scan)
	}
	s, err := o.loader().Load(fs.Arg(0))
	if err != nil {
		return err
	}
	var src []byte
	if *write != "" {
		if src, err = iofiles.Source(fs.Arg(0)); err != nil {
			return err
		}
	}
	prog := progress(&o, "fit")
	var buf bytes.Buffer
	fitted := 0
	for _, se := range s.Series {
		if *seriesName != "" && se.Name != *seriesName {
			continue
		}
		if *seriesName == "" && (len(se.Free) == 0 || !slices.ContainsFunc(se.Refs, func(r scenarios.Reference) bool { return r.Role == "calibrate" })) {
			report.WriteNothingToFit(&buf, se)
			continue
		}
		fitted++
		best, rows, err := s.Fit(se, seedOf(&o, s), sweep.Runner(s, o.jobs, prog))
		if err != nil {
			return err
		}
		report.WriteFit(&buf, s, se, best, rows)
		others, err := s.OtherFits(se, seedOf(&o, s), best, *scan, sweep.Runner(s, o.jobs, prog))
		if err != nil {
			return err
		}
		if len(others) > 0 {
			report.WriteOtherFits(&buf, se.Free[0], others)
		}
		if src != nil {
			if src, err = s.WriteFitted(src, se, best, rows); err != nil {
				return err
			}
		}
	}
	if fitted == 0 && *seriesName == "" && len(s.Series) > 0 {
		return fmt.Errorf("nothing to fit: no series of %s has both free parameters and calibrate points", s.Name)
	}
	if fitted == 0 {
		return fmt.Errorf("nothing to fit: %s has no [[series]]%s; a series names the free parameters and calibrate points", s.Name, report.SeriesNamed(*seriesName))
	}
	if src != nil {
		if err := iofiles.WriteFile("--write", *write, src); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "fit: wrote %s\n", report.TermText(*write))
	}
	return emit(&o, stdout, &buf)
}
