package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
)

// shardKind marks a file as a shard, so merge refuses any other JSON. v2
// added the digest.
const shardKind = "contend sweep shard v2"

// shardSlice is slice Index of Count: the points whose number modulo Count
// is Index. Dealing points round-robin spreads the heavy points (many CPUs)
// evenly over the shards.
type shardSlice struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

func (s shardSlice) has(i int) bool { return i%s.Count == s.Index }

func (s shardSlice) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// shardFile is what sweep --shard writes: enough to check that shards
// belong together and to print the sweep without the scenario at hand.
type shardFile struct {
	Kind      string         `json:"kind"`
	Format    string         `json:"format"` // what merge prints, from sweep's --format
	Seed      int64          `json:"seed"`   // --seed (0: each scenario's own)
	Shard     shardSlice     `json:"shard"`
	Scenarios []planScenario `json:"scenarios"`
	Groups    []sweepGroup   `json:"groups"`
	Points    []shardPoint   `json:"points"` // every point of the sweep, not only this slice's
	Results   []shardResult  `json:"results"`
	// Digest is the sha256 of the shard without it: the scenarios' hashes
	// say which sweep a shard belongs to, the digest that its values are
	// the ones sweep wrote.
	Digest string `json:"digest"`
}

// digest returns the sha256 of f's JSON with the digest left empty.
func (f shardFile) digest() string {
	f.Digest = ""
	b, err := json.Marshal(f)
	if err != nil {
		panic("contend: a shard does not encode: " + err.Error())
	}
	return fmt.Sprintf("sha256:%x", sha256.Sum256(b))
}

type shardPoint struct {
	Scenario string  `json:"scenario"`
	Series   string  `json:"series"`
	Variant  string  `json:"variant"`
	Axis     string  `json:"axis"`
	X        float64 `json:"x"`
	Seed     int64   `json:"seed"`
}

// shardResult is a point's metrics, in the order of its group's Metrics.
type shardResult struct {
	Point  int     `json:"point"`
	Values []exact `json:"values"`
}

// shard packs the values of slice sl for writing.
func (p *sweepPlan) shard(sl shardSlice, format string, seed int64, values [][]float64) shardFile {
	f := shardFile{Kind: shardKind, Format: format, Seed: seed, Shard: sl, Scenarios: p.Scenarios, Groups: p.Groups}
	for i, pt := range p.points {
		g := p.Groups[pt.group]
		f.Points = append(f.Points, shardPoint{Scenario: p.Scenarios[g.Scenario].Name, Series: g.Series,
			Variant: pt.Variant, Axis: pt.Axis, X: pt.X, Seed: pt.Seed})
		if values[i] == nil {
			continue
		}
		r := shardResult{Point: i, Values: make([]exact, len(values[i]))}
		for m, v := range values[i] {
			r.Values[m] = exact(v)
		}
		f.Results = append(f.Results, r)
	}
	f.Digest = f.digest()
	return f
}

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
func (sh *shardFlags) slice() (*shardSlice, error) {
	switch {
	case sh.spec == "" && sh.count != 0:
		return nil, fmt.Errorf("--shard-count %d: only with --shard auto", sh.count)
	case sh.spec == "":
		return nil, nil
	case sh.spec == "auto":
		return autoSlice(sh.count)
	case sh.count != 0:
		return nil, fmt.Errorf("--shard-count %d: only with --shard auto; --shard %s already gives the count", sh.count, sh.spec)
	}
	i, n, ok := strings.Cut(sh.spec, "/")
	index, err1 := strconv.Atoi(i)
	count, err2 := strconv.Atoi(n)
	if !ok || err1 != nil || err2 != nil {
		return nil, fmt.Errorf("--shard %q: give I/N, e.g. --shard 0/3 for the first of three slices, or auto", sh.spec)
	}
	return checkSlice("--shard "+sh.spec, index, count)
}

func checkSlice(what string, index, count int) (*shardSlice, error) {
	if count < 1 || index < 0 || index >= count {
		return nil, fmt.Errorf("%s: slice %d of %d does not exist; slices count from 0 to N-1 (0/3, 1/3, 2/3)", what, index, count)
	}
	return &shardSlice{index, count}, nil
}

