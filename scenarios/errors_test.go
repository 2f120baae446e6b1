package scenarios_test

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"contend/scenarios"
)

// good is a small valid scenario. The bad inputs below are edits of it, and
// each names the line of the edit as a literal: the numbers are counted here,
// by hand, not recomputed by the code under test.
const good = `name = "t"

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
jitter = "none"
[params]
work = "20ns"

[[line]]
name = "stats"

[[lock]]
name = "qlock"
kind = "ticket"

[[lock]]
name = "tb6"
kind = "rwlock"

[[variant]]
name = "locked"
steps = [
  { compute = "work" },
  { lock = "qlock" },
  { store = "stats" },
  { unlock = "qlock" },
]

[workload]
kind = "flood"
cores = 2

[run]
duration = "10us"

[[series]]
name = "box"
profile = "box"
free = ["params.work"]
[[series.reference]]
variant = "locked"
x = 1
metric = "throughput_per_core"
value = 20
unit = "Mpps"
role = "calibrate"
`

// edit replaces the one occurrence of old in src.
func edit(t *testing.T, src, old, new string) string {
	t.Helper()
	if n := strings.Count(src, old); n != 1 {
		t.Fatalf("edit: %q occurs %d times in the source, want once", old, n)
	}
	return strings.Replace(src, old, new, 1)
}

func TestGoodParses(t *testing.T) {
	s, err := scenarios.Parse(fstest.MapFS{}, "t.toml", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Variants) != 1 || len(s.Series) != 1 || len(s.Series[0].Refs) != 1 {
		t.Fatalf("parsed %d variants, %d series; want 1 and 1 with one reference", len(s.Variants), len(s.Series))
	}
}

// badCase is one class of bad input: the edit that makes it, and where the
// error must point and what it must say to fix it.
type badCase struct {
	name       string
	old, new   string // edit of good; new may span lines
	old2, new2 string // further edits, when the case needs them
	old3, new3 string
	files      fstest.MapFS
	load       string // with files: the file to Load instead of parsing good
	file       string // File of the error; "t.toml" when empty
	line       int
	field      string
	fix        string // a piece of the message that says what to do
}

