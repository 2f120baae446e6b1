package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Bad input is the user's mistake: a status of 1 (bad value) or 2 (bad
// command line), nothing on stdout, and a message that names the problem.
func TestBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want []string // substrings of stderr
	}{
		{nil, 2, []string{"usage: contend <command>"}},
		{[]string{"frob"}, 2, []string{`unknown command "frob"`, "usage: contend"}},
		{[]string{"validate", "--frob"}, 2, []string{"flag provided but not defined: -frob"}},
		{[]string{"run", "ingress", "--cores", "4"}, 2, []string{"contend run: no flag --cores; it is a flag of explain and advise (contend explain -h lists its flags)"}},
		{[]string{"run", "ingress", "--serie", "ingress-u32"}, 2, []string{"contend run: no flag --serie; did you mean --series?"}},
		{[]string{"validate", "--change"}, 2, []string{"contend validate: no flag --change; did you mean --changes?"}},
		{[]string{"run", "ingress", "--jobs"}, 2, []string{"flag needs an argument: -jobs"}},
		{[]string{"run", "ingress", "--jobs", "two"}, 2, []string{`invalid value "two" for flag -jobs`}},
		{[]string{"validate", "--format", "xml"}, 1, []string{`--format "xml": use text, csv or json`}},
		{[]string{"run", "ingress", "--format", "xml"}, 1, []string{`--format "xml": use text, csv or json`}},
		{[]string{"explain", "ingress", "--variant", "locked", "--format", "csv"}, 1, []string{`--format "csv": use text or json`}},
		{[]string{"list", "--format", "json"}, 1, []string{`--format "json": use text`}},
		{[]string{"fit", "ingress", "--format", "csv"}, 1, []string{`--format "csv": use text`}},
		{[]string{"validate", "--jobs", "0"}, 1, []string{"--jobs 0: give a number of points to simulate at once, from 1 to 4096"}},
		{[]string{"sweep", "ingress", "--jobs", "-3"}, 1, []string{"--jobs -3: give a number of points to simulate at once, from 1 to 4096"}},
		{[]string{"run"}, 1, []string{"contend run: name a scenario"}},
		{[]string{"sweep"}, 1, []string{"contend sweep: name a scenario"}},
		{[]string{"fit"}, 1, []string{"contend fit: name one scenario"}},
		{[]string{"explain", "--variant", "locked"}, 1, []string{"usage: contend explain SCENARIO --variant NAME"}},
		{[]string{"explain", "ingress"}, 1, []string{"usage: contend explain SCENARIO --variant NAME"}},
		{[]string{"list", "ingress"}, 1, []string{"list takes no scenario names", "contend run ingress"}},
		{[]string{"run", "nothere"}, 1, []string{`no scenario "nothere"`, "ingress", ".toml"}},
		{[]string{"validate", "ingress", "nothere"}, 1, []string{`no scenario "nothere"`}},
		{[]string{"validate", "nothere.toml"}, 1, []string{"nothere.toml: cannot read"}},
		{[]string{"run", "ingress", "--series", "nope"}, 1, []string{`no series "nope" in ingress`}},
		{[]string{"explain", "ingress", "--variant", "nope"}, 1, []string{`--variant "nope"`, "locked", "lockless"}},
		{[]string{"explain", "ingress", "--variant", "spin_lock_unlock"}, 1, []string{`no series of ingress runs variant "spin_lock_unlock"`}},
		{[]string{"explain", "ingress", "--variant", "locked", "--series", "nope"}, 1, []string{`no series of ingress runs variant "locked"`}},
		{[]string{"explain", "ingress", "--variant", "locked", "--trace", "-1"}, 1, []string{"--trace -1: give a number of line transfers to list, from 0 to 100000"}},
		{[]string{"explain", "ingress", "--variant", "locked", "--trace", "1000000"}, 1, []string{"--trace 1000000: give a number of line transfers to list, from 0 to 100000"}},
		{[]string{"explain", "ingress", "--variant", "locked", "--trace", "many"}, 2, []string{`invalid value "many" for flag -trace`}},
		{[]string{"explain", "ingress", "--variant", "locked", "--trace-from", "1us"}, 1, []string{"--trace-from 1µs", "with --trace N"}},
		{[]string{"explain", "ingress", "--variant", "locked", "--trace", "5", "--trace-from", "-1us"}, 1, []string{"--trace-from -1µs: give a time into the measured interval, such as 4ms, from 0s to "}},
		{[]string{"explain", "ingress", "--variant", "locked", "--series", "ingress-u32", "--cores", "2", "--trace", "5", "--trace-from", "1ms"}, 1, []string{"--trace-from 1ms: the measured interval lasts 1ms; give a time inside it"}},
		{[]string{"explain", "ingress", "--variant", "locked", "--trace", "5", "--trace-from", "soon"}, 2, []string{`invalid value "soon" for flag -trace-from`}},
		{[]string{"explain", "ingress", "--variant", "locked", "--trace-line", "qdisc_lock"}, 1, []string{`--trace-line "qdisc_lock": give --trace N too`}},
		{[]string{"explain", "ingress", "--variant", "locked", "--trace", "5", "--trace-line", "qdisc_lock,nope"}, 1, []string{`ingress has no shared line "nope"`, "qdisc_lock"}},
		{[]string{"plot"}, 1, []string{"contend plot: name one scenario"}},
		{[]string{"plot", "ingress", "-o", "fig.gif"}, 1, []string{"-o fig.gif", "use .svg, .png, .pdf or .eps"}},
		{[]string{"plot", "ingress", "--kind", "pie"}, 1, []string{`--kind "pie": use scaling, breakdown, heatmap, timeline, insertion`}},
		{[]string{"plot", "flower-insert", "--kind", "scaling"}, 1, []string{"flower-insert: scaling draws packet floods", "--kind insertion"}},
		{[]string{"plot", "ingress", "--kind", "insertion"}, 1, []string{"insertion draws a batch", "--kind scaling"}},
		{[]string{"plot", "host-microbench"}, 1, []string{"host-microbench has no [[series]] to draw"}},
		{[]string{"plot", "ingress", "--series", "nope"}, 1, []string{`ingress has no series "nope"`, "ingress-bare"}},
		{[]string{"plot", "ingress", "--width", "0.5"}, 1, []string{"--width 0.5: give a width in inches (3.4: one column of a two-column paper), from 1 to 100"}},
		{[]string{"plot", "ingress", "--kind", "breakdown", "--by", "stack"}, 1, []string{`--by "stack": use state or symbol`}},
		{[]string{"plot", "ingress", "--window", "-1s"}, 1, []string{"--window -1s: give a span of simulated time, such as 100ms, from 1ns to"}},
		{[]string{"plot", "ingress", "--csv", "no/such/dir/t.csv"}, 1, []string{"--csv no/such/dir/t.csv: the directory no/such/dir does not exist"}},
		{[]string{"plot", "ingress", "--kind", "heatmap", "--variant", "nope"}, 1, []string{`has no variant "nope"`}},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			out, errOut, code := contend(t, tc.args...)
			if code != tc.code {
				t.Errorf("status %d, want %d; stderr:\n%s", code, tc.code, errOut)
			}
			if out != "" {
				t.Errorf("stdout is not empty:\n%s", out)
			}
			for _, w := range tc.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr does not say %q:\n%s", w, errOut)
				}
			}
		})
	}
}

