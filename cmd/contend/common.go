package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"contend/models"
	"contend/scenarios"
)

var errUsage = errors.New("usage")

// common flags of the commands that print tables.
type options struct {
	format  string
	formats []string // the formats this command can print
	out     string
	seed    int64
	jobs    int
}

// newFlags declares the common flags; formats lists what the command prints,
// so that asking for another is an error rather than silently getting text.
func newFlags(name string, o *options, stderr io.Writer, formats ...string) *flag.FlagSet {
	o.formats = formats
	fs := flag.NewFlagSet("contend "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.format, "format", "text", "output format: "+orList(formats))
	fs.StringVar(&o.out, "o", "", "write the output to `FILE` (atomically) instead of stdout")
	fs.Int64Var(&o.seed, "seed", 0, "random seed (0: the scenario's own)")
	fs.IntVar(&o.jobs, "jobs", runtime.NumCPU(), "simulate this many points in parallel (results do not depend on it)")
	return fs
}

// parse parses flags that may come before or after the scenario names.
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
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if err := fs.Parse(pos); err != nil {
		return errUsage
	}
	if !slices.Contains(o.formats, o.format) {
		return fmt.Errorf("--format %q: use %s", o.format, orList(o.formats))
	}
	if o.jobs < 1 {
		return fmt.Errorf("--jobs %d: give at least 1", o.jobs)
	}
	return nil
}

// orList joins words as "a, b or c".
func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// load reads a built-in scenario by name or a file by path.
func load(arg string) (*scenarios.Scenario, error) {
	if strings.HasSuffix(arg, ".toml") || strings.ContainsRune(arg, os.PathSeparator) {
		dir, file := filepath.Split(arg)
		if dir == "" {
			dir = "."
		}
		s, err := scenarios.Load(os.DirFS(dir), file)
		// Errors name files inside dir; the user needs the path they gave.
		var se *scenarios.Error
		if errors.As(err, &se) {
			se.File = filepath.Join(dir, filepath.FromSlash(se.File))
		}
		return s, err
	}
	for _, n := range scenarios.BuiltinNames() {
		if n == arg {
			return scenarios.LoadBuiltin(n)
		}
	}
	return nil, fmt.Errorf("no scenario %q: use a built-in (%s) or a path to a .toml file", arg, strings.Join(scenarios.BuiltinNames(), ", "))
}

// runner returns a Runner that simulates points on jobs goroutines; results
// come back in input order, so output does not depend on jobs.
func runner(s *scenarios.Scenario, jobs int, progress func(done, total int)) scenarios.Runner {
	return func(pts []scenarios.Point) ([]*models.Result, error) {
		out := make([]*models.Result, len(pts))
		errs := make([]error, len(pts))
		next := make(chan int)
		var wg sync.WaitGroup
		var mu sync.Mutex
		done := 0
		for range min(jobs, len(pts)) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range next {
					out[i], errs[i] = s.Simulate(pts[i])
					if progress != nil {
						mu.Lock()
						done++
						progress(done, len(pts))
						mu.Unlock()
					}
				}
			}()
		}
		for i := range pts {
			next <- i
		}
		close(next)
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				return nil, err
			}
		}
		return out, nil
	}
}

// progressBar draws on stderr when it is a terminal.
func progressBar(stderr io.Writer) func(done, total int) {
	f, ok := stderr.(*os.File)
	if !ok {
		return nil
	}
	st, err := f.Stat()
	if err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return nil
	}
	return func(done, total int) {
		const width = 30
		n := width * done / total
		fmt.Fprintf(f, "\r[%s%s] %d/%d points", strings.Repeat("#", n), strings.Repeat(".", width-n), done, total)
		if done == total {
			fmt.Fprint(f, "\r\033[K")
		}
	}
}

// emit writes buf to stdout or atomically to o.out.
func emit(o *options, stdout io.Writer, buf *bytes.Buffer) error {
	if o.out == "" {
		_, err := stdout.Write(buf.Bytes())
		return err
	}
	return writeAtomic(o.out, buf.Bytes())
}

// writeAtomic writes data to a temporary file next to path and renames it
// over path, so a reader never sees a half-written file.
func writeAtomic(path string, data []byte) error {
	if err := writeRename(path, data); err != nil {
		return fmt.Errorf("-o %s: %w", path, err)
	}
	return nil
}

func writeRename(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	// CreateTemp makes the file 0600; a report should be as readable as one
	// written by a shell redirection.
	err = tmp.Chmod(0o644)
	if err == nil {
		_, err = tmp.Write(data)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

func writeJSON(buf *bytes.Buffer, v any) error {
	enc := json.NewEncoder(buf)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func seedOf(o *options, s *scenarios.Scenario) int64 {
	if o.seed != 0 {
		return o.seed
	}
	return s.Run.Seed
}
