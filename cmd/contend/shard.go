package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"

	"contend/internal/iofiles"
	"contend/report"
	"contend/sweep"
)

// shardFlags are sweep's --shard and --shard-count.
type shardFlags struct {
	spec  string
	count int
}

func (sh *shardFlags) declare(fs *flag.FlagSet) {
	fs.StringVar(&sh.spec, "shard", "", "simulate only slice `I/N` of the points (0 ≤ I < N) and write it as a JSON shard for contend merge; "+
		"auto takes I from JOB_COMPLETION_INDEX (Kubernetes Indexed Job) or SLURM_ARRAY_TASK_ID (Slurm array)")
	fs.IntVar(&sh.count, "shard-count", 0, "N for --shard auto (default in a Slurm array: SLURM_ARRAY_TASK_COUNT)")
}

// slice returns the slice asked for, or nil for the whole sweep.
func (sh *shardFlags) slice() (*sweep.Slice, error) {
	return sweep.ParseSlice(sh.spec, sh.count, os.Getenv)
}

func cmdMerge(args []string, stdout, stderr io.Writer) error {
	o := options{jobs: 1} // merge simulates nothing
	fs := flag.NewFlagSet("contend merge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.out, "o", "", "write the output to `FILE` (atomically) instead of stdout")
	fs.StringVar(&o.format, "format", "", "output format: text, csv or json (default: the one the shards were swept with)")
	if err := parse(fs, &o, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return errors.New("name the shards: contend merge shard-*.json (written by contend sweep --shard I/N)")
	}
	files := fs.Args()
	shards := make([]*sweep.Shard, len(files))
	for k, name := range files {
		if err := o.files.Read("the shard "+name, name); err != nil {
			return err
		}
		b, err := os.ReadFile(name)
		if err != nil {
			return fmt.Errorf("%s: %v", name, iofiles.UnwrapPath(err))
		}
		if shards[k], err = sweep.DecodeShard(name, b); err != nil {
			return err
		}
	}
	p, values, err := sweep.Merge(files, shards)
	if err != nil {
		return err
	}
	if o.format == "" {
		o.format = shards[0].Format
	}
	if !slices.Contains([]string{"text", "csv", "json"}, o.format) {
		return fmt.Errorf("--format %q: use text, csv or json", o.format)
	}
	var buf bytes.Buffer
	if err := report.RenderTables(&buf, o.format, p.BandedTables(values, nil, bands()), bands()); err != nil {
		return err
	}
	return emit(&o, stdout, &buf)
}
