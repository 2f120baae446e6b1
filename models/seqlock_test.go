package models_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"contend/cacheline"
	"contend/cpu"
	"contend/models"
	"contend/sim"
)

// seqMonitor is the naive reference for a seqcount: from probes placed
// around the writers' stores and the readers' loads, a read section that
// returns must not have read while a writer was storing (a torn value).
type seqMonitor struct {
	writes         [][2]sim.Time // writers' store windows; an open one ends at +inf
	attempt        map[int][2]sim.Time
	returned, torn int
	err            error
}

func (m *seqMonitor) writeStart(c *cpu.Core) {
	m.writes = append(m.writes, [2]sim.Time{c.Now(), math.MaxInt64})
}

func (m *seqMonitor) writeEnd(c *cpu.Core) { m.writes[len(m.writes)-1][1] = c.Now() }

func (m *seqMonitor) readStart(c *cpu.Core) { m.attempt[c.ID] = [2]sim.Time{c.Now(), 0} }

func (m *seqMonitor) readEnd(c *cpu.Core) {
	a := m.attempt[c.ID]
	m.attempt[c.ID] = [2]sim.Time{a[0], c.Now()}
}

func (m *seqMonitor) readReturned(c *cpu.Core) {
	m.returned++
	a := m.attempt[c.ID]
	for _, wr := range m.writes {
		if a[0] < wr[1] && wr[0] < a[1] {
			m.torn++
			if m.err == nil {
				m.err = fmt.Errorf("cpu %d returned what it read over [%v, %v], while a writer stored over [%v, %v]", c.ID, a[0], a[1], wr[0], wr[1])
			}
		}
	}
}

// seqPrograms is a seqlock's writer (CPU 0, every tenth packet of its own)
// and readers (the other CPUs), with the monitor's probes; data is the
// protected line, seq the sequence's.
func seqPrograms(w *models.World, s *models.Seqcount, lock *models.Spinlock, data *cacheline.Line, mon *seqMonitor, readWork sim.Time) *cpu.Program {
	label := w.M.Label("seq")
	body := []cpu.Step{
		probe(mon.readStart), access(w, "data", data, cacheline.Load), compute(w, "read", readWork), probe(mon.readEnd),
	}
	read := append([]cpu.Step{&models.SeqReadBegin{S: s, Label: label}}, body...)
	read = append(read, &models.SeqReadRetry{S: s, Back: len(body) + 1, Label: label}, probe(mon.readReturned))
	write := []cpu.Step{
		&models.LockStep{L: lock}, &models.SeqWriteBegin{S: s, Label: label},
		probe(mon.writeStart), access(w, "data", data, cacheline.Store), compute(w, "write", 150*sim.Nanosecond), probe(mon.writeEnd),
		&models.SeqWriteEnd{S: s, Label: label}, &models.UnlockStep{L: lock}, compute(w, "idle", 300*sim.Nanosecond),
	}
	steps := []cpu.Step{onlyOn{on: func(id int) bool { return id == 0 }, n: len(write)}}
	steps = append(steps, write...)
	steps = append(steps, onlyOn{on: func(id int) bool { return id != 0 }, n: len(read) + 1})
	steps = append(steps, read...)
	steps = append(steps, compute(w, "rx", 20*sim.Nanosecond))
	return &cpu.Program{Name: "seq", Steps: steps}
}

// No reader returns a torn value, over seeds, CPU counts, jitter and read
// sections short and long against the writer's; readers do retry, and do
// return.
func TestSeqcountNeverTorn(t *testing.T) {
	for _, tc := range []struct {
		cpus     int
		jitter   cpu.Jitter
		readWork sim.Time
	}{{2, cpu.NoJitter, 10 * sim.Nanosecond}, {4, cpu.UniformJitter, 50 * sim.Nanosecond}, {8, cpu.ExponentialJitter, 200 * sim.Nanosecond}, {16, cpu.UniformJitter, 30 * sim.Nanosecond}} {
		t.Run(fmt.Sprintf("%dcpus", tc.cpus), func(t *testing.T) {
			w := newWorld(t, testProfile(tc.jitter), uint64(tc.cpus), models.DefaultKernel())
			seq := newLine(t, w, "seq", false)
			lock := w.NewSpinlockOn(seq, "seqlock", models.Qspinlock, "_raw_spin_lock", "_raw_spin_unlock")
			s := w.NewSeqcount("seq", seq)
			mon := &seqMonitor{attempt: map[int][2]sim.Time{}}
			flood(t, w, seqPrograms(w, s, lock, newLine(t, w, "data", false), mon, tc.readWork), tc.cpus, 0, 30*sim.Microsecond)
			if mon.err != nil {
				t.Fatalf("%d of %d reads torn: %v", mon.torn, mon.returned, mon.err)
			}
			if mon.returned == 0 || s.Stats.Retries == 0 || s.Stats.Writes == 0 {
				t.Fatalf("%d reads returned, %+v: the monitor saw too little to judge", mon.returned, s.Stats)
			}
		})
	}
}

