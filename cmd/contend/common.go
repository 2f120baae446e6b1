package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"contend/internal/atomicfile"
	"contend/report"
	"contend/scenarios"
)

var errUsage = errors.New("usage")

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
	files     ioFiles
}

// newFlags declares the common flags; formats lists what the command prints,
// so that asking for another is an error rather than silently getting text.
func newFlags(name string, o *options, stderr io.Writer, formats ...string) *flag.FlagSet {
	o.formats = formats
	fs := commonFlags(name, o, stderr)
	fs.StringVar(&o.format, "format", "text", "output format: "+orList(formats))
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
	if err := checkBounds(fs, strings.TrimPrefix(fs.Name(), "contend ")); err != nil {
		return err
	}
	if o.formats != nil && !slices.Contains(o.formats, o.format) {
		return fmt.Errorf("--format %q: use %s", o.format, orList(o.formats))
	}
	// Checked before anything is simulated: a bad -o must not cost the run.
	if err := checkOut(o.out); err != nil {
		return err
	}
	return o.files.write("-o", o.out)
}

// checkOut accepts as -o a regular file or a new path in an existing
// directory; anything else (a FIFO, a device, a symlink, a directory) would
// be replaced by the rename.
func checkOut(path string) error { return checkPath("-o", path) }

// checkPath is checkOut for any flag that names an output file.
func checkPath(flag, path string) error {
	if path == "" {
		return nil
	}
	st, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		dir, derr := os.Stat(filepath.Dir(path))
		if derr != nil || !dir.IsDir() {
			return fmt.Errorf("%s %s: the directory %s does not exist; create it or write elsewhere", flag, path, filepath.Dir(path))
		}
		return nil
	case err != nil:
		return fmt.Errorf("%s %s: %v", flag, path, unwrapPath(err))
	case st.Mode().IsRegular():
		return nil
	case st.IsDir():
		return fmt.Errorf("%s %s: is a directory; give a file name", flag, path)
	}
	return fmt.Errorf("%s %s: is %s, not a regular file, and would be replaced; give a regular file or a new path", flag, path, kindOf(st.Mode()))
}

// kindOf names a file type the way ls -l's users do.
func kindOf(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "a special file"
}

// unwrapPath drops the operation and path of a *fs.PathError: messages name
// the path the user gave, not a temporary file.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// orList joins words as "a, b or c".
func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// profileFlag declares --profile, for the commands that simulate.
func profileFlag(fs *flag.FlagSet, o *options) {
	fs.StringVar(&o.profile, "profile", "", "simulate every series on the hardware profile in `FILE` (e.g. from contend calibrate)")
}

// load reads a built-in scenario by name or a file by path, and applies
// the command's bounds to it. Every file it reads becomes an input of the
// command, which no output may replace.
func load(arg string, o *options) (*scenarios.Scenario, error) {
	s, read, err := loadScenario(arg)
	if err != nil {
		return nil, err
	}
	if err := o.files.readScenario("scenario", arg, read); err != nil {
		return nil, err
	}
	return withOptions(s, o)
}

// withOptions applies --max-events and --profile to a loaded scenario.
func withOptions(s *scenarios.Scenario, o *options) (*scenarios.Scenario, error) {
	if o.maxEvents > 0 {
		s.Run.MaxEvents = o.maxEvents
	}
	if o.profile == "" {
		return s, nil
	}
	// --profile puts every series on the machine of a profile file.
	p, read, err := loadFile(o.profile, scenarios.LoadProfile)
	if err != nil {
		return nil, err
	}
	if err := o.files.readScenario("--profile", o.profile, read); err != nil {
		return nil, err
	}
	s.UseProfile(p)
	return s, nil
}

// isBuiltin says whether arg names a built-in scenario rather than a file.
func isBuiltin(arg string) bool {
	return !strings.HasSuffix(arg, ".toml") && !strings.ContainsRune(arg, os.PathSeparator)
}

// loadScenario loads the scenario arg names and returns the files it read
// (none for a built-in).
func loadScenario(arg string) (*scenarios.Scenario, []string, error) {
	if !isBuiltin(arg) {
		return loadFile(arg, scenarios.Load)
	}
	for _, n := range scenarios.BuiltinNames() {
		if n == arg {
			s, err := scenarios.LoadBuiltin(n)
			return s, nil, err
		}
	}
	return nil, nil, fmt.Errorf("no scenario %q: use a built-in (%s) or a path to a .toml file", arg, strings.Join(scenarios.BuiltinNames(), ", "))
}

