package main

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"contend/figures"
)

// base is a small valid scenario; each class of bad input below is an edit
// of one of its lines, so the line numbers (counted by hand) stay put:
// ghz 4, jiffies_till_first_fqs 17, work 20, block rx 30, cores 43, rate 44,
// initial_items 45, duration 49, limit 50, [sweep] cores 53, axis 60, x 63,
// value 65.
const base = `name = "t"

[profile.box]
ghz = 2
sockets = 1
cores_per_socket = 4
threads_per_core = 1
l1_hit = "1ns"
smt_sibling = "15ns"
same_socket = "40ns"
other_socket = "120ns"
memory = "90ns"
atomic = "8ns"
wakeup = "5us"

[kernel]
jiffies_till_first_fqs = 1

[params]
work = "20ns"

[[line]]
name = "stats"

[[lock]]
name = "qlock"
kind = "ticket"

[block]
rx = [ { compute = "work" } ]

[[variant]]
name = "locked"
steps = [
  { block = "rx" },
  { lock = "qlock" },
  { store = "stats" },
  { unlock = "qlock" },
]

[workload]
kind = "flood"
cores = 2
rate = 0
initial_items = 0

[run]
warmup = "1us"
duration = "10us"
limit = "1s"

[sweep]
cores = [1, 2]

[[series]]
name = "box"
profile = "box"
variants = ["locked"]
free = ["params.work"]
axis = "cores"
[[series.reference]]
variant = "locked"
x = 1
metric = "throughput_per_core"
value = 20
unit = "Mpps"
role = "calibrate"
`

// deadline is how long any bad input may take to be answered: a hang is a
// failure, found by a context deadline rather than by waiting it out.
const deadline = 20 * time.Second

// answer runs the CLI in-process and fails t if it does not return within
// deadline or panics.
func answer(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	type result struct {
		out, errOut string
		code        int
		panic       any
	}
	done := make(chan result, 1)
	go func() {
		var r result
		defer func() { r.panic = recover(); done <- r }()
		r.out, r.errOut, r.code = contendIn(args...)
	}()
	select {
	case r := <-done:
		if r.panic != nil {
			t.Fatalf("contend %s panicked: %v", strings.Join(args, " "), r.panic)
		}
		return r.out, r.errOut, r.code
	case <-ctx.Done():
		t.Fatalf("contend %s did not answer within %v", strings.Join(args, " "), deadline)
	}
	return "", "", 0
}

func contendIn(args ...string) (string, string, int) {
	var out, errOut strings.Builder
	code := Main(args, &out, &errOut)
	return out.String(), errOut.String(), code
}

// ed replaces line n (1-based) of base, which must hold old, by repl; repl
// may hold several lines when the edit adds lines after n.
type ed struct {
	n         int
	old, repl string
}

// edited returns base with the edits made.
func edited(t *testing.T, eds ...ed) string {
	t.Helper()
	lines := strings.Split(base, "\n")
	for _, e := range eds {
		if lines[e.n-1] != e.old {
			t.Fatalf("line %d of base is %q, not %q", e.n, lines[e.n-1], e.old)
		}
		lines[e.n-1] = e.repl
	}
	return strings.Join(lines, "\n")
}

// class is one class of bad input: the files it writes (base edited, plus
// others), the command, and what the answer must be.
type class struct {
	name  string
	eds   []ed              // t.toml is base with these edits (none: no t.toml)
	files map[string]string // more files, by name
	args  []string          // {dir} is the folder of the files, {f} t.toml
	code  int
	want  []string // in stderr: the file and line, the field, the fix
}

func (c class) run(t *testing.T) {
	dir := t.TempDir()
	if len(c.eds) > 0 {
		write(t, filepath.Join(dir, "t.toml"), edited(t, c.eds...))
	}
	for name, src := range c.files {
		write(t, filepath.Join(dir, name), src)
	}
	args := make([]string, len(c.args))
	for i, a := range c.args {
		args[i] = strings.NewReplacer("{dir}", dir, "{f}", filepath.Join(dir, "t.toml")).Replace(a)
	}
	before := snapshot(t, dir)
	out, errOut, code := answer(t, args...)
	if after := snapshot(t, dir); c.code != 0 && !maps.Equal(before, after) {
		t.Errorf("a refused command changed the folder: before %v, after %v", slices.Sorted(maps.Keys(before)), slices.Sorted(maps.Keys(after)))
	}
	if code != c.code {
		t.Errorf("status %d, want %d; stderr:\n%s", code, c.code, errOut)
	}
	if c.code != 0 && out != "" {
		t.Errorf("stdout is not empty:\n%s", out)
	}
	for _, w := range c.want {
		w = strings.ReplaceAll(w, "{f}", filepath.Join(dir, "t.toml"))
		w = strings.ReplaceAll(w, "{dir}", dir)
		if !strings.Contains(errOut, w) {
			t.Errorf("stderr does not say %q:\n%s", w, errOut)
		}
	}
}

// snapshot maps every file under dir to its bytes.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if !d.Type().IsRegular() { // a FIFO is named, never opened
			files[p] = d.Type().String()
			return nil
		}
		b, err := os.ReadFile(p)
		files[p] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func write(t *testing.T, path, src string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
}

// both runs a class through validate and fit, the commands that simulate
// reference points.
func both(c class) []class {
	v, f := c, c
	v.name, v.args = c.name+"/validate", []string{"validate", "{f}"}
	f.name, f.args = c.name+"/fit", []string{"fit", "{f}"}
	return []class{v, f}
}

// Panics: a reference x that is not a point of its axis crashed validate and
// fit (makeslice); 0 and 0.5 gave NaN predictions.
func TestBadReferenceX(t *testing.T) {
	var cases []class
	for _, axis := range []string{"cores", "rx_queues", "threads"} {
		for _, x := range []string{"-1", "nan", "inf", "1e300", "0", "0.5"} {
			cases = append(cases, both(class{name: axis + " " + x,
				eds: []ed{{60, `axis = "cores"`, fmt.Sprintf("axis = %q", axis)}, {63, "x = 1", "x = " + x}}, code: 1,
				want: []string{"{f}:63:", "series.reference.x", "a whole number from 1 to 1024"}})...)
		}
	}
	for _, c := range cases {
		t.Run(c.name, c.run)
	}
}

