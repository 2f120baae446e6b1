package scenarios_test

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"contend/cacheline"
	"contend/cpu"
	"contend/models"
	"contend/scenarios"
	"contend/sim"
)

// validation.csv holds published measurements to check predictions against;
// like published.csv, CI reads a copy kept current against the original.
const (
	validationCopy     = "testdata/validation.csv"
	validationOriginal = "../../shared/reference/validation.csv"
)

func TestValidationCopyIsCurrent(t *testing.T) {
	orig, err := os.ReadFile(validationOriginal)
	if err != nil {
		t.Skipf("no shared reference table here (%v); CI checks the copy only", err)
	}
	if cp, err := os.ReadFile(validationCopy); err != nil || !bytes.Equal(orig, cp) {
		t.Fatalf("%s differs from %s (%v); copy it again", validationCopy, validationOriginal, err)
	}
}

// profileOf names the built-in profile of each CPU of validation.csv.
var profileOf = map[string]string{
	"Xeon Platinum 8375C":  "icelake-8375c",
	"Xeon Platinum 8275CL": "cascadelake-8275cl",
	"Xeon Gold 6242":       "cascadelake-6242",
	"AMD EPYC 7R13":        "epyc-7r13",
	"AMD Ryzen 9 5950X":    "ryzen-5950x",
}

// loadProfile includes profiles/NAME.toml into a scenario and returns it.
func loadProfile(t *testing.T, name string) cpu.Profile {
	t.Helper()
	src := fmt.Sprintf(`name = "p"
include = ["profiles/%s.toml"]
[[line]]
name = "ball"
[[variant]]
name = "pingpong"
steps = [ { rmw = "ball" } ]
[workload]
kind = "flood"
cores = 2
[run]
duration = "10us"
`, name)
	s, err := scenarios.Parse(scenarios.Builtin(), "p.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	p := s.Profiles[name].Profile
	p.Jitter = cpu.NoJitter
	return p
}

// pair returns two CPUs at the distance a table row names.
func pair(p cpu.Profile, class string) (int, int, bool) {
	per := p.CoresPerLLC
	if per == 0 {
		per = p.CoresPerSocket
	}
	switch class {
	case "same-socket", "same-ccx":
		return 0, 1, true
	case "smt-sibling":
		return 0, p.Sockets * p.CoresPerSocket, p.ThreadsPerCore > 1
	case "other-ccx":
		return 0, per, per < p.CoresPerSocket
	case "other-socket":
		return 0, p.CoresPerSocket, p.Sockets > 1
	}
	return 0, 0, false
}

// oneLine builds a machine on p, its world, and one shared line.
func oneLine(t *testing.T, p cpu.Profile, name string) (*cpu.Machine, *models.World, *cacheline.Line) {
	t.Helper()
	m, err := cpu.NewMachine(p, 1)
	if err != nil {
		t.Fatal(err)
	}
	w, err := models.NewWorld(m, models.DefaultKernel())
	if err != nil {
		t.Fatal(err)
	}
	line, err := m.NewLine(name, false)
	if err != nil {
		t.Fatal(err)
	}
	return m, w, line
}

// oneWay simulates the CAS ping-pong between cpus a and b and returns the
// time of one pass.
func oneWay(t *testing.T, p cpu.Profile, a, b int) sim.Time {
	t.Helper()
	m, w, line := oneLine(t, p, "ball")
	ball := w.NewPingPong(line, m.Label("cmpxchg"), false)
	prog := &cpu.Program{Name: "pingpong", Steps: []cpu.Step{&models.PingPongStep{P: ball}}}
	const d = 200 * sim.Microsecond
	res, err := w.Run(models.RunSpec{Flood: &models.Flood{CPUs: []int{a, b}, Program: prog}, Warmup: 10 * sim.Microsecond, Duration: d})
	if err != nil {
		t.Fatal(err)
	}
	return sim.Time(float64(d) / float64(res.Packets))
}

// Every CPU of validation.csv has a built-in profile whose simulated CAS
// ping-pong gives the table's one-way latencies back within 3%.
func TestProfilesGiveCoreToCoreTablesBack(t *testing.T) {
	rows := readTable(t, validationCopy)
	checked := 0
	for _, r := range rows[1:] {
		if r[0] != "core-to-core" {
			continue
		}
		machine, _, _ := strings.Cut(r[1], " (")
		name, ok := profileOf[machine]
		if !ok {
			t.Errorf("no built-in profile for %q", r[1])
			continue
		}
		want, err := strconv.ParseFloat(r[6], 64)
		if err != nil || r[7] != "ns" {
			t.Fatalf("row %v: value %q %q is not in ns", r, r[6], r[7])
		}
		p := loadProfile(t, name)
		a, b, ok := pair(p, r[4])
		if !ok {
			t.Errorf("%s: profile has no pair of CPUs at %s", name, r[4])
			continue
		}
		got := oneWay(t, p, a, b).Nanoseconds()
		if d := (got - want) / want; d > 0.03 || d < -0.03 {
			t.Errorf("%s, %s (cpus %d and %d): simulated ping-pong %.2f ns one way, table %.1f ns (%+.1f%%)", name, r[4], a, b, got, want, 100*d)
		}
		t.Logf("%-20s %-13s simulated %7.2f ns, table %6.1f ns", name, r[4], got, want)
		checked++
	}
	if checked < 16 {
		t.Errorf("checked %d core-to-core rows, want all 16", checked)
	}
}
