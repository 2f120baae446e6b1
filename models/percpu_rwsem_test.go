package models_test

import (
	"testing"

	"contend/cpu"
	"contend/models"
	"contend/sim"
)

// percpuWriteSteps is percpu_down_write as the scenarios compile it:
// rcu_sync_enter, the synchronize_rcu it may skip, block and the drain.
func percpuWriteSteps(w *models.World, s *models.PercpuRWSem) []cpu.Step {
	return []cpu.Step{&models.PercpuRCUSyncEnter{S: s}, &models.SynchronizeRCU{W: w, Label: w.M.Label("rcu_sync_enter")}, &models.PercpuDownWrite{S: s}}
}

// Readers with no writer in and one writer at a time, a writer every 30 ms
// on CPU 0 among readers on the others; readers take the fast path before
// the first writer and again a grace period after each, the slow path in
// between.
func TestPercpuRWSemExclusion(t *testing.T) {
	w := newWorld(t, testProfile(cpu.UniformJitter), 9, models.DefaultKernel())
	s := w.NewPercpuRWSem("cgroup_threadgroup_rwsem", newLine(t, w, "rwsem", false), newLine(t, w, "read_count", true), "percpu_rwsem")
	mon := &rwMonitor{writer: -1}
	var fastAfterWrite uint64
	writes := 0
	write := append([]cpu.Step{compute(w, "idle", 30*sim.Millisecond)}, percpuWriteSteps(w, s)...)
	write = append(write, probe(mon.writeIn), compute(w, "write", 20*sim.Microsecond), probe(mon.writeOut), &models.PercpuUpWrite{S: s},
		probe(func(*cpu.Core) { writes++; fastAfterWrite = s.Stats.FastReads }))
	read := []cpu.Step{&models.PercpuDownRead{S: s}, probe(mon.readIn), compute(w, "read", 3*sim.Microsecond), probe(mon.readOut), &models.PercpuUpRead{S: s},
		compute(w, "rx", sim.Microsecond)}
	steps := []cpu.Step{&models.RCUSoftirq{W: w}, onlyOn{on: func(id int) bool { return id == 0 }, n: len(write)}}
	steps = append(steps, write...)
	steps = append(steps, onlyOn{on: func(id int) bool { return id != 0 }, n: len(read)})
	steps = append(steps, read...)
	flood(t, w, &cpu.Program{Name: "pcpu", Steps: steps}, 4, 0, 130*sim.Millisecond)
	if mon.err != nil {
		t.Fatal(mon.err)
	}
	st := s.Stats
	if writes < 3 || st.SlowReads == 0 || st.FastReads == 0 || mon.maxReaders < 2 {
		t.Fatalf("%d writes, %+v, at most %d readers at once: the monitor saw too little", writes, st, mon.maxReaders)
	}
	if st.FastReads <= fastAfterWrite {
		t.Errorf("%+v: no fast read after the last write's grace period", st)
	}
}

// Readers alone never touch the shared line and never wait.
func TestPercpuRWSemReadersFast(t *testing.T) {
	w := newWorld(t, testProfile(cpu.UniformJitter), 1, models.DefaultKernel())
	s := w.NewPercpuRWSem("sem", newLine(t, w, "rwsem", false), newLine(t, w, "read_count", true), "percpu_rwsem")
	res := flood(t, w, &cpu.Program{Name: "r", Steps: []cpu.Step{
		&models.PercpuDownRead{S: s}, compute(w, "read", 50*sim.Nanosecond), &models.PercpuUpRead{S: s},
	}}, 8, 0, 20*sim.Microsecond)
	for _, l := range res.Lines {
		if !l.PerCPU && l.Accesses > 0 {
			t.Errorf("readers alone touched shared line %s %d times", l.Name, l.Accesses)
		}
	}
	if s.Stats.SlowReads != 0 || s.Stats.Slept != 0 {
		t.Errorf("readers alone: %+v", s.Stats)
	}
}
