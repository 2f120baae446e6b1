package models_test

import (
	"fmt"
	"testing"

	"contend/cpu"
	"contend/models"
	"contend/sim"
)

// Readers with no writer in, one writer at a time, over CPU counts, writer
// shares and jitter; readers do share the lock, writers do spin and sleep.
func TestRWSemExclusion(t *testing.T) {
	for _, tc := range []struct {
		cpus, writeEvery int
		jitter           cpu.Jitter
	}{{2, 2, cpu.NoJitter}, {4, 4, cpu.UniformJitter}, {8, 2, cpu.ExponentialJitter}, {16, 8, cpu.UniformJitter}} {
		t.Run(fmt.Sprintf("%dcpus", tc.cpus), func(t *testing.T) {
			w := newWorld(t, testProfile(tc.jitter), uint64(tc.cpus), models.DefaultKernel())
			s := w.NewRWSemOn(newLine(t, w, "mmap_lock", false), "mmap_lock", "down_read", "down_write")
			mon := &rwMonitor{writer: -1}
			writer := func(id int) bool { return id%tc.writeEvery == 0 }
			p := &cpu.Program{Name: "mm", Steps: []cpu.Step{
				compute(w, "work", 100*sim.Nanosecond),
				onlyOn{on: writer, n: 5},
				&models.DownWriteStep{S: s}, probe(mon.writeIn), compute(w, "write", 200*sim.Nanosecond), probe(mon.writeOut), &models.UpWriteStep{S: s},
				onlyOn{on: func(id int) bool { return !writer(id) }, n: 5},
				&models.DownReadStep{S: s}, probe(mon.readIn), compute(w, "read", 300*sim.Nanosecond), probe(mon.readOut), &models.UpReadStep{S: s},
			}}
			flood(t, w, p, tc.cpus, 0, 200*sim.Microsecond)
			if mon.err != nil {
				t.Fatal(mon.err)
			}
			if s.Stats.Acquisitions == 0 || (tc.cpus > 2 && mon.maxReaders < 2) {
				t.Fatalf("%+v, at most %d readers at once: the monitor saw too little", s.Stats, mon.maxReaders)
			}
			if s.Stats.Slept == 0 {
				t.Errorf("%+v: with writers and readers mixed some must sleep", s.Stats)
			}
		})
	}
}

// Writers alone on two CPUs: a writer that finds the other holding spins
// on the owner and takes the lock when it goes, without sleeping, since
// the holder runs; none sleeps. (With less work between sections than a
// spinner takes to see the release and try, the releaser takes the lock
// back every time: optimistic spinning is not fair.)
func TestRWSemWritersSpin(t *testing.T) {
	w := newWorld(t, testProfile(cpu.UniformJitter), 1, models.DefaultKernel())
	s := w.NewRWSemOn(newLine(t, w, "sem", false), "sem", "down_read", "down_write")
	mon := &rwMonitor{writer: -1}
	flood(t, w, &cpu.Program{Name: "w", Steps: []cpu.Step{
		&models.DownWriteStep{S: s}, probe(mon.writeIn), compute(w, "write", 100*sim.Nanosecond), probe(mon.writeOut), &models.UpWriteStep{S: s},
		compute(w, "work", 300*sim.Nanosecond),
	}}, 2, 0, 50*sim.Microsecond)
	if mon.err != nil {
		t.Fatal(mon.err)
	}
	if s.Stats.Spun == 0 || s.Stats.Slept != 0 {
		t.Errorf("two writers: %+v; the waiter spins on the running owner and never sleeps", s.Stats)
	}
}

// Readers alone never wait, and share the lock.
func TestRWSemReadersShare(t *testing.T) {
	w := newWorld(t, testProfile(cpu.UniformJitter), 1, models.DefaultKernel())
	s := w.NewRWSemOn(newLine(t, w, "sem", false), "sem", "down_read", "down_write")
	mon := &rwMonitor{writer: -1}
	flood(t, w, &cpu.Program{Name: "r", Steps: []cpu.Step{
		&models.DownReadStep{S: s}, probe(mon.readIn), compute(w, "read", 400*sim.Nanosecond), probe(mon.readOut), &models.UpReadStep{S: s},
	}}, 8, 0, 50*sim.Microsecond)
	if s.Stats.Contended != 0 || s.Stats.Slept != 0 || mon.maxReaders < 4 {
		t.Errorf("readers alone: %+v, at most %d inside at once; none waits, several share", s.Stats, mon.maxReaders)
	}
}

// Writers spin through the OSQ: one at a time spins on the rwsem's line,
// the others on their own nodes, so the line moves about as often an
// acquisition at 16 writers as at 4 (without the OSQ every spinner re-read
// it at each change: 16.7 transfers an operation at 16 threads on
// rwsem-wlock, against 2.6 now at 8). The monitor checks exclusion.
func TestRWSemWritersQueueInOSQ(t *testing.T) {
	perAcq := func(cpus int) float64 {
		w := newWorld(t, testProfile(cpu.UniformJitter), 1, models.DefaultKernel())
		line := newLine(t, w, "sem", false)
		s := w.NewRWSemOn(line, "sem", "down_read", "down_write")
		mon := &rwMonitor{writer: -1}
		flood(t, w, &cpu.Program{Name: "w", Steps: []cpu.Step{
			&models.DownWriteStep{S: s}, probe(mon.writeIn), compute(w, "write", 100*sim.Nanosecond), probe(mon.writeOut), &models.UpWriteStep{S: s},
			compute(w, "work", 50*sim.Nanosecond),
		}}, cpus, 0, 100*sim.Microsecond)
		if mon.err != nil {
			t.Fatal(mon.err)
		}
		if s.Stats.Slept != 0 {
			t.Errorf("%d writers: %+v; writers spin on a running owner, none sleeps", cpus, s.Stats)
		}
		return float64(line.Stats.Transfers) / float64(s.Stats.Acquisitions)
	}
	four, sixteen := perAcq(4), perAcq(16)
	if sixteen > 1.5*four {
		t.Errorf("the rwsem's line moves %.2f times an acquisition at 16 writers, %.2f at 4: the spinners do not queue", sixteen, four)
	}
}

// A mutex whose owner runs is spun on, not slept on: with a 100 ns section
// on four CPUs none sleeps, and a hand-over costs transfers, far from the
// profile's 5 µs wake-up that every contended acquisition paid when a
// mutex only slept.
func TestMutexSpinsOnARunningOwner(t *testing.T) {
	w := newWorld(t, testProfile(cpu.UniformJitter), 1, models.DefaultKernel())
	m, err := w.NewMutex("m", "mutex_lock")
	if err != nil {
		t.Fatal(err)
	}
	mon := &rwMonitor{writer: -1}
	res := flood(t, w, &cpu.Program{Name: "m", Steps: []cpu.Step{
		&models.MutexLockStep{M: m}, probe(mon.writeIn), compute(w, "cs", 100*sim.Nanosecond), probe(mon.writeOut), &models.MutexUnlockStep{M: m},
		compute(w, "work", 100*sim.Nanosecond),
	}}, 4, 0, 100*sim.Microsecond)
	if mon.err != nil {
		t.Fatal(mon.err)
	}
	st := m.Stats()
	if st.Slept != 0 || st.Spun == 0 {
		t.Errorf("%+v: a running owner's waiters spin, none sleeps", st)
	}
	if perOp := 1e9 / res.PPS; perOp > 1000 {
		t.Errorf("%.0f ns an acquisition on 4 CPUs; a hand-over is transfers (the section is 100 ns), not a wake-up", perOp)
	}
}
