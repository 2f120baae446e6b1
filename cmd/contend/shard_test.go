package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"contend/sweep"
)

// TestMain lets a test run the CLI as a separate process: the test binary
// re-executed with CONTEND_MAIN=1 is contend.
func TestMain(m *testing.M) {
	if os.Getenv("CONTEND_MAIN") == "1" {
		os.Exit(Main(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// process starts contend as its own process, with env added.
func process(t *testing.T, dir string, env []string, args ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "CONTEND_MAIN=1"), env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, &out, &errOut
}

func wait(t *testing.T, cmd *exec.Cmd, errOut *bytes.Buffer) {
	t.Helper()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(cmd.Args[1:], " "), err, errOut)
	}
}

// Three processes each sweep a slice, as three machines of a cluster would;
// merging their files must print the bytes of one unsharded sweep, in every
// format.
func TestShardsMergeToTheSweep(t *testing.T) {
	scen, err := filepath.Abs("testdata/sweep200.toml")
	if err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"text", "csv", "json"} {
		t.Run(format, func(t *testing.T) {
			dir := t.TempDir()
			whole, wholeOut, wholeErr := process(t, dir, nil, "sweep", scen, "--format", format, "--jobs", "1", "--quiet")
			var shards []string
			var running []*exec.Cmd
			var errOuts []*bytes.Buffer
			for i, idx := range []string{"0", "1", "2"} {
				name := "shard-" + idx + ".json"
				shards = append(shards, name)
				// A slice finds its number the way a Slurm array task does,
				// or is given it by hand.
				env := []string{"SLURM_ARRAY_TASK_ID=" + idx, "SLURM_ARRAY_TASK_COUNT=3", "SLURM_ARRAY_TASK_MIN=0"}
				args := []string{"sweep", scen, "--format", format, "--jobs", "1", "--quiet", "-o", name, "--shard", "auto"}
				if i == 1 {
					env, args[len(args)-1] = nil, idx+"/3"
				}
				cmd, _, errOut := process(t, dir, env, args...)
				running, errOuts = append(running, cmd), append(errOuts, errOut)
			}
			wait(t, whole, wholeErr)
			for i, cmd := range running {
				wait(t, cmd, errOuts[i])
			}
			merge, mergeOut, mergeErr := process(t, dir, nil, append([]string{"merge"}, shards...)...)
			wait(t, merge, mergeErr)
			if wholeOut.Len() == 0 || !bytes.Equal(mergeOut.Bytes(), wholeOut.Bytes()) {
				t.Fatalf("merge printed %d bytes, sweep %d; they differ:\nmerge:\n%s\nsweep:\n%s",
					mergeOut.Len(), wholeOut.Len(), firstLines(mergeOut.String()), firstLines(wholeOut.String()))
			}
		})
	}
}

func firstLines(s string) string {
	lines := strings.SplitAfter(s, "\n")
	return strings.Join(lines[:min(len(lines), 12)], "")
}

// sweepShards writes the n slices of a sweep of scen into dir and returns
// their paths and the unsharded sweep's output.
func sweepShards(t *testing.T, dir, scen string, n int, flags ...string) ([]string, string) {
	t.Helper()
	var paths []string
	for i := range n {
		p := filepath.Join(dir, fmt.Sprintf("s%d.json", i))
		mustRun(t, append([]string{"sweep", scen, "--shard", fmt.Sprintf("%d/%d", i, n), "-o", p}, flags...)...)
		paths = append(paths, p)
	}
	return paths, mustRun(t, append([]string{"sweep", scen}, flags...)...)
}