var badCases = []badCase{
	{name: "unknown key at top level", old: `name = "t"`, new: "name = \"t\"\ncolour = \"red\"",
		line: 2, field: "colour", fix: "check the spelling"},
	{name: "unknown key in a profile", old: `wakeup = "5us"`, new: `wakup = "5us"`,
		line: 14, field: "profile.box.wakup", fix: "check the spelling"},
	{name: "unknown key in a step", old: `{ store = "stats" }`, new: `{ store = "stats", lable = "x" }`,
		line: 35, field: "variant.steps.lable", fix: "check the spelling"},
	{name: "unknown coherence protocol", old: `wakeup = "5us"`, new: "wakeup = \"5us\"\ncoherence = \"mesi\"",
		line: 15, field: "profile.box.coherence", fix: `use "mesif"`},
	{name: "string where a number is expected", old: "ghz = 2", new: `ghz = "2"`,
		line: 4, field: "profile.box.ghz", fix: "without quotes"},
	{name: "string where a count is expected", old: "cores = 2", new: `cores = "2"`,
		line: 41, field: "workload.cores", fix: "without quotes"},
	{name: "number where a string is expected, in a step", old: "{ compute = \"work\" },\n  { lock",
		new: "{ compute = 5 },\n  { lock", line: 33, field: "variant.steps.compute", fix: "put it in quotes"},
	{name: "wrong type in the first of two variants", old: "{ compute = \"work\" },\n  { lock = \"qlock\" },\n  { store = \"stats\" },\n  { unlock = \"qlock\" },\n]\n",
		new:  "{ compute = 5 },\n  { lock = \"qlock\" },\n  { store = \"stats\" },\n  { unlock = \"qlock\" },\n]\n\n[[variant]]\nname = \"v2\"\nsteps = [ { compute = \"work\" } ]\n",
		line: 33, field: "variant.steps.compute", fix: "put it in quotes"},
	{name: "wrong type in the second of two variants", old: "\n[workload]", new: "\n[[variant]]\nname = \"v2\"\nsteps = [ { compute = \"work\" }, { compute = 5 } ]\n\n[workload]",
		line: 41, field: "variant.steps.compute", fix: "put it in quotes"},
	{name: "undefined line", old: `{ store = "stats" }`, new: `{ store = "statz" }`,
		line: 35, field: "variant.locked.steps[2].store", fix: "add it under [[line]]"},
	{name: "undefined lock", old: `{ lock = "qlock" }`, new: `{ lock = "qlok" }`,
		line: 34, field: "variant.locked.steps[1].lock", fix: "add it under [[lock]]"},
	{name: "callback on a step that is not call_rcu", old: `{ store = "stats" }`, new: `{ store = "stats", callback = "free" }`,
		line: 35, field: "variant.locked.steps[2].callback", fix: "only call_rcu runs one"},
	{name: "undefined callback block", old: `{ compute = "work" }`, new: `{ call_rcu = 0, callback = "free" }`,
		line: 33, field: "variant.locked.steps[0].callback", fix: "define the callback's steps under [block]"},
	{name: "callback that takes a lock", old: "\n[[variant]]\nname = \"locked\"\nsteps = [\n  { compute = \"work\" },",
		new:  "\n[block]\nfree = [ { lock = \"qlock\" } ]\n\n[[variant]]\nname = \"locked\"\nsteps = [\n  { call_rcu = 0, callback = \"free\" },",
		line: 36, field: "variant.locked.steps[0].callback", fix: "move the lock out of the callback"},
	{name: "callback named and written in place", old: "\n[[variant]]\nname = \"locked\"\nsteps = [\n  { compute = \"work\" },",
		new:  "\n[block]\nfree = [ { store = \"stats\" } ]\n\n[[variant]]\nname = \"locked\"\nsteps = [\n  { call_rcu = 0, callback = \"free\", steps = [ { store = \"stats\" } ] },",
		line: 36, field: "variant.locked.steps[0].steps", fix: "keep one"},
	{name: "callback in place that takes a lock", old: `{ compute = "work" }`, new: `{ call_rcu = 0, steps = [ { store = "stats" }, { lock = "qlock" } ] }`,
		line: 33, field: "variant.locked.steps[0].steps", fix: "step 2 is a lock step"},
	{name: "callback in place with a lock in its jiffy gate", old: `{ compute = "work" }`, new: `{ call_rcu = 0, steps = [ { once_per_jiffy = "percpu", steps = [ { lock = "qlock" } ] } ] }`,
		line: 33, field: "variant.locked.steps[0].steps", fix: "step 1's step 1 is a lock step; a callback runs in softirq"},
	{name: "nested steps on a store", old: `{ store = "stats" }`, new: `{ store = "stats", steps = [ { compute = "work" } ] }`,
		line: 35, field: "variant.locked.steps[2].steps", fix: "only once_per_jiffy (the steps it guards), call_rcu (its callback's)"},
	{name: "percpu_counter on a shared line", old: `name = "stats"`, new: "name = \"stats\"\npercpu_counter = \"stats\"",
		line: 21, field: "line.percpu_counter", fix: "set percpu = true"},
	{name: "batch on a line that is no percpu_counter", old: `name = "stats"`, new: "name = \"stats\"\nbatch = 4",
		line: 21, field: "line.batch", fix: "only a percpu_counter's line has a batch"},
	{name: "percpu_counter_inc on a plain line", old: `{ store = "stats" }`, new: `{ percpu_counter_inc = "stats" }`,
		line: 35, field: "variant.locked.steps[2].percpu_counter_inc", fix: "is not a percpu_counter's line"},
	{name: "read_lock on a spinlock", old: `{ lock = "qlock" }`, new: `{ read_lock = "qlock" }`,
		line: 34, field: "variant.locked.steps[1].read_lock", fix: "use lock and unlock"},
	{name: "store to a lock", old: `{ store = "stats" }`, new: `{ store = "tb6" }`,
		line: 35, field: "variant.locked.steps[2].store", fix: "name a line"},
	{name: "negative cores", old: "cores = 2", new: "cores = -1",
		line: 41, field: "workload.cores", fix: "give between 1 and"},
	{name: "zero batch_ops", old: "cores = 2", new: "cores = 2\nbatch_ops = 0",
		line: 42, field: "workload.batch_ops", fix: "at least 1"},
	{name: "duration with an unknown unit", old: `duration = "10us"`, new: `duration = "25 parsecs"`,
		line: 44, field: "run.duration", fix: "write a number with a unit"},
	{name: "negative duration", old: `{ compute = "work" }`, new: `{ compute = "-3ns" }`,
		line: 33, field: "variant.locked.steps[0].compute", fix: "at least 0"},
	{name: "negative latency", old: `atomic = "8ns"`, new: `atomic = "-3ns"`,
		line: 13, field: "profile.box.atomic", fix: "at least 0"},
	{name: "malformed param", old: `work = "20ns"`, new: `work = "25 parsecs"`,
		line: 17, field: "params.work", fix: `a duration ("25ns") or a number`},
	{name: "unknown param in compute", old: `{ compute = "work" }`, new: `{ compute = "wrok" }`,
		line: 33, field: "variant.locked.steps[0].compute", fix: "define it under [params]"},
	{name: "batch_variant in a flood", old: "cores = 2", new: "cores = 2\nbatch_variant = \"locked\"",
		line: 42, field: "workload.kind", fix: "only apply to kind = \"both\""},
	{name: "sleep of 0", old: `{ compute = "work" }`, new: `{ sleep = "0us" }`,
		line: 33, field: "variant.locked.steps[0].sleep", fix: "give it a duration"},
	{name: "plain-number param as a duration", old: "work = \"20ns\"", new: "work = 20",
		line: 33, field: "variant.locked.steps[0].compute", fix: "give it a unit under [params]"},
	{name: "series param of another type", old: "free = [\"params.work\"]", new: "free = [\"params.work\"]\nparams = { work = 5 }",
		line: 50, field: "series.params.work", fix: "give it the same way here"},
	{name: "unknown workload kind", old: `kind = "flood"`, new: `kind = "flod"`,
		line: 40, field: "workload.kind", fix: `use "flood", "batch" or "both"`},
	{name: "batch unit without a batch beside a flood", old: `kind = "flood"`, new: "kind = \"flood\"\nbatch_unit = \"filter\"",
		line: 41, field: "workload.batch_unit", fix: `with kind = "flood", unit names the program's run: use unit or drop batch_unit`},
	{name: "batch unit of two words", old: `kind = "flood"`, new: "kind = \"flood\"\nbatch_unit = \"tc filter\"",
		line: 41, field: "workload.batch_unit", fix: "name one run of the batch's program with one lowercase word"},
	{name: "step with no operation", old: `{ store = "stats" }`, new: `{ label = "stats" }`,
		line: 31, field: "variant.locked.steps[2]", fix: "give exactly one of compute, load, store"},
	{name: "step with two operations", old: `{ store = "stats" }`, new: `{ store = "stats", lock = "qlock" }`,
		line: 35, field: "variant.locked.steps[2]", fix: "split it into steps"},
	{name: "missing name", old: `name = "t"`, new: `description = "no name"`,
		line: 1, field: "name", fix: `name = "`},
	{name: "duplicate variant", old: "\n[workload]", new: "\n[[variant]]\nname = \"locked\"\nsteps = [ { compute = \"work\" } ]\n\n[workload]",
		line: 40, field: "variant.name", fix: "its own name"},
	{name: "unknown metric", old: `metric = "throughput_per_core"`, new: `metric = "latency"`,
		line: 53, field: "series.reference.metric", fix: "use throughput_per_core"},
	{name: "unknown unit", old: `unit = "Mpps"`, new: `unit = "Gpps"`,
		line: 55, field: "series.reference.unit", fix: "use Mpps, kpps or pps"},
	{name: "role not calibrate or validate", old: `role = "calibrate"`, new: `role = "fit"`,
		line: 56, field: "series.reference.role", fix: `"validate"`},
	{name: "more calibrate points than free parameters", old: "role = \"calibrate\"\n",
		new:  "role = \"calibrate\"\n[[series.reference]]\nvariant = \"locked\"\nx = 2\nmetric = \"throughput_per_core\"\nvalue = 10\nunit = \"Mpps\"\nrole = \"calibrate\"\n",
		line: 63, field: "series.reference.role", fix: `mark it "validate" or free another parameter`},
	{name: "unknown profile in a series", old: `profile = "box"`, new: `profile = "bx"`,
		line: 48, field: "series.profile", fix: "define [profile.bx]"},
	{name: "series base not a variant", old: "free = [\"params.work\"]", new: "free = [\"params.work\"]\nbase = \"lockd\"",
		line: 50, field: "series.base", fix: "name the variant the others change"},
	{name: "bad kernel hz", old: "\n[params]", new: "\n[kernel]\nhz = 5\n\n[params]",
		line: 17, field: "kernel.hz", fix: "CONFIG_HZ"},
	{name: "negative force-quiescent-state delay", old: "\n[params]", new: "\n[kernel]\nhz = 250\njiffies_till_next_fqs = -1\n\n[params]",
		line: 18, field: "kernel.jiffies_till_next_fqs", fix: "0 takes the kernel's default"},
	{name: "negative idle wake-up rate", old: "\n[params]", new: "\n[kernel]\nidle_wakeups = -5\nidle_wakeup_time = \"20us\"\n\n[params]",
		line: 17, field: "kernel.idle_wakeups", fix: "0 to 1e6 a second"},
	{name: "idle wake-up rate without its time", old: "\n[params]", new: "\n[kernel]\nidle_wakeups = 100\n\n[params]",
		line: 16, field: "kernel.idle_wakeups", fix: "give both"},
	{name: "zero ghz", old: "ghz = 2", new: "ghz = 0",
		line: 4, field: "profile.box.ghz", fix: "give the core clock in GHz"},
	{name: "more SMT siblings than cores", old: "threads_per_core = 1", new: "threads_per_core = 8",
		line: 7, field: "profile.box.threads_per_core", fix: "use at most 4"},
	{name: "include cycle", load: "a.toml", files: fstest.MapFS{
		"a.toml": {Data: []byte("name = \"a\"\ninclude = [\"b.toml\"]\n")},
		"b.toml": {Data: []byte("# b includes a back\ninclude = [\"a.toml\"]\n")},
	}, file: "b.toml", line: 2, field: "include", fix: "a third file"},
	{name: "include cycle through another spelling", load: "a.toml", files: fstest.MapFS{
		"a.toml":     {Data: []byte("name = \"a\"\ninclude = [\"sub/b.toml\"]\n")},
		"sub/b.toml": {Data: []byte("# b includes a back\ninclude = [\"../a.toml\"]\n")},
	}, file: "sub/b.toml", line: 2, field: "include", fix: "a third file"},
	{name: "file including itself", load: "a.toml", files: fstest.MapFS{
		"a.toml": {Data: []byte("name = \"a\"\ninclude = [\"./a.toml\"]\n")},
	}, file: "a.toml", line: 2, field: "include", fix: "a third file"},
	{name: "bad latency in an included profile", load: "a.toml", files: fstest.MapFS{
		"a.toml":      {Data: []byte(strings.Replace(good, "\n\n", "\ninclude = [\"common.toml\"]\n\n", 1))},
		"common.toml": {Data: []byte("# shared\n[profile.shared]\nghz = 2\nsockets = 1\ncores_per_socket = 4\nl1_hit = \"1ns\"\nsmt_sibling = \"15ns\"\nsame_socket = \"40 parsecs\"\nother_socket = \"120ns\"\nmemory = \"90ns\"\natomic = \"8ns\"\nwakeup = \"5us\"\n")},
	}, file: "common.toml", line: 8, field: "profile.shared.same_socket", fix: "write a number with a unit"},
	{name: "undefined line in an included block", load: "a.toml", files: fstest.MapFS{
		"a.toml":      {Data: []byte(strings.Replace(good, "\n\n", "\ninclude = [\"common.toml\"]\n\n", 1))},
		"common.toml": {Data: []byte("# shared\n[block]\nrx = [ { compute = \"1ns\" }, { load = \"skb\" } ]\n")},
	}, file: "common.toml", line: 3, field: "block.rx.steps[1].load", fix: "add it under [[line]]"},
	{name: "missing include", load: "a.toml", files: fstest.MapFS{
		"a.toml": {Data: []byte("name = \"a\"\n\ninclude = [\"comon.toml\"]\n")},
	}, file: "a.toml", line: 3, field: "include", fix: "relative to this file"},
	{name: "spin_clear not a duration", old: "wakeup = \"5us\"", new: "wakeup = \"5us\"\nspin_clear = \"35 furlongs\"",
		line: 15, field: "profile.box.spin_clear", fix: "write a number with a unit"},
	{name: "unknown spin", old: "cores = 2", new: "cores = 2\nspin = \"busy\"",
		line: 42, field: "workload.spin", fix: "use \"pause\""},
	{name: "unknown placement swept", old: "duration = \"10us\"\n", new: "duration = \"10us\"\n\n[sweep]\ncores = [1, 2]\nplacement = [\"smt-last\", \"spred\"]\n",
		line: 48, field: "sweep.placement", fix: "use smt-last, compact or spread"},
	{name: "placement swept as one name", old: "duration = \"10us\"\n", new: "duration = \"10us\"\n\n[sweep]\ncores = [1, 2]\nplacement = \"spread\"\n",
		line: 48, field: "sweep.placement", fix: "list the placements to run"},
	{name: "sweep axis of names", old: "duration = \"10us\"\n", new: "duration = \"10us\"\n\n[sweep]\ncores = [\"one\", \"two\"]\n",
		line: 47, field: "sweep.cores", fix: "as numbers"},
	{name: "own axis called placement", old: "duration = \"10us\"\n", new: "duration = \"10us\"\n\n[axes]\nplacement = \"cpus\"\n",
		line: 47, field: "axes.placement", fix: "give your axis another name"},
	{name: "inline tables nested too deep", old: `name = "t"`, new: "name = \"t\"\n" + nested(40),
		line: 2, field: "deep", fix: "write it with fewer levels"},
	{name: "two series of one name", old: "role = \"calibrate\"\n", new: "role = \"calibrate\"\n\n[[series]]\nname = \"box\"\nprofile = \"box\"\n",
		line: 59, field: "series.name", fix: "give each series its own name"},
	{name: "variant listed twice in a series", old: "free = [\"params.work\"]", new: "free = [\"params.work\"]\nvariants = [\"locked\", \"locked\"]",
		line: 50, field: "series.variants", fix: "list each variant once"},
	{name: "free parameter listed twice", old: "free = [\"params.work\"]", new: "free = [\"params.work\", \"params.work\"]",
		line: 49, field: "series.free", fix: "list each parameter once"},
	{name: "reference point listed twice", old: "role = \"calibrate\"\n",
		new:  "role = \"calibrate\"\n[[series.reference]]\nvariant = \"locked\"\naxis = \"cores\"\nx = 1\nmetric = \"throughput_per_core\"\nvalue = 21\nunit = \"Mpps\"\nrole = \"validate\"\n",
		line: 57, field: "series.reference", fix: "keep one"},
	{name: "sweep value listed twice", old: "duration = \"10us\"\n", new: "duration = \"10us\"\n\n[sweep]\ncores = [1, 2, 1]\n",
		line: 47, field: "sweep.cores", fix: "list each point once"},
	{name: "series point listed twice", old: "free = [\"params.work\"]", new: "free = [\"params.work\"]\npoints = [1, 2, 2]",
		line: 50, field: "series.points", fix: "list each point once"},
	{name: "share of a label no step has", old: "metric = \"throughput_per_core\"\nvalue = 20\nunit = \"Mpps\"", new: "metric = \"share_of_cycles_tcp_v4_rcv\"\nvalue = 20\nunit = \"%\"",
		line: 53, field: "series.reference.metric", fix: `give the step it means label = "tcp_v4_rcv", or name one of its labels: _raw_spin_lock, _raw_spin_unlock, compute, idle, stats`},
	{name: "off-CPU time in a label no step has", old: "kind = \"flood\"", new: "kind = \"batch\"",
		old2: "metric = \"throughput_per_core\"\nvalue = 20\nunit = \"Mpps\"", new2: "metric = \"offcpu_in_synchronize_rcu\"\nvalue = 2\nunit = \"s\"",
		line: 53, field: "series.reference.metric", fix: `its time off the CPU in "synchronize_rcu" would be predicted 0`},
	{name: "share over 100%", old: "metric = \"throughput_per_core\"\nvalue = 20\nunit = \"Mpps\"", new: "metric = \"share_of_cycles_stats\"\nvalue = 250\nunit = \"%\"",
		line: 54, field: "series.reference.value", fix: "a share is at most 100%"},
	{name: "reference value past float64's range once an error is taken", old: "value = 20", new: "value = 1e308",
		line: 54, field: "series.reference.value", fix: "a finite number above 0 (an error is relative to it), from 1e-09 to 1e+15"},
	{name: "reference value too small to take an error relative to", old: "value = 20", new: "value = 1e-300",
		line: 54, field: "series.reference.value", fix: "a finite number above 0 (an error is relative to it), from 1e-09 to 1e+15"},
	{name: "store buffer of 0 entries", old: `jitter = "none"`, new: "jitter = \"none\"\nstore_buffer = 0",
		line: 16, field: "profile.box.store_buffer", fix: "leave store_buffer out"},
	{name: "LLC of 0 cores", old: `jitter = "none"`, new: "jitter = \"none\"\ncores_per_llc = 0",
		line: 16, field: "profile.box.cores_per_llc", fix: "leave cores_per_llc out"},
	{name: "free latency with no range to be fitted in", old: "memory = \"90ns\"\natomic = \"8ns\"", new: "memory = \"0ns\"\natomic = \"0ns\"",
		old2: "free = [\"params.work\"]", new2: "free = [\"profile.atomic\"]",
		line: 49, field: "series.free", fix: `give profile "box" its memory latency`},
	{name: "free param whose bound overflows", old: `work = "20ns"`, new: "work = \"20ns\"\nscale = 1e307",
		old2: "free = [\"params.work\"]", new2: "free = [\"params.scale\"]",
		line: 50, field: "series.free", fix: "100 times its value"},
	{name: "pingpong on a per-cpu line", old: `name = "stats"`, new: "name = \"stats\"\npercpu = true",
		old2: `{ store = "stats" }`, new2: `{ pingpong = "stats" }`,
		line: 36, field: "variant.locked.steps[2].pingpong", fix: "ping-pong on a shared line"},
	{name: "pingpong_read on a per-cpu line", old: `name = "stats"`, new: "name = \"stats\"\npercpu = true",
		old2: `{ store = "stats" }`, new2: `{ pingpong_read = "stats" }`,
		line: 36, field: "variant.locked.steps[2].pingpong_read", fix: "ping-pong on a shared line"},
	{name: "jiffy gate on a per-cpu line", old: `name = "stats"`, new: "name = \"stats\"\npercpu = true",
		old2: `{ store = "stats" }`, new2: `{ once_per_jiffy = "stats", steps = [ { compute = "work" } ] }`,
		line: 36, field: "variant.locked.steps[2].once_per_jiffy", fix: `once_per_jiffy = "percpu"`},
	{name: "array where a param is expected", old: `work = "20ns"`, new: `work = ["20ns"]`,
		line: 17, field: "params.work", fix: "an array; a param is a duration"},
	{name: "table where a param is expected", old: `work = "20ns"`, new: `work = { ns = 20 }`,
		line: 17, field: "params.work", fix: "a table; a param is a duration"},
	{name: "boolean where a series param is expected", old: "free = [\"params.work\"]", new: "free = [\"params.work\"]\nparams = { work = true }",
		line: 50, field: "series.params.work", fix: "a boolean; a param is a duration"},
	{name: "table where a string is expected", old: `{ compute = "work" }`, new: `{ compute = { ns = 20 } }`,
		line: 33, field: "variant.steps.compute", fix: "a table where a string is expected; put it in quotes"},
	{name: "array where a float is expected", old: "ghz = 2", new: "ghz = [2]",
		line: 4, field: "profile.box.ghz", fix: "an array where a float is expected; write a number without quotes"},
	{name: "date where an integer is expected", old: "cores = 2", new: "cores = 1979-05-27",
		line: 41, field: "workload.cores", fix: "a date where an integer is expected"},
	{name: "boolean among sweep values", old: "duration = \"10us\"\n", new: "duration = \"10us\"\n\n[sweep]\ncores = [1, true]\n",
		line: 47, field: "sweep.cores", fix: "the array holds a boolean"},
	{name: "integer among placements", old: "duration = \"10us\"\n", new: "duration = \"10us\"\n\n[sweep]\nplacement = [1]\n",
		line: 47, field: "sweep.placement", fix: "an integer among the placements"},
	{name: "off-CPU time in a label that does not block", old: "kind = \"flood\"", new: "kind = \"batch\"",
		old2: "metric = \"throughput_per_core\"\nvalue = 20\nunit = \"Mpps\"", new2: "metric = \"offcpu_in_compute\"\nvalue = 2\nunit = \"s\"",
		line: 53, field: "series.reference.metric", fix: `no step of variant "locked" blocks (sleep, synchronize_rcu, mutex_lock)`},
	{name: "off-CPU time in a label another step blocks under", old: "kind = \"flood\"", new: "kind = \"batch\"",
		old2: "metric = \"throughput_per_core\"\nvalue = 20\nunit = \"Mpps\"", new2: "metric = \"offcpu_in_compute\"\nvalue = 2\nunit = \"s\"",
		old3: `{ compute = "work" }`, new3: `{ sleep = "work" }`,
		line: 53, field: "series.reference.metric", fix: "name one of the labels it blocks under: schedule_timeout"},
	{name: "placement copy takes a series' name", old: "duration = \"10us\"\n", new: "duration = \"10us\"\n\n[sweep]\nplacement = [\"spread\"]\n\n[[series]]\nname = \"box-spread\"\nprofile = \"box\"\n",
		line: 47, field: "sweep.placement", fix: "rename one"},
}