// A reference value an error cannot be relative to gave +Inf% or NaN%.
func TestBadReferenceValue(t *testing.T) {
	for _, v := range []string{"0", "nan", "inf", "-3"} {
		for _, c := range both(class{name: v, eds: []ed{{65, "value = 20", "value = " + v}}, code: 1,
			want: []string{"{f}:65:", "series.reference.value", "a finite number above 0"}}) {
			t.Run(c.name, c.run)
		}
	}
}

// Panic: a force-quiescent-state delay whose jiffies overflow the clock
// scheduled an event in the past (models/rcu.go).
func TestBadRCUDelays(t *testing.T) {
	batch := []ed{{35, `  { block = "rx" },`, `  { block = "rx" }, { synchronize_rcu = true },`}, {42, `kind = "flood"`, `kind = "batch"`}}
	for _, c := range []class{
		{name: "first fqs", eds: append(batch, ed{17, "jiffies_till_first_fqs = 1", "jiffies_till_first_fqs = 3000000000"}),
			want: []string{"{f}:17:", "kernel.jiffies_till_first_fqs", "give at most 250 at hz = 250"}},
		{name: "next fqs", eds: append(batch, ed{17, "jiffies_till_first_fqs = 1", "jiffies_till_next_fqs = 9223372036854775807"}),
			want: []string{"{f}:17:", "kernel.jiffies_till_next_fqs", "give at most 250"}},
		{name: "sched qs", eds: append(batch, ed{17, "jiffies_till_first_fqs = 1", "jiffies_to_sched_qs = 100000"}),
			want: []string{"{f}:17:", "kernel.jiffies_to_sched_qs", "give at most 5250"}},
	} {
		c.args, c.code = []string{"run", "{f}"}, 1
		t.Run(c.name, c.run)
	}
}

// Hang: an offered rate whose inter-arrival time rounds to 0 or overflows
// put every arrival at t=0, forever.
func TestBadRate(t *testing.T) {
	for _, r := range []string{"inf", "2e12", "1e300", "1e-7", "nan", "-1"} {
		c := class{name: r, eds: []ed{{44, "rate = 0", "rate = " + r}}, args: []string{"run", "{f}"}, code: 1,
			want: []string{"{f}:44:", "workload.rate", "0 for a closed loop, else from 0.0001"}}
		t.Run(c.name, c.run)
	}
	ok := class{name: "1e12 is the fastest", eds: []ed{{44, "rate = 0", "rate = 1e12"}, {49, `duration = "10us"`, `duration = "1ns"`}, {48, `warmup = "1us"`, `warmup = "0ns"`}},
		args: []string{"run", "{f}"}}
	t.Run(ok.name, ok.run)
}

// Hang / exponential work: blocks and includes were expanded without memo
// or bound.
func TestBadExpansion(t *testing.T) {
	tenTimes := func(step string) string { return "[ " + strings.TrimSuffix(strings.Repeat(step+", ", 10), ", ") + " ]" }
	levels := "rx = [ { compute = \"work\" } ]"
	for i := 1; i <= 8; i++ {
		levels += fmt.Sprintf("\nb%d = %s", i, tenTimes(fmt.Sprintf(`{ block = "%s" }`, map[bool]string{true: "rx", false: fmt.Sprintf("b%d", i-1)}[i == 1])))
	}
	incs := map[string]string{}
	for i := range 8 {
		var spell []string
		for j := range 10 { // one file, ten spellings of its path
			spell = append(spell, fmt.Sprintf("%q", strings.Repeat("./", j)+fmt.Sprintf("l%d.toml", i+1)))
		}
		incs[fmt.Sprintf("l%d.toml", i)] = fmt.Sprintf("include = [%s]\n[params]\np%d = 1\n", strings.Join(spell, ", "), i)
	}
	incs["l8.toml"] = "[params]\np8 = 1\n"
	for _, c := range []class{
		{name: "block calling itself 10 times", eds: []ed{{30, `rx = [ { compute = "work" } ]`, "rx = " + tenTimes(`{ block = "rx" }`)}},
			want: []string{"{f}:30:", "block.rx", `block "rx" contains itself (rx → rx)`}},
		// The eight levels add eight lines before the variant: its name is on line 41.
		{name: "8 levels of 10 calls", eds: []ed{{30, `rx = [ { compute = "work" } ]`, levels}, {35, `  { block = "rx" },`, `  { block = "b8" },`}},
			want: []string{"{f}:41:", "variant.steps", "more than 100000 steps once its blocks are inlined", "call fewer blocks"}},
		{name: "includes fanned out 10 per level, read once each", eds: []ed{{1, `name = "t"`, "name = \"t\"\ninclude = [\"l0.toml\"]"}},
			files: incs, code: 0},
	} {
		c.args = []string{"validate", "{f}"}
		if c.want != nil {
			c.code = 1
		}
		t.Run(c.name, c.run)
	}
}

// No overall bound on a run: limit was ignored for a flood, and nothing
// stopped a run that would take hours.
func TestRunBound(t *testing.T) {
	for _, c := range []class{
		{name: "flood longer than its limit", eds: []ed{{49, `duration = "10us"`, `duration = "1000s"`}, {50, `limit = "1s"`, `limit = "10ms"`}},
			args: []string{"run", "{f}"}, want: []string{"{f}:50:", "run.limit", "past the limit of 10ms; shorten the run or raise limit"}},
		{name: "runaway flood, scenario bound", eds: []ed{{49, `duration = "10us"`, "duration = \"100s\"\nmax_events = 10000"}, {50, `limit = "1s"`, `limit = "200s"`}},
			args: []string{"run", "{f}"}, want: []string{"reached its bound of 10000 simulated events", "raise [run] max_events (or --max-events)"}},
		{name: "runaway flood, command bound", eds: []ed{{49, `duration = "10us"`, `duration = "100s"`}, {50, `limit = "1s"`, `limit = "200s"`}},
			args: []string{"run", "{f}", "--max-events", "10000"}, want: []string{"reached its bound of 10000 simulated events", "raise [run] max_events (or --max-events)"}},
		{name: "runaway batch", eds: []ed{{42, `kind = "flood"`, "kind = \"batch\"\nbatch_ops = 1000000000"}},
			args: []string{"run", "{f}", "--max-events", "10000"}, want: []string{"reached its bound of 10000 simulated events"}},
		{name: "built-in, command bound", args: []string{"validate", "ingress", "--max-events", "1000"},
			want: []string{"reached its bound of 1000 simulated events", "--max-events"}},
		{name: "bad max_events", eds: []ed{{49, `duration = "10us"`, "duration = \"10us\"\nmax_events = 0"}},
			args: []string{"run", "{f}"}, want: []string{"{f}:50:", "run.max_events", "at least 1"}},
		{name: "bad --max-events", args: []string{"run", "ingress", "--max-events", "-1"}, want: []string{"--max-events -1: give a bound on the simulated events of one point (0: the scenario's own), from 0 to 10000000000"}},
	} {
		c.code = 1
		t.Run(c.name, c.run)
	}
}

