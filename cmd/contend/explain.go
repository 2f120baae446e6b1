package main

import (
	"bytes"
	"fmt"
	"io"

	"contend/perffile"
	"contend/report"
	"contend/scenarios"
	"contend/sweep"
)

func cmdExplain(args []string, stdout, stderr io.Writer) error {
	var o options
	fs := newFlags("explain", &o, stderr, "text", "json")
	profileFlag(fs, &o)
	seriesName := fs.String("series", "", "series (machine) to simulate; default: the first that has the variant")
	variant := fs.String("variant", "", "variant to explain (required)")
	cores := fs.Int("cores", 0, "flood CPUs (default: the workload's)")
	traceN := fs.Int("trace", 0, fmt.Sprintf("also list the first `N` line transfers of the measured interval (at most %d)", maxTrace))
	traceFrom := fs.Duration("trace-from", 0, "with --trace: list the transfers asked for this long into the measured interval or later (e.g. 4ms)")
	traceLines := fs.String("trace-line", "", "with --trace: list only the transfers of these `lines` (comma-separated names)")
	compare := fs.String("compare", "", "print the figures of a measured `FILE` (perf report, perf c2c report, lock_stat; as import reads it) beside the simulated ones")
	compareLine := fs.Int("compare-line", 0, "with --compare: the block of the file that starts at line `N`, where it holds several")
	var mo perffile.Options
	mo.MatchFlags(fs)
	if err := parse(fs, &o, args); err != nil {
		return err
	}
	if *traceLines != "" && *traceN == 0 {
		return fmt.Errorf("--trace-line %q: give --trace N too, the number of transfers to list", *traceLines)
	}
	if *traceFrom > 0 && *traceN == 0 {
		return fmt.Errorf("--trace-from %v: give a time from the start of the measured interval (0 or more, e.g. 4ms), with --trace N", *traceFrom)
	}
	if fs.NArg() != 1 || *variant == "" {
		return fmt.Errorf("usage: contend explain SCENARIO --variant NAME [--cores N] [--series NAME]")
	}
	s, err := o.loader().Load(fs.Arg(0))
	if err != nil {
		return err
	}
	if s.Variant(*variant) == nil {
		return fmt.Errorf("--variant %q: %s has %v", *variant, s.Name, s.VariantNames())
	}
	se := sweep.SeriesRunning(s, *variant, *seriesName)
	if se == nil {
		return fmt.Errorf("no series of %s runs variant %q (use --series)", s.Name, *variant)
	}
	p := scenarios.Point{Series: se, Variant: *variant, Seed: seedOf(&o, s)}
	if *cores > 0 {
		p.Axis, p.X = "cores", float64(*cores)
	}
	e, err := sweep.Explain(s, p, sweep.Trace{N: *traceN, From: *traceFrom, Lines: *traceLines})
	if err != nil {
		return err
	}
	var name string
	var compared []report.Compared
	if *compare != "" {
		var src []byte
		if name, src, err = readMeasured(&o, *compare); err != nil {
			return err
		}
		mo.Scenario = s
		if compared, err = perffile.Compare(name, src, mo, *variant, *compareLine, e.Result); err != nil {
			return err
		}
	}
	var buf bytes.Buffer
	if err := report.RenderExplain(&buf, o.format, e, name, compared); err != nil {
		return err
	}
	return emit(&o, stdout, &buf)
}

// maxTrace bounds explain --trace: a listing to read, not a data set.
const maxTrace = 100000