func TestBadInput(t *testing.T) { checkBadCases(t, badCases) }

// checkBadCases makes each case's edits and checks the error they give.
func checkBadCases(t *testing.T, cases []badCase) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			if tc.files != nil {
				_, err = scenarios.Load(tc.files, tc.load)
			} else {
				src := edit(t, good, tc.old, tc.new)
				if tc.old2 != "" {
					src = edit(t, src, tc.old2, tc.new2)
				}
				if tc.old3 != "" {
					src = edit(t, src, tc.old3, tc.new3)
				}
				_, err = scenarios.Parse(fstest.MapFS{}, "t.toml", []byte(src))
			}
			checkError(t, err, or(tc.file, "t.toml"), tc.line, tc.field, tc.fix)
		})
	}
}

func checkError(t *testing.T, err error, file string, line int, field, fix string) {
	t.Helper()
	var e *scenarios.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T); want a *scenarios.Error", err, err)
	}
	if e.File != file || e.Line != line || e.Column < 1 || e.Field != field {
		t.Errorf("error at %s:%d:%d field %q; want %s:%d:(>0) field %q\n\t%v", e.File, e.Line, e.Column, e.Field, file, line, field, e)
	}
	if !strings.Contains(e.Msg, fix) {
		t.Errorf("message %q does not say how to fix it (want %q in it)", e.Msg, fix)
	}
	// A user writes TOML, and reads its types' names, not Go's.
	for _, goType := range []string{"interface {", "]any", "map[", "int64", "float64", "not bool"} {
		if strings.Contains(e.Msg, goType) {
			t.Errorf("message %q names a Go type (%q)", e.Msg, goType)
		}
	}
}

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// With several values of the wrong type, the first in the file is reported,
// every time: the decoder meets them in map order.
func TestFirstTypeErrorReported(t *testing.T) {
	src := strings.NewReplacer("ghz = 2", `ghz = "2"`, "sockets = 1", `sockets = "1"`, "cores = 2", `cores = "2"`,
		"x = 1", `x = "1"`).Replace(good)
	for range 20 {
		_, err := scenarios.Parse(fstest.MapFS{}, "t.toml", []byte(src))
		checkError(t, err, "t.toml", 4, "profile.box.ghz", "without quotes")
	}
}

