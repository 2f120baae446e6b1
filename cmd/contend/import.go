package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"contend/perffile"
)

func cmdImport(args []string, stdout, stderr io.Writer) error {
	var o options
	fs := newFlags("import", &o, stderr, "text")
	variants := fs.String("variant", "", "the variant of each block found, in order, comma-separated (time_bench blocks name their own)")
	scenario := fs.String("scenario", "", "the scenario whose lines and locks a perf c2c report's cachelines and lock_stat's classes are matched to (and whose unsimulated symbols a perf report drops)")
	var io perffile.Options
	fs.StringVar(&io.Axis, "axis", "", "the axis of the points (default: the series' axis)")
	fs.Float64Var(&io.X, "x", 1, "the axis value of the points")
	fs.Float64Var(&io.Packets, "packets", 0, "packets processed during a perf stat run (for the per-packet metrics)")
	fs.StringVar(&io.Role, "role", "validate", "role of the points: validate or calibrate")
	io.MatchFlags(fs)
	if err := parse(fs, &o, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("name one file: contend import table.csv, or contend import perf.txt --variant locked --packets 1000000")
	}
	if *variants != "" {
		io.Variants = strings.Split(*variants, ",")
	}
	if io.Role != "validate" && io.Role != "calibrate" {
		return fmt.Errorf("--role %q: use validate or calibrate", io.Role)
	}
	if *scenario != "" {
		s, err := o.loader().Load(*scenario)
		if err != nil {
			return err
		}
		io.Scenario = s
	}
	name, src, err := readMeasured(&o, fs.Arg(0))
	if err != nil {
		return err
	}
	out, err := perffile.Import(name, src, io)
	if err != nil {
		return err
	}
	return emit(&o, stdout, bytes.NewBufferString(out))
}

// readMeasured reads a measured file, named by its base name in what it
// finds.
func readMeasured(o *options, path string) (string, []byte, error) {
	if err := o.files.Read("the input "+path, path); err != nil {
		return "", nil, err
	}
	src, err := os.ReadFile(path)
	return filepath.Base(path), src, err
}
