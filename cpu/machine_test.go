package cpu_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"contend/cacheline"
	"contend/cpu"
	"contend/sim"
)

// snapshot is everything a run reports.
type snapshot struct {
	Now       sim.Time
	Fired     uint64
	Completed []uint64
	Time      [][][cpu.NumStates]sim.Time // by cpu, label, state
	Lines     []cacheline.Stats
}

// jitteredRun runs a packet path with shared, per-cpu and read-mostly lines
// on every CPU of the test profile, with exponential jitter.
func jitteredRun(t *testing.T, seed uint64) snapshot {
	p := testProfile()
	p.Jitter = cpu.ExponentialJitter
	p.Atomic, p.AtomicOverlap = 10*sim.Nanosecond, 0.3
	m := newMachine(t, p, seed)
	route, stats, pcpu := newLine(t, m, "fib", false), newLine(t, m, "dev_stats", false), newLine(t, m, "pcpu_stats", true)
	prog := &cpu.Program{Name: "rx", Steps: []cpu.Step{
		&cpu.ComputeStep{Label: m.Label("__netif_receive_skb_core"), D: 200 * sim.Nanosecond},
		&cpu.AccessStep{Label: m.Label("fib_table_lookup"), Line: route, Op: cacheline.Load},
		&cpu.AccessStep{Label: m.Label("atomic_inc"), Line: stats, Op: cacheline.RMW},
		&cpu.ComputeStep{Label: m.Label("kfree_skb"), D: 50 * sim.Nanosecond},
		&cpu.AccessStep{Label: m.Label("this_cpu_inc"), Line: pcpu, Op: cacheline.Store},
	}}
	startAll(m, prog, firstN(m.NumCPUs()))
	run(t, m, 20*sim.Microsecond, 500*sim.Microsecond)

	s := snapshot{Now: m.Now(), Fired: m.Fired()}
	for _, c := range m.Cores() {
		s.Completed = append(s.Completed, c.Completed)
		var byLabel [][cpu.NumStates]sim.Time
		for l := range m.Labels() {
			var row [cpu.NumStates]sim.Time
			for st := range cpu.NumStates {
				row[st] = c.Time(cpu.Label(l), st)
			}
			byLabel = append(byLabel, row)
		}
		s.Time = append(s.Time, byLabel)
	}
	for _, l := range m.Lines() {
		s.Lines = append(s.Lines, l.Stats)
	}
	return s
}

// Same scenario and seed, same numbers to the picosecond; another seed draws
// other durations.
func TestSameSeedSameRun(t *testing.T) {
	a, b := jitteredRun(t, 42), jitteredRun(t, 42)
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("two runs with seed 42 differ:\n%+v\n%+v", a, b)
	}
	if a.Lines[1].Transfers == 0 || a.Completed[0] == 0 {
		t.Fatalf("the run did nothing worth comparing: %+v", a)
	}
	c := jitteredRun(t, 43)
	if reflect.DeepEqual(a.Completed, c.Completed) || reflect.DeepEqual(a.Lines, c.Lines) || reflect.DeepEqual(a.Time, c.Time) {
		t.Fatalf("seeds 42 and 43 gave the same run")
	}
}

// stayStep re-runs itself at the same instant forever, as a zero-length
// sleep in a loop would.
type stayStep struct{}

func (stayStep) Exec(c *cpu.Core) (cpu.Outcome, sim.Time) { return cpu.Again, c.Now() }

func TestNoProgressInTimeIsAModelError(t *testing.T) {
	m, err := cpu.NewMachine(cpu.Profile{Name: "t", GHz: 1, Sockets: 1, CoresPerSocket: 1, ThreadsPerCore: 1}, 1)
	if err != nil {
		t.Fatal(err)
	}
	m.Cores()[0].Load(&cpu.Program{Name: "spin", Steps: []cpu.Step{stayStep{}}}, cpu.ClosedLoop{})
	m.Cores()[0].Start(0)
	err = m.Run(sim.Control{Until: sim.Millisecond})
	var me *cpu.ModelError
	if !errors.As(err, &me) || !strings.Contains(me.Error(), "no progress in time") {
		t.Fatalf("got %v, want a model error about no progress", err)
	}
}
