// Command contend predicts what a locking, counter or RCU change does to
// packets per second on N cores, and explains why.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"contend/internal/version"
	"contend/report"
)

func main() {
	os.Exit(Main(os.Args[1:], os.Stdout, os.Stderr))
}

const usage = `usage: contend <command> [flags] [scenario ...]

commands:
  list       built-in scenarios and their profiles
  run        simulate every series and variant of a scenario over its sweep; print a table
  sweep      like run, over the scenario's [sweep] axes; --shard I/N simulates one slice of it
  merge      put the shards of a sweep together: the output of the whole sweep
  validate   compare every reference point with its prediction (all built-ins by default)
  explain    simulated perf report and perf c2c for one variant at one point
  fit        fit a series' free parameters to its calibrate points
  advise     derive what-if variants of one variant (per-cpu, no lock, qspinlock, RCU...) and rank them
  plot       a figure for a paper (SVG, PNG, PDF or EPS) and the CSV behind it
  serve      a browser page that runs scenarios and draws them live
  calibrate  measure this machine with microbenchmarks and write its hardware profile
  import     turn a measured table, perf stat or perf report text into reference points
  version    which build this is (also --version)

A scenario is a built-in name (see list) or a path to a .toml file.
Run 'contend <command> -h' for its flags.
`

// Main runs the CLI and returns the exit status.
func Main(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	cmds := commandFuncs()
	if v := args[0]; v == "version" || v == "--version" || v == "-version" {
		if len(args) > 1 {
			fmt.Fprintf(stderr, "contend %s: takes no arguments (got %s)\n", v, report.TermText(args[1]))
			return 2
		}
		fmt.Fprintln(stdout, version.Line())
		return 0
	}
	cmd, ok := cmds[args[0]]
	if !ok {
		if args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
			fmt.Fprint(stdout, usage)
			return 0
		}
		fmt.Fprintf(stderr, "contend: unknown command %q\n%s", args[0], usage) // %q escapes it
		return 2
	}
	if err := cmd(args[1:], stdout, stderr); err != nil {
		switch {
		case errors.Is(err, flag.ErrHelp):
			return 0
		case err == errUsage:
			return 2
		}
		fmt.Fprintf(stderr, "contend %s: %s\n", args[0], report.TermText(err.Error()))
		return 1
	}
	return 0
}

// commandFuncs maps each command to the function that runs it.
func commandFuncs() map[string]func([]string, io.Writer, io.Writer) error {
	return map[string]func([]string, io.Writer, io.Writer) error{
		"list": cmdList, "run": cmdRun, "sweep": cmdSweep, "validate": cmdValidate,
		"explain": cmdExplain, "fit": cmdFit, "plot": cmdPlot, "serve": cmdServe,
		"calibrate": cmdCalibrate, "import": cmdImport, "merge": cmdMerge, "advise": cmdAdvise,
	}
}