// calibrate --from reads a stored record, and says which file is not one.
func TestCalibrateFromBadInput(t *testing.T) {
	for _, c := range []class{
		{name: "missing", args: []string{"calibrate", "--from", "{dir}/none.json"}, want: []string{"none.json"}},
		{name: "not a record", files: map[string]string{"r.json": `{"figures": [], "what": 1}`}, args: []string{"calibrate", "--from", "{dir}/r.json"},
			want: []string{"r.json: not a calibrate record (contend calibrate --format json)", "what"}},
		{name: "unknown loop", files: map[string]string{"r.json": `{"figures": [{"name": "x", "bench": "spin cpus=[0]", "ns_per_op": {"median": 1, "n": 1}}]}`},
			args: []string{"calibrate", "--from", "{dir}/r.json"}, want: []string{`r.json: figure "x": loop "spin cpus=[0]": unknown kernel "spin"`}},
		{name: "two records", files: map[string]string{"r.json": `{"figures": []} {"figures": []}`}, args: []string{"calibrate", "--from", "{dir}/r.json"},
			want: []string{"r.json: data after the record"}},
		{name: "quick", args: []string{"calibrate", "--quick", "--from", "{dir}/none.json"}, want: []string{"--quick and --from", "drop --quick"}},
	} {
		c.code = 1
		t.Run(c.name, c.run)
	}
}

// fit refuses a scan that could find nothing, and says so when no series
// has anything to fit rather than stopping at the first that has not.
func TestFitBadInput(t *testing.T) {
	for _, c := range []class{
		{name: "bad --scan", args: []string{"fit", "ingress", "--scan", "1"}, want: []string{"--scan 1: give 2 to 10000 values"}},
		{name: "nothing free", args: []string{"fit", "qspinlock"}, want: []string{"no series of qspinlock has both free parameters and calibrate points"}},
	} {
		c.code = 1
		t.Run(c.name, c.run)
	}
}

// Size: a scenario of megabytes took gigabytes to load.
func TestFileSizeBound(t *testing.T) {
	big := base + "# padding\n" + strings.Repeat("# "+strings.Repeat("x", 98)+"\n", 11000)
	c := class{name: "big", files: map[string]string{"big.toml": big}, args: []string{"validate", "{dir}/big.toml"}, code: 1,
		want: []string{"{dir}/big.toml: cannot read: ", "bytes; a scenario file holds at most 1048576 (MaxFileBytes)"}}
	c.run(t)
	inc := class{name: "big include", eds: []ed{{1, `name = "t"`, "name = \"t\"\ninclude = [\"big.toml\"]"}}, files: map[string]string{"big.toml": big},
		args: []string{"validate", "{f}"}, code: 1, want: []string{"{f}:2:", "include", `cannot read "big.toml": `, "MaxFileBytes"}}
	inc.run(t)
}

// Silent wrong numbers: values that overflowed picoseconds or counts became
// the zero-work answer; now each is refused where it is written.
func TestOverflowRefused(t *testing.T) {
	for _, c := range []class{
		{name: "cycles at a slow clock", eds: []ed{{4, "ghz = 2", "ghz = 0.01"}, {20, `work = "20ns"`, `work = "1e14cyc"`}},
			want: []string{"{f}:20:", "params.work", `"1e14cyc" is 1e+07 s at 0.01 GHz`, "at most 10000s"}},
		{name: "clock near zero", eds: []ed{{4, "ghz = 2", "ghz = 1e-300"}},
			want: []string{"{f}:4:", "profile.box.ghz", "from 0.01 GHz"}},
		{name: "items near MaxInt64", eds: []ed{{45, "initial_items = 0", "initial_items = 9223372036854775000"}},
			want: []string{"{f}:45:", "workload.initial_items", "give 0 to 1000000000"}},
		{name: "sweep of a huge duration", eds: []ed{{53, "cores = [1, 2]", "work = [1e300]"}},
			want: []string{"{f}:53:", "sweep.work", "a duration takes at most"}},
		{name: "sweep of inf", eds: []ed{{53, "cores = [1, 2]", "work = [inf]"}},
			want: []string{"{f}:53:", "sweep.work", "finite"}},
		{name: "sweep of a negative duration", eds: []ed{{53, "cores = [1, 2]", "work = [-5]"}},
			want: []string{"{f}:53:", "sweep.work", "at least 0"}},
		{name: "negative compute", eds: []ed{{20, `work = "20ns"`, `work = "-20ns"`}},
			want: []string{"{f}:20:", "params.work", "at least 0"}},
		{name: "step longer than the clock", eds: []ed{{30, `rx = [ { compute = "work" } ]`, `rx = [ { compute = "1e6s" } ]`}},
			want: []string{"{f}:30:", "block.rx.steps[0].compute", "at most 10000s"}},
		{name: "call_rcu of an exabyte", eds: []ed{{30, `rx = [ { compute = "work" } ]`, `rx = [ { call_rcu = 1000000000000000000 } ]`}},
			want: []string{"{f}:30:10: block.rx.steps[0].call_rcu", "from 0 to 1073741824 (MaxFreeBytes)"}},
		{name: "scan over too many items", eds: []ed{{30, `rx = [ { compute = "work" } ]`, `rx = [ { scan = "1000s" } ]`}, {45, "initial_items = 0", "initial_items = 1000"}},
			want: []string{"{f}:30:10: block.rx.steps[0]: a scan of 1000s per item over 1001 items takes longer than 10000s", "(variant locked step 1 → block rx step 1)"}},
	} {
		c.args, c.code = []string{"sweep", "{f}"}, 1
		t.Run(c.name, c.run)
	}
}