// loadFile reads a scenario from the file system, rooted at / so that an
// include may climb out of the scenario's folder with "..". It returns the
// files the loader opened (arg and its includes), named as arg names them.
func loadFile[T any](arg string, loader func(fs.FS, string) (T, error)) (T, []string, error) {
	abs, err := filepath.Abs(arg)
	if err != nil {
		var none T
		return none, nil, fmt.Errorf("%s: %v", arg, err)
	}
	rec := &recordFS{FS: os.DirFS("/")}
	s, err := loader(rec, strings.TrimPrefix(filepath.ToSlash(abs), "/"))
	// Errors name files from the root; the user needs them as seen from
	// the path they gave.
	rename := func(file string) string { return userPath(arg, abs, "/"+file) }
	var se *scenarios.Error
	if errors.As(err, &se) {
		se.File = rename(se.File)
	}
	// A scenario places errors it finds later (a model error) the same way.
	if r, ok := any(s).(interface{ RenameFiles(func(string) string) }); ok && err == nil {
		r.RenameFiles(rename)
	}
	var read []string
	for _, f := range rec.opened {
		if f = rename(f); !slices.Contains(read, f) {
			read = append(read, f)
		}
	}
	return s, read, err
}

// recordFS notes the name of every file opened through it: the loader's
// includes, as it resolves them.
type recordFS struct {
	fs.FS
	opened []string
}

func (r *recordFS) Open(name string) (fs.File, error) {
	r.opened = append(r.opened, name)
	return r.FS.Open(name)
}

// userPath names file, found while loading arg (abs), the way arg names it.
func userPath(arg, abs, file string) string {
	if file == abs {
		return arg
	}
	if rel, err := filepath.Rel(filepath.Dir(abs), file); err == nil {
		return filepath.Join(filepath.Dir(arg), rel)
	}
	return file
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
	if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
		return progressBar(f)
	}
	return progressLines(f, name, time.Now, time.Tick(progressEvery))
}

const progressEvery = 5 * time.Second

// progressLines prints "contend NAME: D/T points simulated (S)" at every
// tick while points are being simulated, so that a single long point shows
// too. The runner reports 0/T when it starts and T/T when it ends; a tick
// between those prints the latest count.
func progressLines(w io.Writer, name string, now func() time.Time, tick <-chan time.Time) func(done, total int) {
	var mu sync.Mutex
	start := now()
	var done, total int
	var stop, exited chan struct{}
	watch := func(stop, exited chan struct{}) {
		defer close(exited)
		for {
			select {
			case <-stop:
				return
			case t := <-tick:
				mu.Lock()
				fmt.Fprintf(w, "contend %s: %d/%d points simulated (%v)\n", name, done, total, t.Sub(start).Round(time.Second))
				mu.Unlock()
			}
		}
	}
	return func(d, n int) {
		mu.Lock()
		done, total = d, n
		var wait chan struct{}
		switch {
		case d < n && stop == nil:
			stop, exited = make(chan struct{}), make(chan struct{})
			go watch(stop, exited)
		case d == n && stop != nil:
			close(stop)
			wait, stop = exited, nil
		}
		mu.Unlock()
		// A tick taken just before the last point finishes its line before
		// the caller goes on to print the results.
		if wait != nil {
			<-wait
		}
	}
}

// progressBar draws on a terminal. A run of no points (a validate section
// with nothing to simulate) draws nothing.
func progressBar(f io.Writer) func(done, total int) {
	return func(done, total int) {
		if total == 0 {
			return
		}
		const width = 30
		n := width * done / total
		fmt.Fprintf(f, "\r[%s%s] %d/%d points", strings.Repeat("#", n), strings.Repeat(".", width-n), done, total)
		if done == total {
			fmt.Fprint(f, "\r\033[K")
		}
	}
}

// emit writes buf to stdout or atomically to o.out; text goes through
// termText, so that no name in it acts on the terminal that shows it.
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
func writeAtomic(path string, data []byte) error { return writeFlagFile("-o", path, data) }

// writeFlagFile is writeAtomic for the file of any flag.
func writeFlagFile(flag, path string, data []byte) error {
	if err := checkPath(flag, path); err != nil {
		return err // replaced by something else while the run went on
	}
	if err := atomicfile.Write(path, data); err != nil {
		return fmt.Errorf("%s %s: %w", flag, path, unwrapPath(err))
	}
	return nil
}

func seedOf(o *options, s *scenarios.Scenario) int64 {
	if o.seed != 0 {
		return o.seed
	}
	return s.Run.Seed
}
