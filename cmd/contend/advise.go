package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
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

	"contend/advise"
	"contend/internal/iofiles"
	"contend/models"
	"contend/report"
	"contend/scenarios"
	"contend/sweep"
)

// advice is what advise found, with the rows behind the printed ones and
// the series they ran on, for --write.
type advice struct {
	report.Advice
	rows   []advise.Row
	series *scenarios.Series
}

func cmdAdvise(args []string, stdout, stderr io.Writer) error {
	var o options
	fs := newFlags("advise", &o, stderr, "text", "csv", "json")
	profileFlag(fs, &o)
	variant := fs.String("variant", "", "the variant to improve (required)")
	seriesName := fs.String("series", "", "the measured machine to simulate on (default: the first series that runs the variant)")
	cores := fs.Int("cores", 0, "CPUs to simulate (default: the series' largest point on a CPU axis, else the workload's cores)")
	write := fs.String("write", "", "write each row as a scenario holding its variant into the directory `DIR`")
	samples := samplesFlag(fs, "every gain", "; rows rank by its lower bound")
	if err := parse(fs, &o, args); err != nil {
		return err
	}
	if err := checkSamples(*samples); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("name one scenario: contend advise ingress --variant locked --cores 2")
	}
	if err := checkDir(*write); err != nil {
		return err
	}
	s, err := o.loader().Load(fs.Arg(0))
	if err != nil {
		return err
	}
	pt, err := advisePoint(s, fs, *variant, *seriesName, *cores)
	if err != nil {
		return err
	}
	pt.Seed = seedOf(&o, s)
	a, err := adviseAt(fs.Arg(0), s, pt, *samples, &o)
	if err != nil {
		return err
	}
	if *write != "" {
		if err := writeAdvice(fs.Arg(0), *write, &o, a); err != nil {
			return err
		}
	}
	var buf bytes.Buffer
	if err := report.RenderAdvice(&buf, o.format, &a.Advice); err != nil {
		return err
	}
	return emit(&o, stdout, &buf)
}

// checkDir accepts an existing directory for --write.
func checkDir(dir string) error {
	if dir == "" {
		return nil
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("--write %s: not a directory; create it (mkdir -p %s) or name another", dir, dir)
	}
	return nil
}

// advisePoint checks the flags against the scenario and returns the point
// advise simulates.
func advisePoint(s *scenarios.Scenario, fs *flag.FlagSet, variant, seriesName string, cores int) (scenarios.Point, error) {
	var pt scenarios.Point
	if s.Variant(variant) == nil {
		if variant == "" {
			return pt, fmt.Errorf("--variant: name the variant to improve, one of %s", strings.Join(s.VariantNames(), ", "))
		}
		return pt, fmt.Errorf("--variant %q: %s has no such variant; use one of %s", variant, s.Name, strings.Join(s.VariantNames(), ", "))
	}
	se, err := adviseSeries(s, variant, seriesName)
	if err != nil {
		return pt, err
	}
	axis, x := cpuAxis(s, se)
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == "cores" })
	if set { // at least 1: see flagBounds
		x = float64(cores)
	}
	return scenarios.Point{Series: se, Variant: variant, Axis: axis, X: x}, nil
}

// adviseSeries returns the series asked for, or the first that runs variant.
func adviseSeries(s *scenarios.Scenario, variant, name string) (*scenarios.Series, error) {
	all := sweep.DefaultSeries(s)
	var names []string
	for _, se := range all {
		names = append(names, se.Name)
		if name == se.Name || name == "" && slices.Contains(se.Variants, variant) {
			return se, nil
		}
	}
	if name == "" {
		return all[0], nil
	}
	return nil, fmt.Errorf("--series %q: %s has no such series; use one of %s", name, s.Name, strings.Join(names, ", "))
}

// cpuAxis is the axis that sets the flood's CPUs for se, and its default
// value: the series' largest point, the most contended it measured.
func cpuAxis(s *scenarios.Scenario, se *scenarios.Series) (string, float64) {
	x := float64(s.Workload.Cores)
	if s.AxisDrives(se.Axis) != scenarios.DrivesCPUs {
		return "cores", x
	}
	for _, p := range se.Points {
		x = max(x, p)
	}
	return se.Axis, x
}

// adviseAt simulates the base variant at pt, derives the candidates from
// it, simulates them in a copy of the scenario that declares them, and
// ranks them; with samples, by the lower bound of their gain over as many
// draws of the profile's spread.
func adviseAt(arg string, s *scenarios.Scenario, pt scenarios.Point, samples int, o *options) (*advice, error) {
	prog := progress(o, "advise")
	base, err := sweep.Runner(s, o.jobs, prog)(s.Replicate([]scenarios.Point{pt}))
	if err != nil {
		return nil, err
	}
	sub, err := advise.NewSubject(s, pt.Variant, base)
	if err != nil {
		return nil, err
	}
	cands := advise.Derive(sub)
	a := &advice{Advice: report.Advice{Scenario: s.Name, Series: pt.Series.Name, Profile: pt.Series.Profile, Variant: pt.Variant,
		Axis: pt.Axis, X: pt.X, Unit: s.RateUnit(), Samples: samples}, series: pt.Series}
	scale, work := 1e-6, s.Workload.Unit
	if advise.ByBatch(s) {
		work = s.BatchUnit()
		a.Unit, scale = work+"s/s", 1 // a batch's operations are slow: per second
	}
	baseRate := meanRate(s, base)
	a.Rate = baseRate * scale
	if len(cands) == 0 {
		return a, nil
	}
	ext, err := o.loader().LoadWith(arg, advise.Render(cands))
	if err != nil {
		return nil, fmt.Errorf("the derived variants do not load (a fault of contend advise; please report it): %w", err)
	}
	pt.Series = seriesIn(ext, s, pt.Series)
	var pts []scenarios.Point
	for _, c := range cands {
		pts = append(pts, withVariant(pt, c.Variant))
	}
	results, err := sweep.Runner(ext, o.jobs, prog)(ext.Replicate(pts))
	if err != nil {
		return nil, err
	}
	n := max(s.Run.Replications, 1)
	for i, c := range cands {
		got := results[i*n : (i+1)*n]
		r := advise.Row{Candidate: c, Rate: meanRate(s, got)}
		r.Gain = 100 * (r.Rate - baseRate) / baseRate
		r.Low, r.High = r.Gain, r.Gain
		r.Explain = advise.Explain(c, base, got, work)
		a.rows = append(a.rows, r)
	}
	if samples > 0 {
		gains, err := gainBounds(ext, pt, cands, samples, sweep.Runner(ext, o.jobs, prog))
		if err != nil {
			return nil, err
		}
		for i := range a.rows {
			a.rows[i].Low, a.rows[i].High = gains[i].Low, gains[i].High
		}
	}
	advise.Rank(a.rows)
	for _, r := range a.rows {
		a.Rows = append(a.Rows, report.AdviceRow{Rule: r.Rule, Change: r.What, Variant: r.Variant, Rate: r.Rate * scale,
			GainPct: r.Gain, LowPct: r.Low, HighPct: r.High, Explain: r.Explain})
	}
	return a, nil
}

