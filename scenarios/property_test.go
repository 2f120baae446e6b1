package scenarios_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/fstest"

	"contend/scenarios"
)

// costScenario is a random closed-loop scenario whose compute costs can be
// scaled: the drawn values stay fixed, render multiplies them.
type costScenario struct {
	ghz      float64
	cores    int
	work     cost // a param that compute steps name
	steps    []string
	computes []cost // literal costs, one per "{c}" in steps
}

// cost is a duration as written: a number and its unit.
type cost struct {
	v    float64
	unit string
}

func (c cost) times(k float64) string { return fmt.Sprintf("%g%s", c.v*k, c.unit) }

// drawCost draws a cost: most of them 1 to 1000 ns or cycles, enough to
// finish packets in the run; the rest log-uniform from 10⁵ s to 10⁷ s at
// the clock ghz, in any unit, around the point (9.2·10⁶ s) where sim.Time
// overflows and a cost used to become no work at all.
func drawCost(r *rand.Rand, ghz float64) cost {
	if r.IntN(10) < 6 {
		return cost{math.Round(math.Pow(10, r.Float64()*3)), []string{"ns", "cyc"}[r.IntN(2)]}
	}
	ps := math.Pow(10, 17+2*r.Float64())
	units := []struct {
		name string
		ps   float64
	}{{"ps", 1}, {"ns", 1e3}, {"us", 1e6}, {"ms", 1e9}, {"s", 1e12}, {"cyc", 1e3 / ghz}, {"cyc", 1e3 / ghz}}
	u := units[r.IntN(len(units))]
	return cost{ps / u.ps, u.name}
}

func drawScenario(r *rand.Rand) costScenario {
	cs := costScenario{ghz: []float64{0.01, 0.05, 0.5, 2}[r.IntN(4)], cores: 1 + r.IntN(4)}
	cs.work = drawCost(r, cs.ghz)
	menu := []string{`{ compute = "{c}" }`, `{ compute = "work" }`, `{ rmw = "pcpu" }`, `{ store = "pcpu" }`,
		`{ load = "shared" }`, `{ rcu_read_lock = true }, { compute = "{c}" }, { rcu_read_unlock = true }`,
		`{ block = "rx" }`, `{ once_per_jiffy = "percpu", steps = [ { compute = "{c}" } ] }`}
	for range 1 + r.IntN(6) {
		st := menu[r.IntN(len(menu))]
		for range strings.Count(st, "{c}") {
			cs.computes = append(cs.computes, drawCost(r, cs.ghz))
		}
		cs.steps = append(cs.steps, st)
	}
	return cs
}

// render writes the scenario with every compute cost multiplied by k.
func (cs costScenario) render(k float64) string {
	steps := strings.Join(cs.steps, ", ")
	for _, c := range cs.computes {
		steps = strings.Replace(steps, "{c}", c.times(k), 1)
	}
	return fmt.Sprintf(`name = "prop"

[profile.box]
ghz = %v
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
work = %q

[[line]]
name = "shared"

[[line]]
name = "pcpu"
percpu = true

[block]
rx = [ { compute = "work" }, { rmw = "pcpu" } ]

[[variant]]
name = "v"
steps = [ %s ]

[workload]
kind = "flood"
cores = %d

[run]
warmup = "1us"
duration = "20us"
`, cs.ghz, cs.work.times(k), steps, cs.cores)
}

// For any accepted closed-loop scenario, doubling every compute cost never
// raises the throughput: a cost that overflowed the clock used to become no
// work at all, and the doubled scenario ran faster. A doubled cost beyond the
// bounds must be refused, never simulated as something else.
func TestDoublingComputeNeverRaisesThroughput(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	tried, compared := 0, 0
	for tried < 300 {
		cs := drawScenario(r)
		once, err := scenarios.Parse(fstest.MapFS{}, "p.toml", []byte(cs.render(1)))
		if err != nil {
			continue // out of bounds as drawn: refused, which is the other answer
		}
		tried++
		base, baseErr := once.Simulate(scenarios.Point{Variant: "v", Seed: 1})
		twice, err := scenarios.Parse(fstest.MapFS{}, "p.toml", []byte(cs.render(2)))
		if err != nil {
			if !strings.Contains(err.Error(), "at most") {
				t.Errorf("doubled scenario refused for another reason than a bound: %v", err)
			}
			continue
		}
		doubled, err := twice.Simulate(scenarios.Point{Variant: "v", Seed: 1})
		if (err != nil) != (baseErr != nil) {
			// A model error (a loop of steps that take no time) is an
			// answer; doubling costs must not make or mend one.
			t.Errorf("simulating: %v; doubled: %v\n%s", baseErr, err, cs.render(1))
		}
		if err != nil || baseErr != nil {
			continue
		}
		compared++
		if doubled.PPS > base.PPS {
			t.Errorf("doubling the compute costs raised throughput from %v to %v pps:\n%s", base.PPS, doubled.PPS, cs.render(1))
		}
	}
	t.Logf("%d accepted scenarios, %d compared with their doubles", tried, compared)
	if compared < 200 {
		t.Errorf("only %d of %d scenarios compared; the generator draws too many out of bounds", compared, tried)
	}
}
