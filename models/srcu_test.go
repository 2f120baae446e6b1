package models_test

import (
	"testing"

	"contend/cpu"
	"contend/models"
	"contend/sim"
)

// gpMonitor is the naive reference for a grace period: from probes inside
// each read section and around each synchronize_srcu, every section that
// began before a synchronize_srcu was called has ended before it returns.
type gpMonitor struct {
	open     map[int]sim.Time // each CPU's section in progress, from its start
	sections [][2]sim.Time
	calls    map[int]sim.Time
	gps      int
	err      string
}

func (m *gpMonitor) in(c *cpu.Core) { m.open[c.ID] = c.Now() }
func (m *gpMonitor) out(c *cpu.Core) {
	m.sections = append(m.sections, [2]sim.Time{m.open[c.ID], c.Now()})
	delete(m.open, c.ID)
}
func (m *gpMonitor) call(c *cpu.Core) { m.calls[c.ID] = c.Now() }

func (m *gpMonitor) returned(c *cpu.Core) {
	called, now := m.calls[c.ID], c.Now()
	m.gps++
	for _, s := range m.sections {
		if s[0] < called && s[1] > now && m.err == "" {
			m.err = "a section that began before synchronize_srcu ended after it returned"
		}
	}
	for _, start := range m.open {
		if start < called && m.err == "" {
			m.err = "synchronize_srcu returned while a section that began before it is still open"
		}
	}
}

// Readers on every CPU but one, sleeping in their sections, and CPU 0
// calling synchronize_srcu in a loop: every grace period waits for every
// reader that was inside when it was asked for.
func TestSRCUWaitsForReaders(t *testing.T) {
	w := newWorld(t, testProfile(cpu.UniformJitter), 2, models.DefaultKernel())
	s := w.NewSRCU("srcu", newLine(t, w, "srcu_struct", false), newLine(t, w, "srcu_data", true))
	mon := &gpMonitor{open: map[int]sim.Time{}, calls: map[int]sim.Time{}}
	label := w.M.Label("srcu")
	steps := []cpu.Step{
		onlyOn{on: func(id int) bool { return id == 0 }, n: 3},
		probe(mon.call), &models.SynchronizeSRCU{S: s, Label: w.M.Label("synchronize_srcu")}, probe(mon.returned),
		onlyOn{on: func(id int) bool { return id != 0 }, n: 6},
		&models.SRCUReadLock{S: s, Label: label}, probe(mon.in),
		&models.SleepStep{W: w, D: 3 * sim.Millisecond, Label: w.M.Label("msleep")},
		compute(w, "read", 2*sim.Microsecond),
		probe(mon.out), &models.SRCUReadUnlock{S: s, Label: label},
		compute(w, "rx", 500*sim.Microsecond),
	}
	flood(t, w, &cpu.Program{Name: "srcu", Steps: steps}, 4, 0, 100*sim.Millisecond)
	if mon.err != "" {
		t.Fatal(mon.err)
	}
	if mon.gps < 5 || len(mon.sections) < 10 {
		t.Fatalf("%d grace periods, %d sections: too few to judge", mon.gps, len(mon.sections))
	}
}

// With no reader, a grace period is the work item's wake-up and the
// caller's: two wake-ups.
func TestSRCUIdleGracePeriod(t *testing.T) {
	w := newWorld(t, testProfile(cpu.NoJitter), 1, models.DefaultKernel())
	s := w.NewSRCU("srcu", newLine(t, w, "srcu_struct", false), newLine(t, w, "srcu_data", true))
	res := flood(t, w, &cpu.Program{Name: "sync", Steps: []cpu.Step{&models.SynchronizeSRCU{S: s, Label: w.M.Label("synchronize_srcu")}}}, 1, 0, 10*sim.Millisecond)
	p := testProfile(cpu.NoJitter)
	if got, want := 1e9/res.PPS, float64(2*p.Wakeup)/float64(sim.Nanosecond); !within(got, want, 1e-3) {
		t.Errorf("an idle synchronize_srcu takes %.0f ns, want two wake-ups, %.0f", got, want)
	}
}

// A reader in its section when the grace period is asked for holds it
// until the first check after it leaves: checks come a jiffy apart.
func TestSRCUChecksEveryJiffy(t *testing.T) {
	w := newWorld(t, testProfile(cpu.NoJitter), 1, models.DefaultKernel())
	s := w.NewSRCU("srcu", newLine(t, w, "srcu_struct", false), newLine(t, w, "srcu_data", true))
	var returned sim.Time
	const read = 5*sim.Millisecond + 300*sim.Microsecond
	steps := []cpu.Step{
		onlyOn{on: func(id int) bool { return id == 0 }, n: 4},
		compute(w, "wait", 100*sim.Microsecond), &models.SynchronizeSRCU{S: s, Label: w.M.Label("synchronize_srcu")},
		probe(func(c *cpu.Core) {
			if returned == 0 {
				returned = c.Now()
			}
		}), compute(w, "idle", sim.Second),
		onlyOn{on: func(id int) bool { return id != 0 }, n: 4},
		&models.SRCUReadLock{S: s, Label: w.M.Label("srcu")}, &models.SleepStep{W: w, D: read, Label: w.M.Label("msleep")},
		&models.SRCUReadUnlock{S: s, Label: w.M.Label("srcu")}, compute(w, "idle", sim.Second),
	}
	flood(t, w, &cpu.Program{Name: "srcu", Steps: steps}, 2, 0, 20*sim.Millisecond)
	p := testProfile(cpu.NoJitter)
	// The work item checks at 100us + wakeup, then every jiffy: the first
	// check after the reader leaves ends the grace period.
	first := 100*sim.Microsecond + p.Wakeup
	end := first
	for end < read {
		end += w.Jiffy
	}
	if want := end + p.Wakeup; returned < want-sim.Microsecond || returned > want+sim.Microsecond {
		t.Errorf("synchronize_srcu returned at %v; the reader left at about %v, the checks come every %v from %v: want %v", returned, read, w.Jiffy, first, want)
	}
}

// Tasks Trace readers nest, and an unlock without a lock is a fault.
func TestTraceReadLockPairs(t *testing.T) {
	w := newWorld(t, testProfile(cpu.NoJitter), 1, models.DefaultKernel())
	line := newLine(t, w, "task", true)
	label := w.M.Label("rcu_read_lock_trace")
	flood(t, w, &cpu.Program{Name: "ok", Steps: []cpu.Step{
		&models.TraceReadLock{W: w, Line: line, Label: label}, &models.TraceReadLock{W: w, Line: line, Label: label},
		compute(w, "bpf", 50*sim.Nanosecond),
		&models.TraceReadLock{W: w, Line: line, Unlock: true, Label: label}, &models.TraceReadLock{W: w, Line: line, Unlock: true, Label: label},
	}}, 2, 0, 2*sim.Microsecond)
	w = newWorld(t, testProfile(cpu.NoJitter), 1, models.DefaultKernel())
	line = newLine(t, w, "task", true)
	_, err := w.Run(models.RunSpec{Flood: &models.Flood{CPUs: firstN(1), Program: &cpu.Program{Name: "bad", Steps: []cpu.Step{
		&models.TraceReadLock{W: w, Line: line, Unlock: true, Label: label},
	}}}, Duration: sim.Microsecond})
	if err == nil {
		t.Error("rcu_read_unlock_trace without a lock ran")
	}
}