// autoSlice reads the slice from the array variables of a Kubernetes
// Indexed Job or a Slurm job array.
func autoSlice(count int) (*shardSlice, error) {
	// An empty variable counts as unset: a wrapper script may export it
	// empty.
	if v := os.Getenv("JOB_COMPLETION_INDEX"); v != "" {
		index, err := strconv.Atoi(v)
		if err != nil {
			return nil, fmt.Errorf("--shard auto: JOB_COMPLETION_INDEX=%q is not a number", v)
		}
		if count == 0 {
			return nil, errors.New("--shard auto in a Kubernetes Indexed Job: give --shard-count N, the Job's completions")
		}
		return checkSlice("--shard auto (JOB_COMPLETION_INDEX="+v+")", index, count)
	}
	v := os.Getenv("SLURM_ARRAY_TASK_ID")
	if v == "" {
		return nil, errors.New("--shard auto: neither JOB_COMPLETION_INDEX (Kubernetes Indexed Job) nor SLURM_ARRAY_TASK_ID (Slurm array) is set; give --shard I/N")
	}
	id, err := strconv.Atoi(v)
	if err != nil {
		return nil, fmt.Errorf("--shard auto: SLURM_ARRAY_TASK_ID=%q is not a number", v)
	}
	// An array submitted as --array=1-3 numbers its tasks from 1.
	lo := 0
	if m := os.Getenv("SLURM_ARRAY_TASK_MIN"); m != "" {
		if lo, err = strconv.Atoi(m); err != nil {
			return nil, fmt.Errorf("--shard auto: SLURM_ARRAY_TASK_MIN=%q is not a number", m)
		}
	}
	if count == 0 {
		c := os.Getenv("SLURM_ARRAY_TASK_COUNT")
		if count, err = strconv.Atoi(c); err != nil {
			return nil, fmt.Errorf("--shard auto: SLURM_ARRAY_TASK_COUNT=%q is not a number; give --shard-count N", c)
		}
	}
	what := fmt.Sprintf("--shard auto (SLURM_ARRAY_TASK_ID=%s, SLURM_ARRAY_TASK_MIN=%d)", v, lo)
	sl, err := checkSlice(what, id-lo, count)
	if err != nil {
		return nil, fmt.Errorf("%w; submit the array as --array=0-%d with no step", err, count-1)
	}
	return sl, nil
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
	shards := make([]*shardFile, len(files))
	for k, name := range files {
		if err := o.files.read("the shard "+name, name); err != nil {
			return err
		}
		var err error
		if shards[k], err = readShard(name); err != nil {
			return err
		}
	}
	widths, err := layout(files[0], shards[0])
	if err != nil {
		return err
	}
	values, err := mergeShards(files, shards, widths)
	if err != nil {
		return err
	}
	// Checked once the shards are known to fit together, so that an error
	// there names what does not fit; no value is printed before.
	for k, f := range shards {
		if f.digest() != f.Digest {
			return fmt.Errorf("%s: its contents do not match its digest: the file was edited after sweep wrote it; sweep that slice again", files[k])
		}
	}
	o.format = orDefault(o.format, shards[0].Format)
	if !slices.Contains([]string{"text", "csv", "json"}, o.format) {
		return fmt.Errorf("--format %q: use text, csv or json", o.format)
	}
	p := &sweepPlan{Scenarios: shards[0].Scenarios, Groups: shards[0].Groups}
	var buf bytes.Buffer
	if err := renderTables(&buf, o.format, p.tables(values)); err != nil {
		return err
	}
	return emit(&o, stdout, &buf)
}

// orDefault returns a unless it is empty, else b.
func orDefault(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// readShard decodes one shard strictly.
func readShard(name string) (*shardFile, error) {
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, unwrapPath(err))
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var f shardFile
	if err := dec.Decode(&f); err != nil || f.Kind != shardKind {
		why := "kind is not " + strconv.Quote(shardKind)
		if err != nil {
			why = err.Error()
		}
		return nil, fmt.Errorf("%s: not a shard of this version of contend (%s); give the files contend sweep --shard I/N wrote", name, why)
	}
	// A second object (two shards pasted into one file) would go unread.
	end := dec.InputOffset()
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: more follows the shard, from byte %d; a shard file holds one JSON object, as sweep --shard wrote it: merge each shard from its own file", name, end)
	}
	return &f, nil
}

// mergeShards checks that the shards are every slice of one sweep, once,
// and returns each point's metrics.
func mergeShards(files []string, shards []*shardFile, widths []int) ([][]float64, error) {
	ref, refName := shards[0], files[0]
	n := ref.Shard.Count
	plan, _ := json.Marshal([]any{ref.Groups, ref.Points})
	owner := make([]string, n)
	values := make([][]float64, len(ref.Points))
	for k, f := range shards {
		name := files[k]
		if err := sameSweep(name, f, refName, ref, plan); err != nil {
			return nil, err
		}
		if f.Shard.Index < 0 || f.Shard.Index >= n {
			return nil, fmt.Errorf("%s: slice %s does not exist; the file was edited, sweep that slice again", name, f.Shard)
		}
		if o := owner[f.Shard.Index]; o != "" {
			return nil, fmt.Errorf("%s and %s are both slice %s: merge one of them", o, name, f.Shard)
		}
		owner[f.Shard.Index] = name
		if err := fill(name, f, values, widths); err != nil {
			return nil, err
		}
	}
	for i, o := range owner {
		if o == "" {
			return nil, fmt.Errorf("slice %d/%d is missing: sweep %s again with the same flags and --shard %d/%d, and merge its file with these", i, n, scenarioArgs(ref), i, n)
		}
	}
	return values, nil
}

