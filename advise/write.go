package advise

import (
	"bytes"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"contend/internal/iofiles"
	"contend/report"
	"contend/scenarios"
	"contend/sweep"
)

// WriteScenarios writes into dir, for each row of a, a copy of the scenario
// arg names that declares the row's variant and a series that runs it
// beside the base variant at the advised point: contend run takes the file
// as it is. Every file written is an output of files; profile is the
// --profile a was simulated on, if any. It sets each row's File.
func WriteScenarios(arg, dir, profile string, files *iofiles.Set, a *Advice) error {
	src, fsys, name, err := scenarioFiles(arg)
	if err != nil {
		return err
	}
	src, err = relocateIncludes(src, fsys, name, dir, iofiles.IsBuiltin(arg), files)
	if err != nil {
		return err
	}
	// The file names the profile its series had before --profile took
	// their place, so that it loads with and without --profile.
	orig, _, err := iofiles.LoadScenario(arg)
	if err != nil {
		return err
	}
	se := *a.On
	for _, x := range sweep.DefaultSeries(orig) {
		if x.Name == se.Name {
			se.Profile = x.Profile
		}
	}
	// Every file is named and checked before the first is written.
	names := make([]string, len(a.Ranked))
	for i, r := range a.Ranked {
		if names[i], err = fileIn(dir, a.Scenario+"-"+r.Variant+".toml"); err != nil {
			return err
		}
		if err := files.Write("--write", names[i]); err != nil {
			return err
		}
	}
	for i := range a.Ranked {
		r := &a.Ranked[i]
		var b bytes.Buffer
		// Names reach a comment, which may hold no control character.
		fmt.Fprintf(&b, "# contend advise %s --variant %s: %s\n# predicted %s %s at %s=%s (%s%%): %s\n", report.CommentText(a.Scenario), report.CommentText(a.Variant), report.CommentText(r.What),
			report.Fixed(a.Rows[i].Rate), a.Unit, report.CommentText(a.Axis), report.Num(a.X), report.Signed(r.Gain, 1), report.CommentText(r.Explain))
		if profile != "" {
			fmt.Fprintf(&b, "# simulated on the profile in %s: run this file with --profile %s\n", profile, profile)
		}
		b.Write(src)
		b.Write(Render([]Candidate{r.Candidate}))
		if err := writeSeries(&b, &se, a, r.Variant); err != nil {
			return err
		}
		if err := iofiles.WriteFile("--write", names[i], b.Bytes()); err != nil {
			return err
		}
		a.Rows[i].File = names[i]
	}
	return nil
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_.+-]`)

// fileIn returns the path in dir of a file named from names a scenario
// chose: every character but letters, digits and _.+- becomes _, so that a
// name cannot climb out of dir (a scenario named "../../x"), and the path,
// its links followed, must still lie inside dir.
func fileIn(dir, name string) (string, error) {
	name = strings.TrimLeft(unsafeName.ReplaceAllString(name, "_"), ".")
	file := filepath.Join(dir, name)
	if err := iofiles.Inside("--write", dir, file); err != nil {
		return "", err
	}
	return file, nil
}

// scenarioFiles returns the text of the scenario arg names, the file system
// its includes are read from and its name there.
func scenarioFiles(arg string) ([]byte, fs.FS, string, error) {
	src, err := iofiles.Source(arg)
	if iofiles.IsBuiltin(arg) || err != nil {
		return src, scenarios.Builtin(), arg + ".toml", err
	}
	abs, err := filepath.Abs(arg)
	return src, os.DirFS("/"), strings.TrimPrefix(filepath.ToSlash(abs), "/"), err
}

var includeKey = regexp.MustCompile(`(?m)^[ \t]*include[ \t]*=[ \t]*\[[^\]]*\][^\n]*\n?`)

// relocateIncludes makes a copy of a scenario's text, written into dir,
// find its includes: a file's are named from dir; a built-in's are copied
// into dir beside it.
func relocateIncludes(src []byte, fsys fs.FS, name, dir string, builtin bool, files *iofiles.Set) ([]byte, error) {
	var top struct {
		Include []string `toml:"include"`
	}
	if _, err := toml.Decode(string(src), &top); err != nil || len(top.Include) == 0 {
		return src, err
	}
	loc := includeKey.FindIndex(src)
	if loc == nil {
		return nil, fmt.Errorf("%s: cannot find its include list to rewrite for --write; write include = [...] on one line", name)
	}
	var incs []string
	for _, inc := range top.Include {
		p := path.Join(path.Dir(name), inc)
		if builtin {
			if err := copyBuiltin(fsys, p, dir, inc, files); err != nil {
				return nil, err
			}
			incs = append(incs, strconv.Quote(inc))
			continue
		}
		absDir, err := filepath.Abs(dir)
		if err != nil {
			return nil, err
		}
		rel, err := filepath.Rel(absDir, filepath.FromSlash("/"+p))
		if err != nil {
			return nil, err
		}
		incs = append(incs, strconv.Quote(filepath.ToSlash(rel)))
	}
	out := append([]byte{}, src[:loc[0]]...)
	out = append(out, "include = ["+strings.Join(incs, ", ")+"]\n"...)
	return append(out, src[loc[1]:]...), nil
}

// copyBuiltin writes the built-in file p as dir/rel, with its own includes.
func copyBuiltin(fsys fs.FS, p, dir, rel string, files *iofiles.Set) error {
	if !filepath.IsLocal(rel) {
		return fmt.Errorf("--write: the built-in include %q climbs out of its folder; copy the scenario's files and advise the copy", rel)
	}
	data, err := fs.ReadFile(fsys, p)
	if err != nil {
		return err
	}
	dst := filepath.Join(dir, filepath.FromSlash(rel))
	old, err := os.ReadFile(dst)
	if err == nil && !bytes.Equal(old, data) {
		return fmt.Errorf("--write %s: %s exists and differs from the built-in it would hold; write into another directory", dir, dst)
	}
	// A file that holds the built-in already (from an earlier run, or a
	// diamond of includes) is left as it is.
	if err != nil {
		if err := iofiles.Inside("--write", dir, dst); err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return fmt.Errorf("--write %s: %v", dir, iofiles.UnwrapPath(err))
		}
		if err := files.Write("--write", dst); err != nil {
			return err
		}
		if err := iofiles.WriteFile("--write", dst, data); err != nil {
			return err
		}
	}
	var sub struct {
		Include []string `toml:"include"`
	}
	if _, err := toml.Decode(string(data), &sub); err != nil {
		return err
	}
	for _, inc := range sub.Include {
		if err := copyBuiltin(fsys, path.Join(path.Dir(p), inc), dir, path.Join(path.Dir(rel), inc), files); err != nil {
			return err
		}
	}
	return nil
}

// writeSeries adds a series that runs the base variant and v at the advised
// point on the machine of se, the advised series.
func writeSeries(b *bytes.Buffer, se *scenarios.Series, a *Advice, v string) error {
	fmt.Fprintf(b, "\n[[series]]\nname = %s\nprofile = %s\nvariants = [%s, %s]\naxis = %s\npoints = [%s]\n",
		strconv.Quote(se.Name+"+advise"), strconv.Quote(se.Profile), strconv.Quote(a.Variant), strconv.Quote(v), strconv.Quote(a.Axis), report.Num(a.X))
	if se.Placement != nil {
		fmt.Fprintf(b, "placement = %s\n", strconv.Quote(se.Placement.String()))
	}
	if len(se.Params) == 0 {
		return nil
	}
	b.WriteString("[series.params]\n")
	for _, k := range slices.Sorted(maps.Keys(se.Params)) {
		p := se.Params[k]
		switch {
		case !p.IsTime:
			fmt.Fprintf(b, "%s = %s\n", k, strconv.FormatFloat(p.Num, 'g', -1, 64))
		case p.Dur.Cycles == 0:
			fmt.Fprintf(b, "%s = \"%sps\"\n", k, strconv.FormatFloat(p.Dur.PS, 'g', -1, 64))
		case p.Dur.PS == 0:
			fmt.Fprintf(b, "%s = \"%scyc\"\n", k, strconv.FormatFloat(p.Dur.Cycles, 'g', -1, 64))
		default:
			return fmt.Errorf("series %s: param %s mixes picoseconds and cycles; write it in one unit", se.Name, k)
		}
	}
	return nil
}