// -o replaced what is not a regular file, was checked only after the whole
// computation, and named the temporary file in its errors.
func TestOutputPathChecked(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(filepath.Join(dir, "target"), link); err != nil {
		t.Fatal(err)
	}
	for _, c := range []class{
		{name: "FIFO", args: []string{"validate", "ingress", "-o", fifo}, want: []string{"-o " + fifo + ": is a FIFO, not a regular file", "give a regular file or a new path"}},
		{name: "symlink", args: []string{"validate", "ingress", "-o", link}, want: []string{"-o " + link + ": is a symbolic link"}},
		{name: "directory", args: []string{"list", "-o", dir}, want: []string{"-o " + dir + ": is a directory"}},
		{name: "no such folder", args: []string{"list", "-o", filepath.Join(dir, "nope", "x")}, want: []string{"-o " + filepath.Join(dir, "nope", "x") + ": the directory " + filepath.Join(dir, "nope") + " does not exist"}},
		// A scenario that cannot even load: the -o error comes first, so it
		// is found before any work.
		{name: "before the scenario", eds: []ed{{4, "ghz = 2", "ghz = 0"}}, args: []string{"run", "{f}", "-o", fifo}, want: []string{"-o " + fifo + ": is a FIFO"}},
	} {
		c.code = 1
		t.Run(c.name, c.run)
	}
	if names := dirNames(t, dir); strings.Join(names, " ") != "fifo link" {
		t.Errorf("the folder holds %v, want only fifo and link", names)
	}
	// A device is never opened for writing here: checkOut alone decides.
	if err := checkOut(os.DevNull); err == nil || !strings.Contains(err.Error(), "is a device") {
		t.Errorf("checkOut(%s) = %v; want a refusal naming a device", os.DevNull, err)
	}
}

// Includes: a diamond (two files including one) was refused, blaming the
// wrong file; ".." said "invalid argument"; a directory said "readfile :
// invalid argument"; explain --cores -5 was ignored; the unknown-key hint
// named a source file users do not have.
func TestIncludesAndPaths(t *testing.T) {
	shared := map[string]string{
		"common.toml":   "[params]\nspin = \"5ns\"\n",
		"sub/p1.toml":   "include = [\"../common.toml\"]\n[block]\nb1 = [ { compute = \"spin\" } ]\n",
		"sub/p2.toml":   "include = [\"../common.toml\"]\n[block]\nb2 = [ { compute = \"spin\" } ]\n",
		"sub/up.toml":   "include = [\"../../nowhere.toml\"]\n",
		"sub/main.toml": edited(t, ed{1, `name = "t"`, "name = \"t\"\ninclude = [\"p1.toml\", \"p2.toml\"]"}, ed{35, `  { block = "rx" },`, `  { block = "b1" }, { block = "b2" },`}),
	}
	for _, c := range []class{
		{name: "diamond", files: shared, args: []string{"validate", "{dir}/sub/main.toml"}},
		{name: "include climbing with ..", files: shared, args: []string{"explain", "{dir}/sub/main.toml", "--variant", "locked"}},
		{name: "include climbing to nothing", files: shared, args: []string{"validate", "{dir}/sub/up.toml"}, code: 1,
			want: []string{"{dir}/sub/up.toml:1:", `include: cannot read "../../nowhere.toml": no such file or directory; give a path relative to this file`}},
		{name: "directory", files: shared, args: []string{"validate", "{dir}/sub/"}, code: 1,
			want: []string{"{dir}/sub/: cannot read: it is a directory; give the path of a .toml scenario file"}},
		{name: "explain --cores -5", args: []string{"explain", "ingress", "--variant", "locked", "--cores", "-5"}, code: 1,
			want: []string{"--cores -5: give a number of flood CPUs (0: the workload's), from 0 to 1024"}},
		{name: "explain --cores beyond the machine", args: []string{"explain", "ingress", "--variant", "locked", "--cores", "5000"}, code: 1,
			want: []string{"--cores 5000: give a number of flood CPUs (0: the workload's), from 0 to 1024"}},
		{name: "unknown key", eds: []ed{{43, "cores = 2", "croes = 2"}}, args: []string{"run", "{f}"}, code: 1,
			want: []string{"{f}:43:1: workload.croes: ", `did you mean "cores"?`, "(here the keys are kind, cores, rate, ring,"}},
	} {
		t.Run(c.name, c.run)
	}
}

