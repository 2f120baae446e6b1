package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

const clusterDir = "../../notebooks/cluster/"

// yamlField returns the value of the one line "key: value" of a manifest
// (no YAML library: the manifests are a few lines each, written to be read
// this way).
func yamlField(t *testing.T, text, key string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^\s*-?\s*`+regexp.QuoteMeta(key)+`:\s*(.*)$`).FindAllStringSubmatch(text, -1)
	if len(m) != 1 {
		t.Fatalf("%d lines with %s:; want one", len(m), key)
	}
	return strings.TrimSpace(m[0][1])
}

func readCluster(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(clusterDir + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// command returns a manifest's command, a YAML flow sequence of quoted
// strings (which is JSON).
func command(t *testing.T, text string) []string {
	t.Helper()
	var cmd []string
	if err := json.Unmarshal([]byte(yamlField(t, text, "command")), &cmd); err != nil || len(cmd) < 2 || cmd[0] != "contend" {
		t.Fatalf("command %q: want a JSON-style list starting with contend (%v)", yamlField(t, text, "command"), err)
	}
	return cmd[1:]
}

// The Indexed Job runs one slice per completion index, the merge Job reads
// every shard it writes, and both, run here as Kubernetes would run them
// (the index in the environment and in $(JOB_COMPLETION_INDEX)), print
// what one sweep prints.
func TestKubernetesJobs(t *testing.T) {
	sweep, merge := readCluster(t, "sweep-job.yaml"), readCluster(t, "merge-job.yaml")
	for key, want := range map[string]string{"apiVersion": "batch/v1", "kind": "Job", "completionMode": "Indexed", "restartPolicy": "Never", "mountPath": "/shards"} {
		if got := yamlField(t, sweep, key); got != want {
			t.Errorf("sweep-job.yaml %s: %q, want %q", key, got, want)
		}
	}
	n, err := strconv.Atoi(yamlField(t, sweep, "completions"))
	if err != nil || n < 1 || yamlField(t, sweep, "parallelism") != strconv.Itoa(n) {
		t.Fatalf("sweep-job.yaml: completions %q and parallelism %q: want one number, twice", yamlField(t, sweep, "completions"), yamlField(t, sweep, "parallelism"))
	}
	if yamlField(t, sweep, "claimName") != yamlField(t, merge, "claimName") || yamlField(t, merge, "mountPath") != "/shards" {
		t.Error("the sweep and merge Jobs do not mount the same volume at /shards")
	}
	args := command(t, sweep)
	flags := " " + strings.Join(args, " ") + " "
	for _, want := range []string{" sweep ", " --shard auto ", fmt.Sprintf(" --shard-count %d ", n), " -o /shards/shard-$(JOB_COMPLETION_INDEX).json "} {
		if !strings.Contains(flags, want) {
			t.Errorf("sweep-job.yaml command %q: no %q", flags, want)
		}
	}
	dir := t.TempDir()
	inDir := func(a string) string { return strings.Replace(a, "/shards/", dir+"/", 1) }
	for i := range n {
		var run []string
		for _, a := range args {
			run = append(run, inDir(strings.ReplaceAll(a, "$(JOB_COMPLETION_INDEX)", strconv.Itoa(i))))
		}
		cmd, _, errOut := process(t, dir, []string{"JOB_COMPLETION_INDEX=" + strconv.Itoa(i)}, run...)
		wait(t, cmd, errOut)
	}
	var run []string
	for _, a := range command(t, merge) {
		run = append(run, inDir(a))
	}
	if len(run) != n+1 || run[0] != "merge" {
		t.Fatalf("merge-job.yaml command %q: want merge and the %d shards", run, n)
	}
	cmd, out, errOut := process(t, dir, nil, run...)
	wait(t, cmd, errOut)
	if want := mustRun(t, "sweep", args[1], "--quiet"); out.String() != want {
		t.Fatalf("the Jobs printed:\n%s\none sweep prints:\n%s", firstLines(out.String()), firstLines(want))
	}
}

// The Slurm scripts run with bash, SLURM_ARRAY_TASK_ID set by hand for
// each task of the array and a contend on PATH, print what one sweep prints.
func TestSlurmArray(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash on PATH to run the Slurm scripts with")
	}
	script := readCluster(t, "sweep.sbatch")
	m := regexp.MustCompile(`(?m)^#SBATCH --array=0-(\d+)$`).FindStringSubmatch(script)
	if m == nil || !strings.Contains(script, "--shard auto") {
		t.Fatalf("sweep.sbatch: want an #SBATCH --array=0-N line and contend sweep --shard auto")
	}
	n, _ := strconv.Atoi(m[1])
	n++
	dir := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	stub := fmt.Sprintf("#!/bin/sh\nCONTEND_MAIN=1 exec %q \"$@\"\n", exe)
	if err := os.WriteFile(filepath.Join(dir, "contend"), []byte(stub), 0o755); err != nil {
		t.Fatal(err)
	}
	path := "PATH=" + dir + string(os.PathListSeparator) + os.Getenv("PATH")
	for i := range n {
		env := []string{path, "SCENARIO=", "JOB_COMPLETION_INDEX=", "SLURM_ARRAY_TASK_ID=" + strconv.Itoa(i), "SLURM_ARRAY_TASK_MIN=0",
			"SLURM_ARRAY_TASK_COUNT=" + strconv.Itoa(n), "SLURM_CPUS_PER_TASK=2"}
		slurm(t, dir, bash, "sweep.sbatch", env)
	}
	got := slurm(t, dir, bash, "merge.sbatch", []string{path})
	if want := mustRun(t, "sweep", "ingress", "--quiet"); got != want {
		t.Fatalf("the array printed:\n%s\none sweep prints:\n%s", firstLines(got), firstLines(want))
	}
}

// slurm runs a batch script as a Slurm task would, in dir.
func slurm(t *testing.T, dir, bash, script string, env []string) string {
	t.Helper()
	abs, err := filepath.Abs(clusterDir + script)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bash, abs)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("bash %s %v: %v\n%s", script, env, err, stderr)
	}
	return string(out)
}