// The monitor catches a reader that never retries.
func TestSeqMonitorCatchesTornRead(t *testing.T) {
	w := newWorld(t, testProfile(cpu.UniformJitter), 1, models.DefaultKernel())
	data := newLine(t, w, "data", false)
	mon := &seqMonitor{attempt: map[int][2]sim.Time{}}
	writer := []cpu.Step{probe(mon.writeStart), access(w, "data", data, cacheline.Store), compute(w, "write", 100*sim.Nanosecond), probe(mon.writeEnd)}
	reader := []cpu.Step{probe(mon.readStart), access(w, "data", data, cacheline.Load), compute(w, "read", 100*sim.Nanosecond), probe(mon.readEnd), probe(mon.readReturned)}
	steps := append([]cpu.Step{onlyOn{on: func(id int) bool { return id == 0 }, n: len(writer)}}, writer...)
	steps = append(steps, onlyOn{on: func(id int) bool { return id != 0 }, n: len(reader)})
	flood(t, w, &cpu.Program{Name: "racy", Steps: append(steps, reader...)}, 2, 0, 5*sim.Microsecond)
	if mon.torn == 0 {
		t.Fatal("unguarded readers beside a writer were never torn, by the monitor")
	}
}

// Readers alone never move the sequence's line: after the first read each
// reader's copy serves every read section, at a hit's cost.
func TestSeqcountReadersShareTheLine(t *testing.T) {
	w := newWorld(t, testProfile(cpu.NoJitter), 1, models.DefaultKernel())
	seq := newLine(t, w, "seq", false)
	s := w.NewSeqcount("seq", seq)
	label := w.M.Label("read_seqcount_begin")
	res := flood(t, w, &cpu.Program{Name: "read", Steps: []cpu.Step{
		&models.SeqReadBegin{S: s, Label: label}, compute(w, "read", 20*sim.Nanosecond),
		&models.SeqReadRetry{S: s, Back: 2, Label: label},
	}}, 8, sim.Microsecond, 20*sim.Microsecond)
	for _, l := range res.Lines {
		if l.Name == "seq" && l.Transfers != 0 {
			t.Errorf("readers alone moved the sequence's line %d times", l.Transfers)
		}
	}
	if s.Stats.Retries != 0 || s.Stats.Reads == 0 {
		t.Errorf("readers alone: %+v; every section returns at once", s.Stats)
	}
	p := testProfile(cpu.NoJitter)
	if want := 20*sim.Nanosecond + 2*p.L1Hit; !within(1e9/res.PPSPerCore, float64(want)/float64(sim.Nanosecond), 1e-3) {
		t.Errorf("a read section costs %.3f ns, want its work and two hits, %v", 1e9/res.PPSPerCore, want)
	}
}

// Unserialised writers are a fault in the program, reported, not a sequence
// that reads even while both write.
func TestSeqcountWritersMustBeSerialised(t *testing.T) {
	w := newWorld(t, testProfile(cpu.NoJitter), 1, models.DefaultKernel())
	s := w.NewSeqcount("seq", newLine(t, w, "seq", false))
	label := w.M.Label("write_seqcount_begin")
	_, err := w.Run(models.RunSpec{Flood: &models.Flood{CPUs: firstN(2), Program: &cpu.Program{Name: "write", Steps: []cpu.Step{
		&models.SeqWriteBegin{S: s, Label: label}, compute(w, "write", 100*sim.Nanosecond), &models.SeqWriteEnd{S: s, Label: label},
	}}}, Duration: 5 * sim.Microsecond})
	if err == nil || !strings.Contains(err.Error(), "must be serialised") {
		t.Fatalf("two CPUs writing one seqcount unlocked: %v", err)
	}
}