// Errors found while simulating gave no file:line, and numbered the step
// after blocks were inlined: now they point at the step as written, and say
// how the variant reaches it.
func TestModelErrorsPlaced(t *testing.T) {
	common := "# shared\n[block]\nbad = [ { compute = \"1ns\" }, { compute = \"1ns\" }, { mutex_unlock = \"m\" } ]\n"
	for _, c := range []class{
		{name: "unlock not held, in a block", eds: []ed{{30, `rx = [ { compute = "work" } ]`, `rx = [ { compute = "work" }, { unlock = "qlock" } ]`}},
			want: []string{"{f}:30:32: block.rx.steps[1]: ", "spin_unlock(qlock) by a CPU that does not hold it", "(variant locked step 1 → block rx step 2)"}},
		{name: "unlock not held, after a call_rcu with a callback", eds: []ed{{30, `rx = [ { compute = "work" } ]`,
			"rx = [ { compute = \"work\" }, { call_rcu = 0, callback = \"free\" }, { unlock = \"qlock\" } ]\nfree = [ { rmw = \"stats\" } ]"}},
			want: []string{"{f}:30:69: block.rx.steps[2]: ", "spin_unlock(qlock) by a CPU that does not hold it", "(variant locked step 1 → block rx step 3)"}},
		{name: "deadlock, the second of two equal steps", eds: []ed{{36, `  { lock = "qlock" },`, `  { lock = "qlock" }, { lock = "qlock" },`}},
			want: []string{"{f}:36:25: variant.locked.steps[2]: ", "deadlock: spin_lock(qlock)", "(variant locked step 3)"}},
		{name: "sleep under a spinlock", eds: []ed{{37, `  { store = "stats" },`, `  { sleep = "1us" },`}},
			want: []string{"{f}:37:5: variant.locked.steps[2]: ", "sleeps while holding a spinlock", "(variant locked step 3)"}},
		{name: "in a gate's body", eds: []ed{{37, `  { store = "stats" },`, `  { once_per_jiffy = "percpu", steps = [ { store = "stats" }, { unlock = "stats" } ] },`}, {38, `  { unlock = "qlock" },`, ""}},
			want: []string{"{f}:37:", "variant.locked.steps[2].steps[1]"}},
		{name: "in an included block", eds: []ed{{1, `name = "t"`, "name = \"t\"\ninclude = [\"common.toml\"]"}, {27, `kind = "ticket"`, "kind = \"ticket\"\n\n[[lock]]\nname = \"m\"\nkind = \"mutex\""},
			{35, `  { block = "rx" },`, `  { block = "rx" }, { block = "bad" },`}},
			files: map[string]string{"common.toml": common},
			want:  []string{"{dir}/common.toml:3:53: block.bad.steps[2]: ", "mutex_unlock(m) by a task that does not hold it", "(variant locked step 2 → block bad step 3)"}},
	} {
		for _, cmd := range [][]string{{"run", "{f}"}, {"explain", "{f}", "--variant", "locked"}} {
			c := c
			c.name, c.args, c.code = c.name+"/"+cmd[0], cmd, 1
			t.Run(c.name, c.run)
		}
	}
}

// A cost per packet when no packet completed printed "+Inf ns ++Inf%" and
// broke the JSON encoder.
func TestNoPacketsNoInfiniteCost(t *testing.T) {
	eds := []ed{{20, `work = "20ns"`, `work = "1000s"`}, {64, `metric = "throughput_per_core"`, `metric = "cost"`}, {66, `unit = "Mpps"`, `unit = "ns"`}}
	for _, format := range []string{"text", "json"} {
		c := class{name: format, eds: eds, args: []string{"validate", "{f}", "--format", format}, code: 1,
			want: []string{"cost: no packet completed in the measured interval", "lengthen [run] duration"}}
		t.Run(c.name, c.run)
	}
}

// fit with no series to fit printed nothing and succeeded (found by FuzzCLI,
// testdata/fuzz/FuzzCLI/a95965883dd8c4ce).
func TestFitNothing(t *testing.T) {
	for _, c := range []class{
		{name: "no such series", args: []string{"fit", "ingress", "--series", "nope"}, want: []string{`nothing to fit: ingress has no [[series]] named "nope"`}},
		{name: "no series at all", files: map[string]string{"ns.toml": base[:strings.Index(base, "[[series]]")]}, args: []string{"fit", "{dir}/ns.toml"},
			want: []string{"nothing to fit: t has no [[series]]; a series names"}},
	} {
		c.code = 1
		t.Run(c.name, c.run)
	}
}

// explain on a flood whose unit of work is "op" took the batch's count of
// operations to divide by, and there was no batch: a nil dereference.
func TestExplainFloodOfOps(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "t.toml")
	write(t, f, edited(t, ed{43, `cores = 2`, "cores = 2\nunit = \"op\""}))
	out, errOut, code := answer(t, "explain", f, "--variant", "locked")
	if code != 0 {
		t.Fatalf("status %d; stderr:\n%s", code, errOut)
	}
	for _, w := range []string{"work, stall and spin in ns per op):\n  Overhead  ns/op", "transfers/op"} {
		if !strings.Contains(out, w) {
			t.Errorf("explain does not say %q:\n%s", w, out)
		}
	}
}

// Panics and runaway memory: --width 1e9 and NaN panicked in the PNG
// encoder (makeslice, image dimensions), NaN and Inf wrote width="NaNpt" in
// SVG and PDF, --width 1000 took 721 MB (inches at 300 dpi: 300000 pixels
// wide); --uncertainty and --replications had no bound. Every numeric flag
// is held to a range, and nothing is written when it is refused.
func TestFlagBounds(t *testing.T) {
	widthFix := "give a width in inches (3.4: one column of a two-column paper), from 1 to 100"
	var cases []class
	for _, ext := range []string{"png", "svg", "pdf"} {
		for _, w := range []string{"1e9", "NaN", "Inf", "-Inf", "1000", "0.5"} {
			cases = append(cases, class{name: "plot --width " + w + " ." + ext,
				args: []string{"plot", "ingress", "--kind", "breakdown", "--width", w, "-o", "{dir}/x." + ext},
				want: []string{"--width ", widthFix}})
		}
	}
	cases = append(cases,
		class{name: "run --uncertainty 1000000", args: []string{"run", "ingress", "--uncertainty", "1000000", "-o", "{dir}/x"},
			want: []string{"--uncertainty 1000000: give a number of samples (20 or more for a useful 90% interval; 0: none), from 0 to 1000"}},
		class{name: "plot --replications 100000", args: []string{"plot", "ingress", "--replications", "100000", "-o", "{dir}/x.svg"},
			want: []string{"--replications 100000: give a number of runs per point (0: the scenario's [run] replications), from 0 to 1000"}},
		class{name: "plot --x NaN", args: []string{"plot", "ingress", "--kind", "heatmap", "--x", "NaN", "-o", "{dir}/x.svg"},
			want: []string{"--x NaN: give a point on the series axis, from -1e+15 to 1e+15"}},
		class{name: "plot --window beyond a run", args: []string{"plot", "ingress", "--kind", "timeline", "--window", "10000000s", "-o", "{dir}/x.svg"},
			want: []string{"--window 2777h46m40s: give a span of simulated time, such as 100ms, from 1ns to 277h46m40s"}},
		class{name: "--jobs 100000", args: []string{"run", "ingress", "--jobs", "100000"}, want: []string{"--jobs 100000: give a number of points to simulate at once, from 1 to 4096"}},
		class{name: "--max-events 1e12", args: []string{"run", "ingress", "--max-events", "1000000000000"}, want: []string{"--max-events 1000000000000: give a bound on the simulated events of one point (0: the scenario's own), from 0 to 10000000000"}},
		class{name: "fit --scan 1e6", args: []string{"fit", "ingress", "--scan", "1000000"}, want: []string{"--scan 1000000: give a number of values to try (0: none), from 0 to 10000"}},
		class{name: "explain --trace 1e9", args: []string{"explain", "ingress", "--variant", "locked", "--trace", "1000000000"}, want: []string{"--trace 1000000000: give a number of line transfers to list, from 0 to 100000"}},
		class{name: "advise --cores 5000", args: []string{"advise", "ingress", "--variant", "locked", "--cores", "5000"}, want: []string{"--cores 5000: give a number of CPUs, from 1 to 1024"}},
		class{name: "sweep --shard-count -1", args: []string{"sweep", "ingress", "--shard", "auto", "--shard-count", "-1"}, want: []string{"--shard-count -1: give the number of slices N (0: the array's own count), from 0 to 100000"}},
		class{name: "import --packets NaN", files: map[string]string{"perf.txt": "x\n"}, args: []string{"import", "{dir}/perf.txt", "--packets", "NaN"},
			want: []string{"--packets NaN: give the packets processed while perf counted (0: none), from 0 to 1e+18"}},
		class{name: "import --packets Inf", files: map[string]string{"perf.txt": "x\n"}, args: []string{"import", "{dir}/perf.txt", "--packets", "+Inf"},
			want: []string{"--packets +Inf: give the packets processed"}},
		class{name: "import --x -Inf", files: map[string]string{"perf.txt": "x\n"}, args: []string{"import", "{dir}/perf.txt", "--x", "-Inf"},
			want: []string{"--x -Inf: give the axis value of the points, from -1e+15 to 1e+15"}},
		class{name: "import --min-share NaN", files: map[string]string{"perf.txt": "x\n"}, args: []string{"import", "{dir}/perf.txt", "--min-share", "NaN"},
			want: []string{"--min-share NaN: give a share of cycles in percent, from 0 to 100"}},
	)
	for _, c := range cases {
		c.code = 1
		t.Run(c.name, func(t *testing.T) {
			c.run(t)
		})
	}
}

