package models_test

import (
	"fmt"
	"math/rand"
	"testing"
	"testing/quick"

	"contend/cpu"
	"contend/models"
	"contend/sim"
)

// rwMonitor is the reference for an rwlock: any number of readers or one
// writer, never both.
type rwMonitor struct {
	readers, maxReaders int
	writer              int
	err                 error
}

func (m *rwMonitor) fail(c *cpu.Core, format string, args ...any) {
	if m.err == nil {
		m.err = fmt.Errorf("at %v cpu %d: %s", c.Now(), c.ID, fmt.Sprintf(format, args...))
	}
}

func (m *rwMonitor) readIn(c *cpu.Core) {
	if m.writer >= 0 {
		m.fail(c, "reads while cpu %d writes", m.writer)
	}
	m.readers++
	m.maxReaders = max(m.maxReaders, m.readers)
}

func (m *rwMonitor) readOut(*cpu.Core) { m.readers-- }

func (m *rwMonitor) writeIn(c *cpu.Core) {
	if m.writer >= 0 || m.readers > 0 {
		m.fail(c, "writes while cpu %d writes and %d read", m.writer, m.readers)
	}
	m.writer = c.ID
}

func (m *rwMonitor) writeOut(*cpu.Core) { m.writer = -1 }

// CPU 0 writes, after 2 µs of other work each time, and the others read (a
// routing table with one updater). Readers share the lock and the writer
// excludes them, over random seeds, core counts, lengths and jitter. Every
// CPU progresses with jitter. Without it the writer's rhythm can shut the
// readers at the back of the reload queue out for good (a reader that finds
// the writer waiting backs off), so then only the writer and the readers as a
// whole must progress. A writer that is always waiting starves readers even
// with jitter: that is writer preference, so this test keeps its writer rare.
func TestRWLockProperties(t *testing.T) {
	check := func(tc lockCase) bool { // tc.Lock is not used
		w := newWorld(t, testProfile(tc.Jitter), tc.Seed, models.DefaultKernel())
		l, err := w.NewRWLock("tbl", "_raw_read_lock", "_raw_write_lock")
		if err != nil {
			t.Fatal(err)
		}
		mon := &rwMonitor{writer: -1}
		p := &cpu.Program{Name: "fib", Steps: []cpu.Step{
			compute(w, "rx", tc.Outside),
			onlyOn{func(id int) bool { return id != 0 }, 5},
			&models.ReadLockStep{L: l}, probe(mon.readIn), compute(w, "lookup", tc.Inside), probe(mon.readOut), &models.ReadUnlockStep{L: l},
			onlyOn{func(id int) bool { return id == 0 }, 6},
			compute(w, "rtnl", 2*sim.Microsecond),
			&models.WriteLockStep{L: l}, probe(mon.writeIn), compute(w, "update", tc.Inside), probe(mon.writeOut), &models.WriteUnlockStep{L: l},
		}}
		res := flood(t, w, p, tc.Cores, 20*sim.Microsecond, 300*sim.Microsecond)
		if mon.err != nil {
			t.Errorf("%+v: %v", tc, mon.err)
			return false
		}
		var readPackets uint64
		for _, c := range res.Cores {
			if c.CPU > 0 {
				readPackets += c.Packets
			}
			if c.Packets == 0 && (c.CPU == 0 || tc.Jitter == cpu.ExponentialJitter) {
				t.Errorf("%+v: cpu %d completed no packet: no progress", tc, c.CPU)
				return false
			}
		}
		if tc.Cores > 1 && readPackets == 0 {
			t.Errorf("%+v: no reader completed a packet", tc)
			return false
		}
		return true
	}
	if err := quick.Check(check, &quick.Config{MaxCount: 200, Rand: rand.New(rand.NewSource(2))}); err != nil {
		t.Error(err)
	}
}

// Readers share: four readers of 1 µs each, with no writer, are all inside at
// once and run near four times one reader's rate. One reader alone hits its
// own line: 100 + 7 + (1000 − 0.6·7) + 7 = 1109.8 ns a packet. With four,
// read_lock and read_unlock each move the line (40 ns more each), 1189.8 ns,
// so at most 4·1109.8/1189.8 = 3.73x, a little less for queueing at the line.
func TestRWLockReadersShare(t *testing.T) {
	run := func(n int) (*models.Result, *rwMonitor) {
		w := newWorld(t, testProfile(cpu.NoJitter), 1, models.DefaultKernel())
		l, err := w.NewRWLock("tbl", "_raw_read_lock", "_raw_write_lock")
		if err != nil {
			t.Fatal(err)
		}
		mon := &rwMonitor{writer: -1}
		p := &cpu.Program{Name: "fib", Steps: []cpu.Step{
			compute(w, "rx", 100*sim.Nanosecond),
			&models.ReadLockStep{L: l}, probe(mon.readIn), compute(w, "lookup", sim.Microsecond), probe(mon.readOut), &models.ReadUnlockStep{L: l},
		}}
		return flood(t, w, p, n, 20*sim.Microsecond, 300*sim.Microsecond), mon
	}
	one, _ := run(1)
	four, mon := run(4)
	if mon.err != nil || mon.maxReaders != 4 {
		t.Errorf("at most %d readers inside at once (%v); want all 4", mon.maxReaders, mon.err)
	}
	if ratio := four.PPS / one.PPS; ratio < 3.4 || ratio > 3.74 {
		t.Errorf("4 readers run %.2fx one reader; want 3.4x to 3.73x", ratio)
	}
}