// sameSweep checks that shard f (file name) comes from the sweep of ref.
func sameSweep(name string, f *shardFile, refName string, ref *shardFile, plan []byte) error {
	describe := func(f *shardFile) string {
		var parts []string
		for _, s := range f.Scenarios {
			parts = append(parts, fmt.Sprintf("%s (%s, seed %d)", s.Name, s.Hash, s.Seed))
		}
		return strings.Join(parts, ", ")
	}
	if !slices.Equal(f.Scenarios, ref.Scenarios) {
		return fmt.Errorf("%s is a shard of %s but %s of %s: merge only the shards of one sweep, and sweep every slice from the same scenario files, --profile and --seed",
			name, describe(f), refName, describe(ref))
	}
	if f.Seed != ref.Seed || f.Shard.Count != ref.Shard.Count || f.Format != ref.Format {
		return fmt.Errorf("%s was swept with --seed %d --shard %s --format %s but %s with --seed %d --shard %s --format %s: sweep every slice with the same flags",
			name, f.Seed, f.Shard, f.Format, refName, ref.Seed, ref.Shard, ref.Format)
	}
	if p, _ := json.Marshal([]any{f.Groups, f.Points}); !bytes.Equal(p, plan) {
		return fmt.Errorf("%s and %s sweep different points (another --series, or another version of contend): sweep every slice with the same flags and binary", name, refName)
	}
	return nil
}

// fill copies the results of shard f into values, checking that they are
// exactly the points of its slice.
func fill(name string, f *shardFile, values [][]float64, widths []int) error {
	want := 0
	for i := range values {
		if f.Shard.has(i) {
			want++
		}
	}
	if len(f.Results) != want {
		return fmt.Errorf("%s: %d results for slice %s, which has %d points; the file is cut short or edited, sweep that slice again", name, len(f.Results), f.Shard, want)
	}
	for _, r := range f.Results {
		if r.Point < 0 || r.Point >= len(values) || !f.Shard.has(r.Point) || values[r.Point] != nil {
			return fmt.Errorf("%s: point %d is not one of slice %s or comes twice; the file was edited, sweep that slice again", name, r.Point, f.Shard)
		}
		if len(r.Values) != widths[r.Point] {
			return fmt.Errorf("%s: point %d has %d values, its group %d metrics and a note; the file was edited, sweep that slice again", name, r.Point, len(r.Values), widths[r.Point]-1)
		}
		vs := make([]float64, len(r.Values))
		for m, v := range r.Values {
			vs[m] = float64(v)
		}
		if n := note(vs[len(vs)-1]); n < noteNone || n > noteWaiting || float64(n) != vs[len(vs)-1] {
			return fmt.Errorf("%s: point %d has note %v, which is none of 0, 1 or 2; the file was edited, sweep that slice again", name, r.Point, vs[len(vs)-1])
		}
		values[r.Point] = vs
	}
	return nil
}

// layout numbers the points of a shard's groups as planTables does (it sets
// each group's first point) and returns how many metrics each point has.
func layout(name string, f *shardFile) ([]int, error) {
	var widths []int
	for g := range f.Groups {
		gr := &f.Groups[g]
		gr.first = len(widths)
		// Counted against the list so that an edited count cannot
		// allocate without bound.
		left := len(f.Points) - len(widths)
		n := len(gr.X) * len(gr.Variants)
		if gr.Replications < 1 || n > left || gr.Replications > left || n*gr.Replications > left {
			return nil, fmt.Errorf("%s: group %d does not match the point list; the file was edited, sweep again", name, g)
		}
		for range n * gr.Replications {
			widths = append(widths, len(gr.Metrics)+1) // and the point's note
		}
	}
	if len(widths) != len(f.Points) || f.Shard.Count < 1 {
		return nil, fmt.Errorf("%s: its groups make %d points but it lists %d (or no slice count); the file was edited, sweep again", name, len(widths), len(f.Points))
	}
	return widths, nil
}

// scenarioArgs names the scenarios of a shard for a command line.
func scenarioArgs(f *shardFile) string {
	var names []string
	for _, s := range f.Scenarios {
		names = append(names, s.Name)
	}
	return strings.Join(names, " ")
}