// A PNG within the width bound but too tall for the pixel budget (a figure
// of many panels) is refused with the width that fits; the bound is
// computed here from the budget, independently of figures.checkRaster.
func TestPlotRasterBudget(t *testing.T) {
	dir := t.TempDir()
	out, errOut, code := answer(t, "plot", "ingress", "--kind", "breakdown", "--width", "100", "-o", filepath.Join(dir, "x.png"))
	if code != 1 || out != "" || !strings.Contains(errOut, "--width 100: a 100 × ") || !strings.Contains(errOut, "more than 100 MB; give a width of at most") {
		t.Fatalf("status %d, stderr:\n%s", code, errOut)
	}
	var w, h float64
	if _, err := fmt.Sscanf(errOut[strings.Index(errOut, "a 100 × "):], "a %g × %g in PNG", &w, &h); err != nil {
		t.Fatal(err)
	}
	if px := 4 * (w * 300) * (h * 300); px <= 100<<20 {
		t.Errorf("a %g × %g in PNG is %g bytes, within the budget, yet refused", w, h, px)
	}
	if names := dirNames(t, dir); len(names) != 0 {
		t.Errorf("wrote %v", names)
	}
}

// Every numeric flag of every command has a bound: a flag without one
// panics in flagBounds.Check, which any run of the command reaches.
func TestEveryNumericFlagBounded(t *testing.T) {
	dir := t.TempDir()
	for _, cmd := range []string{"list", "run", "sweep", "merge", "validate", "explain", "fit", "advise", "plot", "calibrate", "import"} {
		arg := filepath.Join(dir, "none.toml")
		if cmd == "list" || cmd == "calibrate" {
			arg = "x"
		}
		if _, _, code := answer(t, cmd, arg); code != 1 {
			t.Errorf("contend %s %s: status %d, want 1", cmd, arg, code)
		}
	}
}

// "--" ends the flags: a scenario file named -o.toml after it is a scenario,
// not -o with the value ".toml"; flags before it still count.
func TestDoubleDash(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "-o.toml"), base)
	t.Chdir(dir)
	for _, args := range [][]string{
		{"run", "--", "-o.toml"},
		{"run", "--format", "csv", "--", "-o.toml"},
		{"run", "--format", "csv", "--", "-o.toml", "--format", "json"}, // "--format" after -- is a name
	} {
		out, errOut, code := answer(t, args...)
		switch {
		case len(args) == 7:
			if code != 1 || !strings.Contains(errOut, "--format") {
				t.Errorf("contend %s: status %d, stderr %q; want the name --format refused", strings.Join(args, " "), code, errOut)
			}
		case code != 0:
			t.Errorf("contend %s: status %d, stderr %q", strings.Join(args, " "), code, errOut)
		case len(args) == 5 && !strings.HasPrefix(out, "series,profile,variant"):
			t.Errorf("contend %s printed %q, not CSV", strings.Join(args, " "), out)
		}
	}
	if names := dirNames(t, dir); strings.Join(names, " ") != "-o.toml" {
		t.Errorf("the folder holds %v, want only -o.toml", names)
	}
}

