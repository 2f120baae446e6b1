package scenarios_test

import (
	"math"
	"strings"
	"testing"
	"testing/fstest"

	"contend/scenarios"
	"contend/sim"
)

// Every unit, against values worked out by hand. Cycles are at the profile's
// 2.5 GHz, 0.4 ns a cycle.
func TestDurationUnits(t *testing.T) {
	src := `name = "units"

[profile.box]
ghz = 2.5
sockets = 1
cores_per_socket = 4
l1_hit = "4cyc"          # 4 × 0.4 ns = 1.6 ns
smt_sibling = "1500ps"
same_socket = "40ns"
other_socket = "0.12us"
memory = "0.09µs"
atomic = "2.5cyc"        # 1 ns
wakeup = "0.005ms"
store_drain = "1e1cyc"   # 4 ns

[params]
work = "40cyc"
gap = "1.5ms"
walk = ".5ns"
count = 3
share = 0.25

[[variant]]
name = "v"
steps = [ { compute = "work" } ]

[workload]
kind = "flood"

[run]
warmup = "100cyc"
duration = "0.002s"
limit = "3s"
`
	s, err := scenarios.Parse(fstest.MapFS{}, "units.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	p := s.Profiles["box"]
	for _, c := range []struct {
		name      string
		got, want sim.Time
	}{
		{"l1_hit 4cyc", p.L1Hit, 1600},
		{"smt_sibling 1500ps", p.SMTSibling, 1500},
		{"same_socket 40ns", p.SameSocket, 40_000},
		{"other_socket 0.12us", p.OtherSocket, 120_000},
		{"memory 0.09µs", p.Memory, 90_000},
		{"atomic 2.5cyc", p.Atomic, 1000},
		{"wakeup 0.005ms", p.Wakeup, 5_000_000},
		{"store_drain 1e1cyc", p.StoreDrain, 4000},
		{"param 40cyc", s.Params["work"].Dur.Time(p.GHz), 16_000},
		{"param 40cyc at 2 GHz", s.Params["work"].Dur.Time(2), 20_000},
		{"param 1.5ms", s.Params["gap"].Dur.Time(p.GHz), 1_500_000_000},
		{"param .5ns", s.Params["walk"].Dur.Time(p.GHz), 500},
		{"warmup 100cyc", s.Run.Warmup.Time(p.GHz), 40_000},
		{"duration 0.002s", s.Run.Duration.Time(p.GHz), 2_000_000_000},
		{"limit 3s", s.Run.Limit.Time(p.GHz), 3_000_000_000_000},
	} {
		if c.got != c.want {
			t.Errorf("%s = %d ps; want %d ps", c.name, c.got, c.want)
		}
	}
	if v := s.Params["count"]; v.IsTime || v.Num != 3 {
		t.Errorf("count = %+v; want the number 3", v)
	}
	if v := s.Params["share"]; v.IsTime || v.Num != 0.25 {
		t.Errorf("share = %+v; want the number 0.25", v)
	}
	if !s.Params["work"].IsTime {
		t.Error("work is not a duration")
	}
}

// Malformed and out-of-range literals are refused; odd but valid spellings
// are read as written. A param is a step's duration: at most MaxStepTime
// (10⁴ s) at the profile's clock.
func TestDurationLiterals(t *testing.T) {
	for _, c := range []struct {
		lit  string
		want sim.Time // -1: refused
	}{
		{"25ns", 25_000}, {"+5ns", 5000}, {" 7 ns ", 7000}, {"1e3ns", 1_000_000}, {"0ns", 0}, {"-0ns", 0},
		{"1e4s", 1e16}, {"2e13cyc", 1e16}, {"1.0001e4s", -1}, {"1e6s", -1}, // a param is at most MaxStepTime
		{"25", -1}, {"ns", -1}, {"25 parsecs", -1}, {"-3ns", -1}, {"5nss", -1}, {"NaNns", -1}, {"Infns", -1},
		{"1e400ns", -1}, {"2e6s", -1}, {"1e10ms", -1}, {"1e30cyc", -1}, {"1e15cyc", -1}, {"5 cycles", -1}, {"0x10ns", -1},
	} {
		src := strings.Replace(good, `work = "20ns"`, `work = "`+c.lit+`"`, 1)
		s, err := scenarios.Parse(fstest.MapFS{}, "t.toml", []byte(src))
		switch {
		case c.want < 0 && err == nil:
			t.Errorf("%q accepted as %+v; want an error", c.lit, s.Params["work"])
		case c.want >= 0 && err != nil:
			t.Errorf("%q: %v", c.lit, err)
		case c.want >= 0 && s.Params["work"].Dur.Time(2) != c.want:
			t.Errorf("%q = %d ps; want %d", c.lit, s.Params["work"].Dur.Time(2), c.want)
		}
	}
}

// common.toml is a library two scenarios include: a profile, a param and a
// block. Each scenario runs the block in its own variant; the results are
// the closed-loop rate of the work per packet, 1/t.
const common = `# shared by a.toml and b.toml
[profile.box]
ghz = 2.5
sockets = 1
cores_per_socket = 4
l1_hit = "1ns"
smt_sibling = "15ns"
same_socket = "40ns"
other_socket = "120ns"
memory = "90ns"
atomic = "8ns"
wakeup = "5us"
jitter = "none"

[params]
rx = "250cyc"   # 100 ns at 2.5 GHz

[block]
rx = [ { compute = "rx", label = "netif_receive_skb" } ]
`

func includeFS() fstest.MapFS {
	scenario := func(name, steps, extra string) *fstest.MapFile {
		return &fstest.MapFile{Data: []byte(`name = "` + name + `"
include = ["lib/common.toml"]

[[variant]]
name = "v"
steps = ` + steps + `

[workload]
kind = "flood"

[run]
warmup = "1us"
duration = "100us"
` + extra)}
	}
	return fstest.MapFS{
		"lib/common.toml": {Data: []byte(common)},
		"a.toml":          scenario("a", `[ { block = "rx" } ]`, ""),
		"b.toml": scenario("b", `[ { block = "rx" }, { compute = "100ns" } ]`, `
[profile.slow]
ghz = 1.25
sockets = 1
cores_per_socket = 4
l1_hit = "1ns"
smt_sibling = "15ns"
same_socket = "40ns"
other_socket = "120ns"
memory = "90ns"
atomic = "8ns"
wakeup = "5us"
jitter = "none"

[[series]]
name = "slow"
profile = "slow"
[series.params]
rx = "50ns"
`),
	}
}

func TestIncludeSharesProfileAndBlock(t *testing.T) {
	fsys := includeFS()
	a, err := scenarios.Load(fsys, "a.toml")
	if err != nil {
		t.Fatal(err)
	}
	b, err := scenarios.Load(fsys, "b.toml")
	if err != nil {
		t.Fatal(err)
	}
	if a.Profiles["box"].Profile != b.Profiles["box"].Profile {
		t.Errorf("the shared profile differs:\n a: %+v\n b: %+v", a.Profiles["box"].Profile, b.Profiles["box"].Profile)
	}
	if a.Profiles["box"].SameSocket != 40*sim.Nanosecond {
		t.Errorf("a's shared profile: same_socket %v; want 40ns", a.Profiles["box"].SameSocket)
	}
	if len(a.Blocks["rx"]) != 1 || len(b.Blocks["rx"]) != 1 {
		t.Fatalf("block rx: %d steps in a, %d in b; want 1 each", len(a.Blocks["rx"]), len(b.Blocks["rx"]))
	}
	for _, c := range []struct {
		s      *scenarios.Scenario
		series *scenarios.Series
		pps    float64
	}{
		{a, nil, 1e9 / 100},                                // rx: 250 cycles at 2.5 GHz
		{b, nil, 1e9 / 200},                                // rx, then 100 ns
		{b, b.Series[0], 1e9 / 150},                        // the series sets rx to 50 ns
		{b, &scenarios.Series{Profile: "slow"}, 1e9 / 300}, // 250 cycles at 1.25 GHz
	} {
		r, err := c.s.Simulate(scenarios.Point{Series: c.series, Variant: "v", Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		// 100 µs holds at most one packet more or less than the rate says.
		if tol := 1 / 100e-6; math.Abs(r.PPSPerCore-c.pps) > tol {
			t.Errorf("%s: %.0f pps per core; want %.0f ± %.0f", c.s.Name, r.PPSPerCore, c.pps, tol)
		}
	}
}
