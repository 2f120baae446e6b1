package iofiles

import (
	"fmt"
	"os"
	"path/filepath"
)

// Set is the files one command reads and writes. No output may be one
// of its inputs (a scenario, an include, a profile, an imported file, a
// shard) or another output: the rename that writes it would destroy the
// other. Paths are compared resolved (absolute, symbolic links followed) and
// by identity (a hard link).
type Set struct {
	in, out []namedFile
}

// namedFile is a path and what it is to the command: an output's flag, or
// an input's description ("the scenario x.toml").
type namedFile struct {
	path, what string
	output     bool
}

// Read adds an input, described as what ("the shard s.json").
func (f *Set) Read(what, path string) error {
	in := namedFile{path: path, what: what}
	for _, o := range f.out {
		if samePath(o.path, path) {
			return clash(o, in)
		}
	}
	f.in = append(f.in, in)
	return nil
}

// ReadScenario adds the files a scenario (or a --profile) read: read[0] is
// arg itself, the others its includes.
func (f *Set) ReadScenario(what, arg string, read []string) error {
	for i, p := range read {
		desc := fmt.Sprintf("the %s %s", what, arg)
		if i > 0 {
			desc = fmt.Sprintf("%s, which the %s %s includes", p, what, arg)
		}
		if err := f.Read(desc, p); err != nil {
			return err
		}
	}
	return nil
}

// Write adds the output of flag at path ("" is stdout, no file).
func (f *Set) Write(flag, path string) error {
	if path == "" {
		return nil
	}
	out := namedFile{path: path, what: flag, output: true}
	for _, o := range append(f.in, f.out...) {
		if samePath(o.path, path) {
			return clash(out, o)
		}
	}
	f.out = append(f.out, out)
	return nil
}

// clash says that output out would replace other.
func clash(out, other namedFile) error {
	switch {
	case other.output && other.what == out.what:
		return fmt.Errorf("%s %s: two of the files %s writes are this one; give names that differ", out.what, out.path, out.what)
	case other.output:
		return fmt.Errorf("%s %s: is also the file of %s %s, and one would replace the other; give each its own file", out.what, out.path, other.what, other.path)
	}
	return fmt.Errorf("%s %s: is %s, an input, and would be replaced; write the output to another file", out.what, out.path, other.what)
}

// samePath says whether a and b name one file, existing or to be created.
func samePath(a, b string) bool {
	if Resolved(a) == Resolved(b) {
		return true
	}
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}

// Resolved is path absolute with its symbolic links followed; for a file yet
// to be created, its folder's.
func Resolved(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r
	}
	if d, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		return filepath.Join(d, filepath.Base(abs))
	}
	return abs
}

// Inside refuses a path file, to be written for flag, that does not lie in
// dir once symbolic links are followed.
func Inside(flag, dir, file string) error {
	rel, err := filepath.Rel(Resolved(dir), Resolved(file))
	if err != nil || !filepath.IsLocal(rel) {
		return fmt.Errorf("%s %s: %s would lie outside the directory; give a directory whose subfolders are not links out of it", flag, dir, file)
	}
	return nil
}
