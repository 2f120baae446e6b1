package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"contend/band"
	"contend/internal/iofiles"
	"contend/report"
	"contend/scenarios"
	"contend/sweep"
)

var errUsage = errors.New("usage")
var bands = band.Committed // the error bands learned from the published cases

// common flags of the commands that print tables.
type options struct {
	format    string
	formats   []string // the formats this command can print
	out       string
	seed      int64
	jobs      int
	quiet     bool
	maxEvents int64
	stderr    io.Writer
	profile   string // --profile: a profile file to simulate on
	files     iofiles.Set
}

// newFlags declares the common flags; formats lists what the command prints,
// so that asking for another is an error rather than silently getting text.
func newFlags(name string, o *options, stderr io.Writer, formats ...string) *flag.FlagSet {
	o.formats = formats
	fs := commonFlags(name, o, stderr)
	fs.StringVar(&o.format, "format", "text", "output format: "+report.OrList(formats))
	return fs
}

// commonFlags declares -o, --seed and --jobs, for commands whose output
// format is not a --format (plot takes it from the file name).
func commonFlags(name string, o *options, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("contend "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.out, "o", "", "write the output to `FILE` (atomically) instead of stdout")
	fs.Int64Var(&o.seed, "seed", 0, "random seed (0: the scenario's own)")
	fs.IntVar(&o.jobs, "jobs", runtime.NumCPU(), "simulate this many points in parallel (results do not depend on it)")
	fs.BoolVar(&o.quiet, "quiet", false, "print no progress on stderr")
	fs.Int64Var(&o.maxEvents, "max-events", 0, "most simulated events one point may take (0: the scenario's [run] max_events, default "+strconv.Itoa(scenarios.DefaultMaxEvents)+")")
	o.stderr = stderr
	return fs
}

// parse parses flags that may come before or after the scenario names; after
// "--" every argument is a name, even one that starts with "-".
func parse(fs *flag.FlagSet, o *options, args []string) error {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return flag.ErrHelp
			}
			if name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -"); ok {
				if hint := flagHint(strings.TrimPrefix(fs.Name(), "contend "), name, fs); hint != "" {
					fmt.Fprintln(o.stderr, hint)
				}
			}
			return errUsage
		}
		if fs.NArg() == 0 {
			break
		}
		if rest := fs.Args(); len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			pos = append(pos, rest...)
			break
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if err := fs.Parse(append([]string{"--"}, pos...)); err != nil {
		return errUsage
	}
	if err := flagBounds.Check(fs, strings.TrimPrefix(fs.Name(), "contend ")); err != nil {
		return err
	}
	if o.formats != nil && !slices.Contains(o.formats, o.format) {
		return fmt.Errorf("--format %q: use %s", o.format, report.OrList(o.formats))
	}
	// Checked before anything is simulated: a bad -o must not cost the run.
	if err := checkOut(o.out); err != nil {
		return err
	}
	return o.files.Write("-o", o.out)
}

// checkOut accepts as -o a regular file or a new path in an existing
// directory; anything else (a FIFO, a device, a symlink, a directory) would
// be replaced by the rename.
func checkOut(path string) error { return iofiles.CheckPath("-o", path) }

// profileFlag declares --profile, for the commands that simulate.
func profileFlag(fs *flag.FlagSet, o *options) {
	fs.StringVar(&o.profile, "profile", "", "simulate every series on the hardware profile in `FILE` (e.g. from contend calibrate)")
}

// progress reports points simulated on stderr: a bar on a terminal, else
// (a pipe, a CI log) a line every progressEvery, so that a long run shows it
// is alive. --quiet turns it off; so does a stderr that is not a file (the
// CLI called in-process).
func progress(o *options, name string) func(done, total int) {
	f, ok := o.stderr.(*os.File)
	if o.quiet || !ok {
		return nil
	}
	if isTerminal(f) {
		return sweep.ProgressBar(f)
	}
	return sweep.ProgressLines(f, name, time.Now, time.Tick(progressEvery))
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	st, err := f.Stat()
	return ok && err == nil && st.Mode()&os.ModeCharDevice != 0
}

const progressEvery = 5 * time.Second

// emit writes buf to stdout or atomically to o.out; text goes through
// report.TermText, so that no name in it acts on the terminal that shows it.
func emit(o *options, stdout io.Writer, buf *bytes.Buffer) error {
	data := buf.Bytes()
	if o.format == "text" {
		data = []byte(report.TermText(buf.String()))
	}
	if o.out == "" {
		_, err := stdout.Write(data)
		return err
	}
	return writeAtomic(o.out, data)
}

// writeAtomic writes data to a temporary file next to path and renames it
// over path, so a reader never sees a half-written file.
func writeAtomic(path string, data []byte) error { return iofiles.WriteFile("-o", path, data) }

// loader loads scenarios with the command's --max-events and --profile.
func (o *options) loader() iofiles.Loader {
	return iofiles.Loader{MaxEvents: o.maxEvents, Profile: o.profile, Files: &o.files}
}

func seedOf(o *options, s *scenarios.Scenario) int64 {
	if o.seed != 0 {
		return o.seed
	}
	return s.Run.Seed
}