// The column points at the offending key or value on its line.
func TestErrorColumn(t *testing.T) {
	src := edit(t, good, `{ store = "stats" }`, `{ store = "statz" }`)
	_, err := scenarios.Parse(fstest.MapFS{}, "t.toml", []byte(src))
	var e *scenarios.Error
	if !errors.As(err, &e) {
		t.Fatal(err)
	}
	// Line 35 is `  { store = "statz" },`: the step starts at column 5.
	if e.Line != 35 || e.Column != 5 {
		t.Errorf("at %d:%d; want 35:5", e.Line, e.Column)
	}
	if want := fmt.Sprintf("t.toml:35:5: %s: %s", e.Field, e.Msg); e.Error() != want {
		t.Errorf("Error() = %q; want %q", e.Error(), want)
	}
}

// A sleep that an override or a sweep sets to 0 would wake at the instant it
// starts, over and over, and the simulation would never advance: Build
// refuses it.
func TestZeroSleepRefusedAtBuild(t *testing.T) {
	src := strings.NewReplacer(`work = "20ns"`, "work = \"20ns\"\nnap = \"1us\"", `{ compute = "work" }`, `{ sleep = "nap" }`).Replace(good)
	s, err := scenarios.Parse(fstest.MapFS{}, "t.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []scenarios.Point{
		{Variant: "locked", Overrides: map[string]float64{"params.nap": 0}},
		{Variant: "locked", Axis: "nap", X: 0},
	} {
		if _, err := s.Simulate(p); err == nil || !strings.Contains(err.Error(), "sleep") {
			t.Errorf("%+v: error %v; want one about the sleep", p, err)
		}
	}
	if _, err := s.Simulate(scenarios.Point{Variant: "locked", Axis: "nap", X: 1}); err != nil {
		t.Errorf("a sleep of 1 ns: %v", err)
	}
}

// An unreadable file is an Error naming it.
func TestMissingFile(t *testing.T) {
	_, err := scenarios.Load(fstest.MapFS{}, "nope.toml")
	var e *scenarios.Error
	if !errors.As(err, &e) || e.File != "nope.toml" || !strings.Contains(e.Msg, "cannot read") {
		t.Fatalf("error %v; want a *scenarios.Error naming nope.toml", err)
	}
}

// Every built-in scenario and profile still loads: the checks above refuse
// bad input, not the files contend ships.
func TestBuiltinsLoad(t *testing.T) {
	for _, name := range scenarios.BuiltinNames() {
		if _, err := scenarios.LoadBuiltin(name); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	profiles, err := fs.Glob(scenarios.Builtin(), "profiles/*.toml")
	if err != nil || len(profiles) == 0 {
		t.Fatalf("no built-in profiles (%v)", err)
	}
	for _, p := range profiles {
		if _, err := scenarios.LoadProfile(scenarios.Builtin(), p); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}