// -h is a request, not a mistake: status 0, flags on stderr like the go tool.
func TestHelp(t *testing.T) {
	out, _, code := contend(t, "help")
	if code != 0 || !strings.Contains(out, "commands:") {
		t.Errorf("contend help: status %d, stdout:\n%s", code, out)
	}
	_, errOut, code := contend(t, "run", "-h")
	if code != 0 || !strings.Contains(errOut, "-series") || !strings.Contains(errOut, "text, csv or json") {
		t.Errorf("contend run -h: status %d, stderr:\n%s", code, errOut)
	}
}

// A malformed scenario file is reported at its line and column, under the
// path the user typed, with the offending field.
func TestMalformedTOML(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string // after "PATH:"
	}{
		{"unknown key", "name = \"x\"\ndescription = \"typo below\"\nbogus_key = 3\n",
			[]string{"3:1: bogus_key: ", `unknown key "bogus_key"`}},
		{"unknown key in a table", "name = \"x\"\n\n[workload]\nkind = \"flood\"\ncroes = 4\n",
			[]string{"5:1: workload.croes: ", `unknown key "croes"`}},
		{"syntax", "name = \"x\"\ncores = = 3\n",
			[]string{"2:9: cores: ", "expected value"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "bad.toml")
			if err := os.WriteFile(path, []byte(tc.src), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, cmd := range []string{"validate", "run"} {
				out, errOut, code := contend(t, cmd, path)
				if code != 1 || out != "" {
					t.Errorf("%s: status %d, stdout %q; want 1 and nothing", cmd, code, out)
				}
				want := "contend " + cmd + ": " + path + ":" + tc.want[0]
				for _, w := range append([]string{want}, tc.want[1:]...) {
					if !strings.Contains(errOut, w) {
						t.Errorf("%s: stderr does not say %q:\n%s", cmd, w, errOut)
					}
				}
			}
		})
	}
}

// A relative path is named as typed, not by its base name.
func TestMalformedTOMLRelativePath(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sub", "bad.toml"), []byte("name = \"x\"\nbogus = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	path := filepath.Join("sub", "bad.toml")
	_, errOut, code := contend(t, "validate", path)
	if want := "contend validate: " + path + ":2:1: bogus: "; code != 1 || !strings.HasPrefix(errOut, want) {
		t.Errorf("status %d, stderr %q; want 1 and a message starting %q", code, errOut, want)
	}
}
