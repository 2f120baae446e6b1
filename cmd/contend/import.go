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
	var io perffile.Options
	fs.StringVar(&io.Axis, "axis", "", "the axis of the points (default: the series' axis)")
	fs.Float64Var(&io.X, "x", 1, "the axis value of the points")
	fs.Float64Var(&io.Packets, "packets", 0, "packets processed during a perf stat run (for the per-packet metrics)")
	fs.Float64Var(&io.MinShare, "min-share", 1, "keep perf report symbols with at least this `percent` of cycles")
	fs.StringVar(&io.Role, "role", "validate", "role of the points: validate or calibrate")
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
	path := fs.Arg(0)
	if err := o.files.Read("the input "+path, path); err != nil {
		return err
	}
	src, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	out, err := perffile.Import(filepath.Base(path), src, io)
	if err != nil {
		return err
	}
	return emit(&o, stdout, bytes.NewBufferString(out))
}