// Files destroyed: run -o x.toml x.toml replaced the scenario with its
// table; validate -o onto an include, fit -o and --write onto the input,
// plot -o p.svg --csv p.svg, import and merge onto their input did the
// same. The paths are compared resolved: another spelling, a symbolic link
// to the input and a hard link of it are the input too. (class.run checks
// that every file is intact.)
func TestOutputIsNotAnInput(t *testing.T) {
	inc := []ed{{1, `name = "t"`, "name = \"t\"\ninclude = [\"inc.toml\"]"}}
	incFile := map[string]string{"inc.toml": "[params]\nspin = \"5ns\"\n"}
	input := "-o {f}: is the scenario {f}, an input, and would be replaced; write the output to another file"
	for _, c := range []class{
		{name: "run -o its scenario", eds: inc, files: incFile, args: []string{"run", "-o", "{f}", "{f}"}, want: []string{input}},
		{name: "run -o its scenario, spelled otherwise", eds: inc, files: incFile, args: []string{"run", "{dir}/./t.toml", "-o", "{f}"},
			want: []string{"-o {f}: is the scenario {dir}/./t.toml, an input"}},
		{name: "validate -o its include", eds: inc, files: incFile, args: []string{"validate", "{f}", "-o", "{dir}/inc.toml"},
			want: []string{"-o {dir}/inc.toml: is {dir}/inc.toml, which the scenario {f} includes, an input, and would be replaced"}},
		{name: "fit -o its input", eds: inc, files: incFile, args: []string{"fit", "{f}", "-o", "{f}"}, want: []string{input}},
		{name: "fit --write its include", eds: inc, files: incFile, args: []string{"fit", "{f}", "--write", "{dir}/inc.toml"},
			want: []string{"--write {dir}/inc.toml: is {dir}/inc.toml, which the scenario {f} includes"}},
		{name: "fit --write and -o one file", eds: inc, files: incFile, args: []string{"fit", "{f}", "--write", "{dir}/o.toml", "-o", "{dir}/o.toml"},
			want: []string{"--write {dir}/o.toml: is also the file of -o {dir}/o.toml, and one would replace the other; give each its own file"}},
		{name: "plot -o p.svg --csv p.svg", args: []string{"plot", "ingress", "-o", "{dir}/p.svg", "--csv", "{dir}/p.svg"},
			want: []string{"--csv {dir}/p.svg: is also the file of -o {dir}/p.svg"}},
		{name: "import -o its input", files: map[string]string{"perf.txt": "x\n"}, args: []string{"import", "{dir}/perf.txt", "-o", "{dir}/perf.txt"},
			want: []string{"-o {dir}/perf.txt: is the input {dir}/perf.txt, an input"}},
		{name: "merge -o a shard", files: map[string]string{"s.json": "{}"}, args: []string{"merge", "{dir}/s.json", "-o", "{dir}/s.json"},
			want: []string{"-o {dir}/s.json: is the shard {dir}/s.json, an input"}},
	} {
		c.code = 1
		t.Run(c.name, c.run)
	}
	t.Run("links", func(t *testing.T) {
		dir := t.TempDir()
		f := filepath.Join(dir, "t.toml")
		write(t, f, base)
		if err := os.Symlink(f, filepath.Join(dir, "sym.toml")); err != nil {
			t.Fatal(err)
		}
		if err := os.Link(f, filepath.Join(dir, "hard.toml")); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{
			{"run", filepath.Join(dir, "sym.toml"), "-o", f},
			{"run", f, "-o", filepath.Join(dir, "hard.toml")},
		} {
			if _, errOut, code := answer(t, args...); code != 1 || !strings.Contains(errOut, "an input, and would be replaced") {
				t.Errorf("contend %s: status %d, stderr %q", strings.Join(args, " "), code, errOut)
			}
		}
		if b, _ := os.ReadFile(f); string(b) != base {
			t.Errorf("%s was changed", f)
		}
	})
}

// A scenario named ../../escaped made advise --write DIR write two levels
// above DIR: file names made from names keep to DIR.
func TestAdviseWriteStaysInside(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "a", "b")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(dir, "t.toml")
	write(t, f, edited(t, ed{1, `name = "t"`, `name = "../../escaped"`}))
	if _, errOut, code := answer(t, "advise", f, "--variant", "locked", "--cores", "2", "--write", out, "--format", "json"); code != 0 {
		t.Fatalf("status %d; stderr:\n%s", code, errOut)
	}
	var written []string
	for p := range snapshot(t, dir) {
		if p != f {
			written = append(written, p)
		}
		if rel, err := filepath.Rel(out, p); p != f && (err != nil || !filepath.IsLocal(rel)) {
			t.Errorf("advise wrote %s, outside %s", p, out)
		}
	}
	if len(written) == 0 {
		t.Error("advise --write wrote nothing")
	}
}

// import read "1,2,3,,4 cycles" as 1234 cycles and dropped "notanumber
// cycles" without a word; --packets NaN wrote value = NaN.
func TestImportRefusesWhatIsNotACount(t *testing.T) {
	stat := func(line string) map[string]string {
		return map[string]string{"perf.txt": " Performance counter stats for 'system wide':\n\n    28,012,345,678      cycles\n" + line + "\n\n      10.0 seconds time elapsed\n"}
	}
	for _, c := range []class{
		{name: "commas misplaced", files: stat("       1,2,3,,4      cache-references"),
			want: []string{"perf.txt:4: perf stat: cache-references: ", `"1,2,3,,4" is not a number; write it plainly or with a comma between each three digits`}},
		{name: "not a number", files: stat("    notanumber cache-references   # 3 per packet"),
			want: []string{"perf.txt:4: perf stat: cache-references: \"notanumber\" is not a count", "copy the line from its output, or remove it"}},
		{name: "a tiny packet count", files: stat(""), args: []string{"import", "{dir}/perf.txt", "--variant", "v", "--packets", "1e-320"},
			want: []string{"perf.txt:1: perf stat: cycles_per_packet +Inf is not a finite number; check the counts and --packets"}},
		{name: "a table value with commas misplaced", files: map[string]string{"t.csv": "variant,axis,x,metric,value,unit\nv,cores,1,throughput,\"1,00,0\",Mpps\n"},
			args: []string{"import", "{dir}/t.csv"}, want: []string{"t.csv:2: value: \"1,00,0\" is not a number"}},
	} {
		if c.args == nil {
			c.args = []string{"import", "{dir}/perf.txt", "--variant", "v", "--packets", "1000"}
		}
		c.code = 1
		t.Run(c.name, c.run)
	}
	// The counts perf prints are still read, and a line of prose after the
	// counts is not taken for one.
	c := class{name: "a good run", files: stat("       512,345,678      cache-references\nthat was the run"),
		args: []string{"import", "{dir}/perf.txt", "--variant", "v", "--packets", "1000"}}
	t.Run(c.name, c.run)
}

