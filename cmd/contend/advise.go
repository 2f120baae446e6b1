package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"contend/advise"
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
	if err := checkSamples(*samples); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("name one scenario: contend advise ingress --variant locked --cores 2")
	}
	if err := checkDir(*write); err != nil {
		return err
	}
	s, err := o.loader().Load(fs.Arg(0))
	if err != nil {
		return err
	}
	pt, err := advisePoint(s, fs, *variant, *seriesName, *cores)
	if err != nil {
		return err
	}
	pt.Seed = seedOf(&o, s)
	prog := progress(&o, "advise")
	a, err := advise.At(s, pt, *samples, advise.Env{
		Run:  func(s *scenarios.Scenario) scenarios.Runner { return sweep.Runner(s, o.jobs, prog) },
		Load: func(extra []byte) (*scenarios.Scenario, error) { return o.loader().LoadWith(fs.Arg(0), extra) },
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

// checkDir accepts an existing directory for --write.
func checkDir(dir string) error {
	if dir == "" {
		return nil
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("--write %s: not a directory; create it (mkdir -p %s) or name another", dir, dir)
	}
	return nil
}

// advisePoint checks the flags against the scenario and returns the point
// advise simulates.
func advisePoint(s *scenarios.Scenario, fs *flag.FlagSet, variant, seriesName string, cores int) (scenarios.Point, error) {
	var pt scenarios.Point
	if s.Variant(variant) == nil {
		if variant == "" {
			return pt, fmt.Errorf("--variant: name the variant to improve, one of %s", strings.Join(s.VariantNames(), ", "))
		}
		return pt, fmt.Errorf("--variant %q: %s has no such variant; use one of %s", variant, s.Name, strings.Join(s.VariantNames(), ", "))
	}
	se, err := adviseSeries(s, variant, seriesName)
	if err != nil {
		return pt, err
	}
	axis, x := cpuAxis(s, se)
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == "cores" })
	if set { // at least 1: see flagBounds
		x = float64(cores)
	}
	return scenarios.Point{Series: se, Variant: variant, Axis: axis, X: x}, nil
}

// adviseSeries returns the series asked for, or the first that runs variant.
func adviseSeries(s *scenarios.Scenario, variant, name string) (*scenarios.Series, error) {
	all := sweep.DefaultSeries(s)
	var names []string
	for _, se := range all {
		names = append(names, se.Name)
		if name == se.Name || name == "" && slices.Contains(se.Variants, variant) {
			return se, nil
		}
	}
	if name == "" {
		return all[0], nil
	}
	return nil, fmt.Errorf("--series %q: %s has no such series; use one of %s", name, s.Name, strings.Join(names, ", "))
}

// cpuAxis is the axis that sets the flood's CPUs for se, and its default
// value: the series' largest point, the most contended it measured.
func cpuAxis(s *scenarios.Scenario, se *scenarios.Series) (string, float64) {
	x := float64(s.Workload.Cores)
	if s.AxisDrives(se.Axis) != scenarios.DrivesCPUs {
		return "cores", x
	}
	for _, p := range se.Points {
		x = max(x, p)
	}
	return se.Axis, x
}
