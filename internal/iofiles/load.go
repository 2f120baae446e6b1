package iofiles

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"contend/scenarios"
)

// Loader loads scenarios as a command's flags ask: with its bound on the
// events of a point and on the machine of its profile file.
type Loader struct {
	MaxEvents int64  // --max-events (0: the scenario's own)
	Profile   string // --profile: a profile file every series simulates on
	Files     *Set   // every file read becomes one of its inputs
}

// Load reads a built-in scenario by name or a file by path, and applies
// the command's bounds to it. Every file it reads becomes an input of the
// command, which no output may replace.
func (l Loader) Load(arg string) (*scenarios.Scenario, error) {
	s, read, err := LoadScenario(arg)
	if err != nil {
		return nil, err
	}
	if err := l.Files.ReadScenario("scenario", arg, read); err != nil {
		return nil, err
	}
	return l.apply(s)
}

// apply applies --max-events and --profile to a loaded scenario.
func (l Loader) apply(s *scenarios.Scenario) (*scenarios.Scenario, error) {
	if l.MaxEvents > 0 {
		s.Run.MaxEvents = l.MaxEvents
	}
	if l.Profile == "" {
		return s, nil
	}
	// --profile puts every series on the machine of a profile file.
	p, read, err := LoadFile(l.Profile, scenarios.LoadProfile)
	if err != nil {
		return nil, err
	}
	if err := l.Files.ReadScenario("--profile", l.Profile, read); err != nil {
		return nil, err
	}
	s.UseProfile(p)
	return s, nil
}

// IsBuiltin says whether arg names a built-in scenario rather than a file.
func IsBuiltin(arg string) bool {
	return !strings.HasSuffix(arg, ".toml") && !strings.ContainsRune(arg, os.PathSeparator)
}

// LoadScenario loads the scenario arg names and returns the files it read
// (none for a built-in).
func LoadScenario(arg string) (*scenarios.Scenario, []string, error) {
	if !IsBuiltin(arg) {
		return LoadFile(arg, scenarios.Load)
	}
	for _, n := range scenarios.BuiltinNames() {
		if n == arg {
			s, err := scenarios.LoadBuiltin(n)
			return s, nil, err
		}
	}
	return nil, nil, fmt.Errorf("no scenario %q: use a built-in (%s) or a path to a .toml file", arg, strings.Join(scenarios.BuiltinNames(), ", "))
}

// LoadFile reads a scenario from the file system, rooted at / so that an
// include may climb out of the scenario's folder with "..". It returns the
// files the loader opened (arg and its includes), named as arg names them.
func LoadFile[T any](arg string, loader func(fs.FS, string) (T, error)) (T, []string, error) {
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

// Source returns the text of the scenario arg names.
func Source(arg string) ([]byte, error) {
	if IsBuiltin(arg) {
		return fs.ReadFile(scenarios.Builtin(), arg+".toml")
	}
	return os.ReadFile(arg)
}

// LoadWith loads the scenario arg names with extra TOML appended to its
// file, applying the command's options as Load does.
func (l Loader) LoadWith(arg string, extra []byte) (*scenarios.Scenario, error) {
	parse := func(fsys fs.FS, name string) (*scenarios.Scenario, error) {
		src, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		return scenarios.Parse(fsys, name, append(src, extra...))
	}
	if IsBuiltin(arg) {
		s, err := parse(scenarios.Builtin(), arg+".toml")
		if err != nil {
			return nil, err
		}
		return l.apply(s)
	}
	s, _, err := LoadFile(arg, parse) // the files Load read before
	if err != nil {
		return nil, err
	}
	return l.apply(s)
}
