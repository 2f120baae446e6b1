package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"time"

	"gonum.org/v1/plot/vg"

	"contend/figures"
	"contend/internal/iofiles"
	"contend/report"
	"contend/sim"
	"contend/sweep"
)

func cmdPlot(args []string, stdout, stderr io.Writer) error {
	var o options
	fs := commonFlags("plot", &o, stderr)
	var fo figures.Options
	fs.StringVar(&fo.Kind, "kind", "scaling", "figure: "+report.OrList(figures.Kinds))
	fs.StringVar(&fo.Series, "series", "", "only this series (default: every series)")
	fs.StringVar(&fo.Variant, "variant", "", "heatmap, timeline, transfers: this variant (default: the busiest)")
	fs.Float64Var(&fo.X, "x", 0, "breakdown, heatmap, timeline, transfers: the point on the series axis (default: the largest; timeline: the smallest; transfers: the smallest with two CPUs)")
	fs.StringVar(&fo.By, "by", "state", "breakdown: stack CPU time by state or by symbol")
	fs.IntVar(&fo.Replications, "replications", 0, "scaling, insertion: runs per point for the 95% interval (default: the scenario's)")
	window := fs.Duration("window", 100*time.Millisecond, "timeline: the span of simulated time drawn")
	width := fs.Float64("width", 3.4, "width in `inches` (3.4: one column of a two-column paper)")
	csvOut := fs.String("csv", "", "also write the table behind the figure to `FILE` (atomically)")
	if err := parse(fs, &o, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("name one scenario: contend plot ingress -o fig.svg [--kind %s]", strings.Join(figures.Kinds, "|"))
	}
	if o.out == "" && isTerminal(stdout) {
		return fmt.Errorf("a figure is not for a terminal: give -o fig.svg (or .png, .pdf, .eps), or send stdout to a file")
	}
	format, err := figures.FormatOf(o.out)
	if err != nil {
		return err
	}
	if err := iofiles.CheckPath("--csv", *csvOut); err != nil {
		return err
	}
	if err := o.files.Write("--csv", *csvOut); err != nil {
		return err
	}
	s, err := o.loader().Load(fs.Arg(0))
	if err != nil {
		return err
	}
	fo.Seed = seedOf(&o, s)
	fo.Window = sim.Time(window.Nanoseconds()) * sim.Nanosecond
	fo.Run = sweep.Runner(s, o.jobs, progress(&o, "plot"))
	fo.Bands = bands()
	fig, err := figures.Make(s, fo)
	if err != nil {
		return err
	}
	data, err := fig.Render(vg.Length(*width)*vg.Inch, format)
	if err != nil {
		return fmt.Errorf("--width %g: %w", *width, err)
	}
	if *csvOut != "" {
		var buf bytes.Buffer
		if err := fig.WriteCSV(&buf); err != nil {
			return err
		}
		if err := iofiles.WriteFile("--csv", *csvOut, buf.Bytes()); err != nil {
			return err
		}
	}
	if err := emit(&o, stdout, bytes.NewBuffer(data)); err != nil || o.out == "" || o.quiet {
		return err
	}
	fmt.Fprintf(stderr, "plot: wrote %s (%s, %d bytes)\n", report.TermText(o.out), format, len(data))
	return nil
}
