package main

import (
	"bytes"
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"contend/hostbench"
	"contend/scenarios"
	"contend/sweep"
)

// calibrate, end to end, on a machine that is contend's model on the
// stand-in profile of host-microbench: the check table has a row for every
// loop and shows no error whatever the model is (the machine is the model),
// and the profile written with -o loads with --profile.
func TestCalibrateSimulatedMachine(t *testing.T) {
	s, err := scenarios.LoadBuiltin(hostbench.Scenario)
	if err != nil {
		t.Fatal(err)
	}
	defer func(old func() (hostbench.Machine, error)) { newMachine = old }(newMachine)
	newMachine = func() (hostbench.Machine, error) { return hostbench.NewSimulated(s.Profiles[hostbench.ProfileName]) }
	out := filepath.Join(t.TempDir(), "host.toml")
	var stdout, stderr bytes.Buffer
	if code := Main([]string{"calibrate", "--quick", "--check", "--format", "csv", "-o", out}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	rows, err := csv.NewReader(&stdout).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) < 18 || strings.Join(rows[0], ",") != "scenario,variant,axis,x,metric,unit,measured,predicted,error_pct,role" {
		t.Fatalf("check table %v", rows)
	}
	for _, r := range rows[1:] {
		if e, err := strconv.ParseFloat(r[8], 64); err != nil || math.Abs(e) > 2 {
			t.Errorf("%v: error %s%% on a machine that is the model", r, r[8])
		}
		// The ping-pong and the 2-thread adds are the primitives the
		// transfer, the owner's window and the work that runs ahead of
		// a waiting atomic are fitted to.
		if contended := r[3] != "1" && r[1] != "pingpong" && r[1] != "add" && r[1] != "add-work10"; contended && r[9] != "validate" {
			t.Errorf("%v: a contended loop is %s, want validate", r, r[9])
		}
	}
	prof, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# cpu: ", "# kernel: ", "# date: ", "# tool: ", "\natomic = \"", "IQR", "samples"} {
		if !strings.Contains(string(prof), want) {
			t.Errorf("the profile lacks %q:\n%s", want, prof)
		}
	}
	stdout.Reset()
	if code := Main([]string{"run", hostbench.Scenario, "--profile", out, "--format", "csv"}, &stdout, &stderr); code != 0 {
		t.Fatalf("run --profile: exit %d: %s", code, stderr.String())
	}
	// A latency's spread is its figures' IQR/1.349 (hostbench's
	// TestSpreadFromIQR); the simulated machine's loops repeat exactly, so
	// --uncertainty on its profile finds nothing to sample.
	h, err := (&options{profile: out}).loader().Load(hostbench.Scenario)
	if err != nil {
		t.Fatal(err)
	}
	if unc := h.Uncertain(sweep.DefaultSeries(h)[0]); len(unc) != 0 || strings.Contains(string(prof), "±") {
		t.Errorf("spreads %+v from loops whose IQR is 0", unc)
	}
}

// A machine measured in many runs is named by its sets of runs, in order of
// the archive, not file by file.
func TestArchivedRunsSummary(t *testing.T) {
	for _, c := range []struct {
		files []string
		want  string
	}{
		{[]string{"a-2026-12-02-run1.json", "a-2026-12-02-run10.json", "a-2026-12-02-run11.json", "a-2026-12-02-run2.json", "a-2026-12-02-run3.json", "a-2026-12-02-run5.json"},
			"a-2026-12-02 runs 1-3, 5, 10-11 (6 files in hostbench/testdata/hosts/)"},
		{[]string{"b-2026-12-01-run4.json", "a-2026-12-02-run1.json", "odd.json", "c-run0.json", "x"},
			"b-2026-12-01 run 4; a-2026-12-02 run 1; odd.json; c-run0.json; x (5 files in hostbench/testdata/hosts/)"},
	} {
		if got := archivedRuns(c.files); got != c.want {
			t.Errorf("archivedRuns(%q) = %q, want %q", c.files, got, c.want)
		}
	}
}