// A point where no packet completed printed 0 with no note: now the text
// says why under the table, and csv and json mark the cell.
func TestNoPacketsNoted(t *testing.T) {
	long := []ed{{20, `work = "20ns"`, `work = "1000s"`}}
	short := "no packet completed: the run is shorter than one packet; lengthen [run] duration"
	for _, c := range []class{
		{name: "text", eds: long, args: []string{"run", "{f}"}},
		{name: "csv", eds: long, args: []string{"run", "{f}", "--format", "csv"}},
		{name: "json", eds: long, args: []string{"run", "{f}", "--format", "json"}},
		{name: "validate", eds: long, args: []string{"validate", "{f}"}},
		{name: "validate json", eds: long, args: []string{"validate", "{f}", "--format", "json"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, filepath.Join(dir, "t.toml"), edited(t, c.eds...))
			out, errOut, code := answer(t, append([]string{c.args[0], filepath.Join(dir, "t.toml")}, c.args[2:]...)...)
			if code != 0 {
				t.Fatalf("status %d: %s", code, errOut)
			}
			want := map[string]string{"text": "  cores=1 locked: " + short + "\n", "csv": ",0,,,," + short + "\n", "json": `"notes": [`,
				"validate": ": " + short + "\n", "validate json": `"note": "` + short + `"`}[c.name]
			if !strings.Contains(out, want) {
				t.Errorf("output does not say %q:\n%s", want, out)
			}
		})
	}
	// Where packets complete there is no note: an empty csv cell, no
	// "notes" in json, no line in text.
	dir := t.TempDir()
	write(t, filepath.Join(dir, "t.toml"), base)
	for _, format := range []string{"text", "csv", "json"} {
		out, errOut, code := answer(t, "run", filepath.Join(dir, "t.toml"), "--format", format)
		if code != 0 || strings.Contains(out, "no packet completed") || strings.Contains(out, `"notes"`) || format == "csv" && !strings.HasSuffix(strings.Split(out, "\n")[1], ",") {
			t.Errorf("%s: status %d, output:\n%s%s", format, code, out, errOut)
		}
	}
}

// Text explain left out the RCU section when there were no grace periods
// (every synchronize_rcu expedited): it shows the section and says why.
func TestExplainRCUWithoutGracePeriods(t *testing.T) {
	batch := []ed{{35, `  { block = "rx" },`, `  { block = "rx" }, { synchronize_rcu = true },`}, {42, `kind = "flood"`, `kind = "batch"`}}
	for _, c := range []struct {
		name string
		eds  []ed
		want []string
	}{
		{"expedited", append(batch, ed{17, "jiffies_till_first_fqs = 1", "expedited = true"}),
			[]string{"RCU (HZ=", "no grace periods: [kernel] expedited = true makes every synchronize_rcu a\n  synchronize_rcu_expedited", "synchronize_rcu_expedited  "}},
		{"grace periods", batch, []string{"RCU (HZ=", " grace periods, ", "synchronize_rcu  "}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			f := filepath.Join(dir, "t.toml")
			write(t, f, edited(t, c.eds...))
			out, errOut, code := answer(t, "explain", f, "--variant", "locked")
			if code != 0 {
				t.Fatalf("status %d: %s", code, errOut)
			}
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("explain does not say %q:\n%s", w, out)
				}
			}
		})
	}
}

// ESC, BEL, NUL and U+202E in names reached the terminal raw ("\033[2J"
// cleared it) and =HYPERLINK(...) reached CSV as a formula: text shows
// each control as its escape, and a CSV cell that would be a formula starts
// with a quote.
func TestNamesEscaped(t *testing.T) {
	const raw = "lo\x1b[2J\x07\x00\u202eck"
	const shown = `lo\x1b[2J\x07\x00\u202eck`
	const name = `lo\u001b[2J\u0007\u0000\u202eck`
	src := strings.Replace(base, "[[variant]]\nname = \"locked\"", "[[variant]]\nname = \""+name+"\"", 1)
	src = strings.Replace(src, "[[series]]\nname = \"box\"", "[[series]]\nname = \"=HYPERLINK(\\\"http://evil\\\")\"", 1)
	src = strings.Replace(src, `variants = ["locked"]`, `variants = ["`+name+`"]`, 1)
	src = strings.Replace(src, `variant = "locked"`, `variant = "`+name+`"`, 1)
	dir := t.TempDir()
	f := filepath.Join(dir, "t.toml")
	write(t, f, src)
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"run", f}, []string{"cores  " + shown, "=HYPERLINK(\"http://evil\") (profile box)"}},
		{[]string{"run", f, "--format", "csv"}, []string{`"'=HYPERLINK(""http://evil"")",box,` + shown + `,cores,1,`}},
		{[]string{"validate", f}, []string{shown + "  cores"}},
		{[]string{"validate", f, "--format", "csv"}, []string{`"'=HYPERLINK(""http://evil"")",` + shown + ",cores,"}},
		{[]string{"explain", f, "--variant", raw}, []string{shown}},
		// JSON keeps the name, with the controls as \u escapes.
		{[]string{"run", f, "--format", "json"}, []string{`"lo\u001b[2J\u0007\u0000\u202eck"`}},
	} {
		out, errOut, code := answer(t, c.args...)
		if code != 0 {
			t.Errorf("contend %q: status %d: %s", c.args, code, errOut)
			continue
		}
		if strings.ContainsAny(out, "\x1b\x07\x00\u202e") {
			t.Errorf("contend %q wrote a raw control character:\n%q", c.args, out)
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("contend %q does not say %q:\n%s", c.args, w, out)
			}
		}
	}
	// An error naming the variant escapes it too.
	_, errOut, _ := answer(t, "explain", f, "--variant", raw, "--series", "nope\x1b[2J")
	if strings.ContainsAny(errOut, "\x1b\x07\x00\u202e") {
		t.Errorf("the error holds a raw control character: %q", errOut)
	}
}

// CSVCell against the cases OWASP lists: formulas quoted, numbers kept.
func TestCSVCell(t *testing.T) {
	for in, want := range map[string]string{
		"=1+2": "'=1+2", "+1+2": "'+1+2", "-x": "'-x", "@SUM(A1)": "'@SUM(A1)", "\tx": `'\x09x`,
		"-3.5": "-3.5", "1e-3": "1e-3", "plain": "plain", "": "", "a\u202eb": `a\u202eb`,
	} {
		if got := figures.CSVCell(in); got != want {
			t.Errorf("CSVCell(%q) = %q, want %q", in, got, want)
		}
	}
}
