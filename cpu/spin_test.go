package cpu_test

import (
	"math"
	"testing"

	"contend/cacheline"
	"contend/cpu"
	"contend/sim"
)

// testTicket is a ticket lock written against cpu alone. Its waiters spin
// either with SpinRereads or as a naive reference: each re-read an event
// of its own, and each read's end another, where the waiter looks at what
// it read.
type testTicket struct {
	m              *cpu.Machine
	line           *cacheline.Line
	label          cpu.Label
	batched        bool
	next, serving  int64
	ticket         []int64
	phase          []int // 0 outside, 1 its xadd under way, 2 waiting
	reading        []bool
	unlocks        []sim.Event
	served         func(*cpu.Core) bool
	lockSt, unlock cpu.Step
}

func newTestTicket(m *cpu.Machine, line *cacheline.Line, batched bool) *testTicket {
	n := m.NumCPUs()
	t := &testTicket{m: m, line: line, label: m.Label("lock"), batched: batched,
		ticket: make([]int64, n), phase: make([]int, n), reading: make([]bool, n), unlocks: make([]sim.Event, n)}
	t.served = func(c *cpu.Core) bool {
		t.reading[c.ID] = t.serving == t.ticket[c.ID]
		return t.reading[c.ID]
	}
	for i := range t.unlocks {
		t.unlocks[i].Action = sim.ActionFunc(func(at sim.Time) { t.serving++; m.Poke(line, at) })
	}
	t.lockSt, t.unlock = ticketLockStep{t}, ticketUnlockStep{t}
	return t
}

type ticketLockStep struct{ t *testTicket }

func (s ticketLockStep) Exec(c *cpu.Core) (cpu.Outcome, sim.Time) {
	t, id := s.t, c.ID
	switch t.phase[id] {
	case 0:
		t.phase[id] = 1
		return cpu.Again, c.Access(t.label, t.line, cacheline.RMW)
	case 1:
		my := t.next
		t.next++
		if t.serving == my {
			t.phase[id] = 0
			return cpu.Next, c.Now()
		}
		t.ticket[id], t.phase[id] = my, 2
		return t.spin(c, c.Now())
	}
	if !t.reading[id] {
		now := c.Now()
		done := c.Reread(t.line)
		c.Charge(t.label, cpu.Spin, done-now)
		if done > now {
			t.reading[id] = true
			return cpu.Again, done
		}
	}
	t.reading[id] = false
	if t.serving == t.ticket[id] {
		t.phase[id] = 0
		return cpu.Next, c.Now()
	}
	return t.spin(c, c.Now())
}

// spin waits for the lock word to change from from.
func (t *testTicket) spin(c *cpu.Core, from sim.Time) (cpu.Outcome, sim.Time) {
	if t.batched {
		return c.SpinRereads(t.line, from, t.label, t.served)
	}
	if !t.line.Holds(c.ID) {
		at := from
		if kept := t.line.KeptUntil(c.ID); kept > from {
			at = c.Notices(kept)
		}
		c.Charge(t.label, cpu.Spin, at-from)
		return cpu.Again, at
	}
	c.Watch(t.line)
	c.BlockFrom(from, t.label, cpu.Spin)
	return cpu.Block, 0
}

type ticketUnlockStep struct{ t *testTicket }

func (s ticketUnlockStep) Exec(c *cpu.Core) (cpu.Outcome, sim.Time) {
	t := s.t
	done := c.Access(t.label, t.line, cacheline.Store)
	t.m.Schedule(&t.unlocks[c.ID], max(c.LastStoreLands(), c.Now()))
	return cpu.Next, done
}

// Spinning with SpinRereads, a ticket lock's waiters make the reads the
// naive reference makes, at the same times and in the same order at the
// home: the same packets and the same spin, to within what the ends of the
// run cut differently (the reference charges a read when it is made, the
// batch when the waiter wakes), in a few events a hand-over where the
// reference takes two a waiter.
func TestSpinRereadsMatchesEventPerRead(t *testing.T) {
	for _, n := range []int{2, 5, 16, 48} {
		var pkts [2]uint64
		var spin [2]sim.Time
		var perPacket [2]float64
		for k, batched := range []bool{false, true} {
			p := bigProfile()
			p.Jitter, p.CV = cpu.UniformJitter, 0.1
			p.Atomic, p.Pause = 6*sim.Nanosecond, 20*sim.Nanosecond
			m := newMachine(t, p, 3)
			lk := newTestTicket(m, newLine(t, m, "lock", false), batched)
			data := newLine(t, m, "data", false)
			work := m.Label("work")
			startAll(m, &cpu.Program{Name: "p", Steps: []cpu.Step{
				&cpu.ComputeStep{Label: work, D: 30 * sim.Nanosecond},
				lk.lockSt,
				&cpu.ComputeStep{Label: work, D: 10 * sim.Nanosecond},
				&cpu.AccessStep{Label: work, Line: data, Op: cacheline.Store},
				lk.unlock,
			}}, firstN(n))
			run(t, m, 2*sim.Microsecond, 2*sim.Millisecond)
			pkts[k] = completed(m)
			for _, c := range m.Cores() {
				spin[k] += c.Time(lk.label, cpu.Spin)
			}
			perPacket[k] = float64(m.Fired()) / float64(pkts[k])
		}
		t.Logf("%d CPUs: %d and %d packets, %.1f and %.1f events a packet", n, pkts[0], pkts[1], perPacket[0], perPacket[1])
		if math.Abs(float64(pkts[1])/float64(pkts[0])-1) > 0.002 || math.Abs(float64(spin[1])/float64(spin[0])-1) > 0.002 {
			t.Errorf("%d CPUs: %d packets and %v of spin with SpinRereads; %d and %v with an event a read: want within 0.2%%",
				n, pkts[1], spin[1], pkts[0], spin[0])
		}
		// The holder's steps, and the few events that serve the waiters'
		// reads between them: not a number that grows with the waiters.
		if perPacket[1] > 15 {
			t.Errorf("%d CPUs: %.1f events a packet with SpinRereads (%.1f with an event a read); want at most 15 at any size",
				n, perPacket[1], perPacket[0])
		}
	}
}