// Replications are averaged after the merge exactly as in one sweep, and
// shards need not be given in order.
func TestMergeReplicatedOutOfOrder(t *testing.T) {
	src, err := os.ReadFile("testdata/sweep200.toml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	scen := filepath.Join(dir, "rep.toml")
	if err := os.WriteFile(scen, bytes.Replace(src, []byte("seed = 7\n"), []byte("seed = 7\nreplications = 3\n"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	paths, want := sweepShards(t, dir, scen, 4, "--series", "large-b", "--format", "csv")
	slices.Reverse(paths)
	if got := mustRun(t, append([]string{"merge"}, paths...)...); got != want {
		t.Fatalf("merged:\n%s\nswept:\n%s", firstLines(got), firstLines(want))
	}
}

// A merge that cannot give the sweep's bytes says which file is wrong and
// what to do about it.
func TestMergeErrors(t *testing.T) {
	dir := t.TempDir()
	paths, _ := sweepShards(t, dir, "testdata/sweep200.toml", 3, "--series", "small-a")
	other := filepath.Join(dir, "other.json")
	mustRun(t, "sweep", "testdata/sweep200.toml", "--series", "small-b", "--shard", "2/3", "-o", other)
	reseeded := filepath.Join(dir, "seed.json")
	mustRun(t, "sweep", "testdata/sweep200.toml", "--series", "small-a", "--seed", "9", "--shard", "2/3", "-o", reseeded)
	fourths := filepath.Join(dir, "fourth.json")
	mustRun(t, "sweep", "testdata/sweep200.toml", "--series", "small-a", "--shard", "2/4", "-o", fourths)
	ingress := filepath.Join(dir, "ingress.json")
	mustRun(t, "sweep", "ingress", "--series", "ingress-u32", "--shard", "2/3", "-o", ingress)
	src, err := os.ReadFile(paths[2])
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cut := write("cut.json", string(src[:len(src)/2]))
	moved := write("moved.json", strings.Replace(string(src), `"point": 2,`, `"point": 3,`, 1))
	short := write("short.json", strings.Replace(string(src), `"replications": 1,`, `"replications": 1000000000000,`, 1))
	value := regexp.MustCompile(`("values": \[\s*)([-0-9.e+]+)`)
	if !value.Match(src) {
		t.Fatalf("no value in %s", paths[2])
	}
	edited := write("edited.json", value.ReplaceAllString(string(src), "${1}1234.5"))
	twice := write("twice.json", string(src)+string(src))
	trailing := write("trailing.json", string(src)+"x")
	for _, tc := range []struct {
		files []string
		want  string
	}{
		{paths[:2], "slice 2/3 is missing: sweep sweep200 again with the same flags and --shard 2/3"},
		{[]string{paths[0], paths[1], paths[1]}, "s1.json and " + paths[1] + " are both slice 1/3"},
		{[]string{paths[0], paths[1], ingress}, "ingress.json is a shard of ingress (sha256:"},
		{[]string{paths[0], paths[1], reseeded}, "seed.json is a shard of sweep200 (sha256:"},
		{[]string{paths[0], paths[1], fourths}, "fourth.json was swept with --seed 0 --shard 2/4"},
		{[]string{paths[0], paths[1], other}, "other.json and " + paths[0] + " sweep different points"},
		{[]string{paths[0], paths[1], cut}, "cut.json: not a shard of this version of contend (unexpected EOF)"},
		{[]string{paths[0], paths[1], moved}, "moved.json: point 3 is not one of slice 2/3"},
		{[]string{short, paths[0], paths[1]}, "short.json: group 0 does not match the point list"},
		{[]string{filepath.Join(dir, "none.json")}, "none.json: no such file"},
		{[]string{paths[0], paths[1], edited}, "edited.json: its contents do not match its digest: the file was edited after sweep wrote it; sweep that slice again"},
		{[]string{paths[0], paths[1], twice}, fmt.Sprintf("twice.json: more follows the shard, from byte %d; a shard file holds one JSON object", len(src)-1)},
		{[]string{paths[0], paths[1], trailing}, "trailing.json: more follows the shard"},
	} {
		_, errOut, code := contend(t, append([]string{"merge"}, tc.files...)...)
		if code != 1 || !strings.Contains(errOut, tc.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("merge %v: status %d, stderr %q; want one line with %q", tc.files, code, errOut, tc.want)
		}
	}
}

func TestShardFlags(t *testing.T) {
	for _, tc := range []struct {
		env  []string
		args []string
		want string
	}{
		{nil, []string{"--shard", "3/3"}, "--shard 3/3: slice 3 of 3 does not exist; slices count from 0 to N-1"},
		{nil, []string{"--shard", "1"}, `--shard "1": give I/N`},
		{nil, []string{"--shard", "auto"}, "neither JOB_COMPLETION_INDEX (Kubernetes Indexed Job) nor SLURM_ARRAY_TASK_ID (Slurm array) is set"},
		{nil, []string{"--shard-count", "3"}, "--shard-count 3: only with --shard auto"},
		{[]string{"JOB_COMPLETION_INDEX", "1"}, []string{"--shard", "auto"}, "give --shard-count N, the Job's completions"},
		{[]string{"JOB_COMPLETION_INDEX", "x"}, []string{"--shard", "auto", "--shard-count", "2"}, `JOB_COMPLETION_INDEX="x" is not a number`},
		{[]string{"SLURM_ARRAY_TASK_ID", "4", "SLURM_ARRAY_TASK_MIN", "1", "SLURM_ARRAY_TASK_COUNT", "3"}, []string{"--shard", "auto"}, "slice 3 of 3 does not exist; slices count from 0 to N-1 (0/3, 1/3, 2/3); submit the array as --array=0-2"},
		{[]string{"SLURM_ARRAY_TASK_ID", "0"}, []string{"--shard", "auto"}, `SLURM_ARRAY_TASK_COUNT="" is not a number; give --shard-count N`},
	} {
		for _, k := range []string{"JOB_COMPLETION_INDEX", "SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_COUNT"} {
			t.Setenv(k, "")
			os.Unsetenv(k)
		}
		for i := 0; i < len(tc.env); i += 2 {
			t.Setenv(tc.env[i], tc.env[i+1])
		}
		_, errOut, code := contend(t, append([]string{"sweep", "testdata/sweep200.toml"}, tc.args...)...)
		if code != 1 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v sweep %v: status %d, stderr %q; want %q", tc.env, tc.args, code, errOut, tc.want)
		}
	}
}

// The slice a Slurm task numbered from 1 takes is the one --shard gives
// by hand.
func TestShardAutoSlurmFromOne(t *testing.T) {
	for _, k := range []string{"JOB_COMPLETION_INDEX"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	t.Setenv("SLURM_ARRAY_TASK_ID", "3")
	t.Setenv("SLURM_ARRAY_TASK_MIN", "1")
	t.Setenv("SLURM_ARRAY_TASK_COUNT", "3")
	auto := mustRun(t, "sweep", "testdata/sweep200.toml", "--series", "small-a", "--shard", "auto")
	byHand := mustRun(t, "sweep", "testdata/sweep200.toml", "--series", "small-a", "--shard", "2/3")
	if auto != byHand || !strings.Contains(auto, `"index": 2,`) {
		t.Fatalf("SLURM_ARRAY_TASK_ID=3 of 1-3 is not slice 2/3:\n%s", firstLines(auto))
	}
}

// Merge reads files from anywhere: whatever it is given, it answers with an
// error or the tables, never a panic. The digest makes the one shard seeded
// here the only one it accepts: any input merged must decode to that shard
// (spacing and key order aside), so no edited value gets through.
func FuzzMerge(f *testing.F) {
	dir := f.TempDir()
	var o bytes.Buffer
	if Main([]string{"sweep", "testdata/sweep200.toml", "--series", "small-a", "--shard", "0/1", "--format", "csv"}, &o, io.Discard) != 0 {
		f.Fatal("sweep --shard 0/1 failed")
	}
	var sweptShard sweep.Shard
	if err := json.Unmarshal(o.Bytes(), &sweptShard); err != nil {
		f.Fatal(err)
	}
	swept, _ := json.Marshal(sweptShard)
	f.Add(o.Bytes())
	f.Add(append(bytes.Clone(o.Bytes()), o.Bytes()...))
	f.Add(bytes.Replace(o.Bytes(), []byte(`"values": [`), []byte(`"values": [1, `), 1))
	f.Add([]byte(`{"kind": "contend sweep shard v2", "shard": {"index": 0, "count": 1}, "groups": [{"x": [1], "variants": ["a"], "replications": 1, "metrics": [{}]}], "points": [{}], "results": [{"point": 0, "values": ["NaN", 0]}]}`))
	f.Fuzz(func(t *testing.T, src []byte) {
		p := filepath.Join(dir, "f.json")
		if err := os.WriteFile(p, src, 0o644); err != nil {
			t.Fatal(err)
		}
		out, errOut, code := contend(t, "merge", p)
		switch code {
		case 0:
			var got sweep.Shard
			if err := json.Unmarshal(src, &got); err != nil {
				t.Fatalf("merge accepted what does not decode: %v", err)
			}
			if b, _ := json.Marshal(got); !bytes.Equal(b, swept) {
				t.Fatalf("merge accepted a shard that is not the one sweep wrote:\n%s", out)
			}
		case 1:
			if out != "" || errOut == "" {
				t.Fatalf("a refused merge printed %q and %q; want an error on stderr only", out, errOut)
			}
		default:
			t.Fatalf("status %d: %s", code, errOut)
		}
	})
}