func withVariant(pt scenarios.Point, v string) scenarios.Point {
	pt.Variant = v
	return pt
}

// seriesIn is the series of ext, a copy of s with more declared, that
// stands where se stands in s; se itself when it is the stand-in of a
// scenario without series.
func seriesIn(ext, s *scenarios.Scenario, se *scenarios.Series) *scenarios.Series {
	for i, x := range s.Series {
		if x == se {
			return ext.Series[i]
		}
	}
	return se
}

// gainBounds simulates the base variant and every candidate at pt once per
// draw of the profile's spread (see draws), base and candidates on the same
// draw, and returns the median and 90% interval of each candidate's gain in
// percent.
func gainBounds(s *scenarios.Scenario, pt scenarios.Point, cands []advise.Candidate, n int, run scenarios.Runner) ([]sweep.Bounds, error) {
	var pts []scenarios.Point
	for _, d := range sweep.Draws(s, pt.Series, pt.Seed, n) {
		q := pt
		q.Overrides, q.Seed = d.Over, d.Seed
		pts = append(pts, q)
		for _, c := range cands {
			pts = append(pts, withVariant(q, c.Variant))
		}
	}
	rs, err := run(s.Replicate(pts))
	if err != nil {
		return nil, err
	}
	reps, per := max(s.Run.Replications, 1), len(cands)+1
	rate := func(k, i int) float64 {
		at := (k*per + i) * reps
		return meanRate(s, rs[at:at+reps])
	}
	out := make([]sweep.Bounds, len(cands))
	for i := range cands {
		gains := make([]float64, n)
		for k := range gains {
			gains[k] = 100 * (rate(k, i+1) - rate(k, 0)) / rate(k, 0)
		}
		out[i] = sweep.Summarize(gains)
	}
	return out, nil
}

func meanRate(s *scenarios.Scenario, rs []*models.Result) float64 {
	var sum float64
	for _, r := range rs {
		sum += advise.Rate(s, r)
	}
	return sum / float64(len(rs))
}

// writeAdvice writes, for each row, a copy of the scenario that declares
// the row's variant and a series that runs it beside the base variant at the
// advised point: contend run takes the file as it is.
func writeAdvice(arg, dir string, o *options, a *advice) error {
	src, fsys, name, err := scenarioFiles(arg)
	if err != nil {
		return err
	}
	src, err = relocateIncludes(src, fsys, name, dir, iofiles.IsBuiltin(arg), &o.files)
	if err != nil {
		return err
	}
	// The file names the profile its series had before --profile took
	// their place, so that it loads with and without --profile.
	orig, _, err := iofiles.LoadScenario(arg)
	if err != nil {
		return err
	}
	se := *a.series
	for _, o := range sweep.DefaultSeries(orig) {
		if o.Name == se.Name {
			se.Profile = o.Profile
		}
	}
	// Every file is named and checked before the first is written.
	files := make([]string, len(a.rows))
	for i, r := range a.rows {
		if files[i], err = fileIn(dir, a.Scenario+"-"+r.Variant+".toml"); err != nil {
			return err
		}
		if err := o.files.Write("--write", files[i]); err != nil {
			return err
		}
	}
	for i := range a.rows {
		r := &a.rows[i]
		var b bytes.Buffer
		// Names reach a comment, which may hold no control character.
		fmt.Fprintf(&b, "# contend advise %s --variant %s: %s\n# predicted %s %s at %s=%s (%s%%): %s\n", report.CommentText(a.Scenario), report.CommentText(a.Variant), report.CommentText(r.What),
			report.Fixed(a.Rows[i].Rate), a.Unit, report.CommentText(a.Axis), report.Num(a.X), report.Signed(r.Gain, 1), report.CommentText(r.Explain))
		if o.profile != "" {
			fmt.Fprintf(&b, "# simulated on the profile in %s: run this file with --profile %s\n", o.profile, o.profile)
		}
		b.Write(src)
		b.Write(advise.Render([]advise.Candidate{r.Candidate}))
		if err := writeSeries(&b, &se, a, r.Variant); err != nil {
			return err
		}
		if err := iofiles.WriteFile("--write", files[i], b.Bytes()); err != nil {
			return err
		}
		a.Rows[i].File = files[i]
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
func writeSeries(b *bytes.Buffer, se *scenarios.Series, a *advice, v string) error {
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
