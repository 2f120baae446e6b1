package models

// The sequence counter and the seqlock, include/linux/seqlock.h. A writer
// (do_write_seqcount_begin, do_write_seqcount_end) increments the sequence
// before and after its stores, so it is odd while they are under way; a
// writer must be serialised by a lock (write_seqlock takes the seqlock_t's
// spinlock first). A reader (read_seqcount_begin, read_seqcount_retry)
// reads the sequence, spinning while it is odd, reads the data, and reads
// the sequence again: if it changed, a writer came in between and the
// reader goes round again. Readers write nothing: the line of the sequence
// is shared by every reader and moves only when a writer writes it.
//
// Phases of a reader: seqOutside -> (READ_ONCE served) seqWaiting, while
// odd, or seqInside -> (the section's steps; read_seqcount_retry's read
// served) seqOutside, or seqRetrying and back to read_seqcount_begin.

import (
	"fmt"

	"contend/cacheline"
	"contend/cpu"
	"contend/sim"
)

// seqPhase is where a CPU is in a read section of one seqcount.
type seqPhase uint8

const (
	seqOutside   seqPhase = iota // not reading
	seqBeginning                 // read_seqcount_begin's read in flight
	seqWaiting                   // the sequence read odd: spins until a writer's store
	seqInside                    // in the section, the sequence read even
	seqChecking                  // read_seqcount_retry's read in flight
	seqRetrying                  // the sequence changed: back to read_seqcount_begin
)

// Seqcount is a seqcount_t on a line (a seqlock_t's, beside its spinlock).
type Seqcount struct {
	Name   string
	Line   *cacheline.Line
	seq    uint64
	writer int // the CPU between write_seqcount_begin and _end, or -1
	phase  []seqPhase
	start  []uint64 // the sequence each reader read at read_seqcount_begin
	Stats  SeqStats
}

// SeqStats count a seqcount's sections in the measured interval.
type SeqStats struct {
	Reads   uint64 // read sections that returned
	Retries uint64 // read sections that found a writer had come and went round again
	Writes  uint64 // write sections
}

// NewSeqcount adds a seqcount on line.
func (w *World) NewSeqcount(name string, line *cacheline.Line) *Seqcount {
	n := w.M.NumCPUs()
	s := &Seqcount{Name: name, Line: line, writer: -1, phase: make([]seqPhase, n), start: make([]uint64, n)}
	w.seqcounts = append(w.seqcounts, s)
	return s
}

// SeqWriteBegin is do_write_seqcount_begin: sequence++ (odd), then
// smp_wmb(), a compiler barrier on x86. The caller serialises writers.
type SeqWriteBegin struct {
	S     *Seqcount
	Label cpu.Label
}

// Exec implements cpu.Step.
func (st *SeqWriteBegin) Exec(c *cpu.Core) (cpu.Outcome, sim.Time) {
	s := st.S
	if s.writer >= 0 {
		c.Fail(fmt.Sprintf("write_seqcount_begin(%s) while cpu %d writes it: writers of a seqcount must be serialised; hold a lock around the write section, or use write_seqlock", s.Name, s.writer))
		return cpu.Block, 0
	}
	s.writer = c.ID
	s.seq++
	return cpu.Next, c.Access(st.Label, s.Line, cacheline.LoadOwn)
}

// SeqWriteEnd is do_write_seqcount_end: smp_wmb(), then sequence++ (even).
type SeqWriteEnd struct {
	S     *Seqcount
	Label cpu.Label
}

// Exec implements cpu.Step.
func (st *SeqWriteEnd) Exec(c *cpu.Core) (cpu.Outcome, sim.Time) {
	s := st.S
	if s.writer != c.ID {
		c.Fail(fmt.Sprintf("write_seqcount_end(%s) by a CPU that did not begin a write section; pair it with write_seqcount_begin", s.Name))
		return cpu.Block, 0
	}
	s.writer = -1
	s.seq++
	s.Stats.Writes++
	done := c.Access(st.Label, s.Line, cacheline.Store)
	c.M.Poke(s.Line, c.Now())
	return cpu.Next, done
}

// SeqReadBegin is read_seqcount_begin: read the sequence, spinning with
// cpu_relax() while it is odd.
type SeqReadBegin struct {
	S     *Seqcount
	Label cpu.Label
}

// Exec implements cpu.Step.
func (st *SeqReadBegin) Exec(c *cpu.Core) (cpu.Outcome, sim.Time) {
	s, id := st.S, c.ID
	switch s.phase[id] {
	case seqOutside, seqRetrying:
		if s.phase[id] == seqOutside && s.writer == id {
			c.Fail(fmt.Sprintf("read_seqcount_begin(%s) inside this CPU's own write section: it would retry for ever; end the write first", s.Name))
			return cpu.Block, 0
		}
		s.phase[id] = seqBeginning
		return cpu.Again, c.Access(st.Label, s.Line, cacheline.Load)
	case seqWaiting: // the line was written: read it again
		s.phase[id] = seqBeginning
		return cpu.Again, reload(c, s.Line, st.Label)
	case seqBeginning:
		if s.seq&1 == 0 {
			s.start[id] = s.seq
			s.phase[id] = seqInside
			return cpu.Next, c.Now()
		}
		s.phase[id] = seqWaiting
		return spinOn(c, s.Line, c.Now(), st.Label)
	}
	c.Fail(fmt.Sprintf("read_seqcount_begin(%s) inside a read section of it; a section cannot nest in itself", s.Name))
	return cpu.Block, 0
}

// SeqReadRetry is read_seqcount_retry: smp_rmb() (a compiler barrier on
// x86), re-read the sequence, and go back Back steps, to read_seqcount_begin,
// if it changed.
type SeqReadRetry struct {
	S     *Seqcount
	Back  int // steps from this one back to its read_seqcount_begin
	Label cpu.Label
}

// Exec implements cpu.Step.
func (st *SeqReadRetry) Exec(c *cpu.Core) (cpu.Outcome, sim.Time) {
	s, id := st.S, c.ID
	if s.phase[id] != seqChecking {
		s.phase[id] = seqChecking
		return cpu.Again, c.Access(st.Label, s.Line, cacheline.Load)
	}
	if s.seq == s.start[id] {
		s.phase[id] = seqOutside
		s.Stats.Reads++
		return cpu.Next, c.Now()
	}
	s.phase[id] = seqRetrying
	s.Stats.Retries++
	c.Skip(-st.Back - 1)
	return cpu.Next, c.Now()
}
