//go:build linux

package hostbench

import (
	"testing"
	"unsafe"
)

// Every loop runs on this machine, pinned, and the contended ones do their
// work: the shared counter and the counter the locks protect end at threads
// × iterations (a lock that let two threads in at once would lose some).
// Nothing here depends on how fast the host is.
func TestHostLoops(t *testing.T) {
	h, err := NewHost()
	if err != nil {
		t.Skipf("no CPU topology here: %v", err)
	}
	const iters = 200 // few: on a busy machine a contended round can wait for the scheduler
	for _, f := range Plan(h.Topology(), h) {
		if f.Job.Kernel == Chase && f.Job.Bytes > 1<<20 {
			f.Job.Bytes = 1 << 20 // the walk, not the memory, is under test
		}
		// The CAS ping-pong twice: Measure runs a job again and again,
		// and its ball counts from where the last run left it.
		runs := 1
		if f.Job.Kernel == PingPongCAS {
			runs = 2
		}
		for run := range runs {
			d, err := h.Run(f.Job, iters)
			if err != nil {
				t.Fatalf("%s: %v", f.Name, err)
			}
			// A timed kernel gives its access less a hit's time, which
			// between two threads of one core may be nothing.
			if d <= 0 && !(f.Job.Kernel.timed() && d == 0) {
				t.Errorf("%s: took %v", f.Name, d)
			}
			switch f.Job.Kernel {
			case SharedAdd, SharedStoreAdd, SharedLoadAdd, TicketLock, TASLock, MCSLock, TicketCAS, PingPongCAS:
				if want := uint64(len(f.Job.CPUs) * iters); h.ops != want {
					t.Errorf("%s, run %d: counter %d after %d threads × %d iterations", f.Name, run+1, h.ops, len(f.Job.CPUs), iters)
				}
			}
		}
	}
}

// Every lock loop runs on the line the ping-pong runs on, and every loop
// of a run shares one protected counter and one set of MCS nodes: a line's
// home changes what a transfer costs, so the ping-pong the transfer is
// fitted to must measure the lines the lock loops use.
func TestLocksOnThePingPongLine(t *testing.T) {
	h, err := NewHost()
	if err != nil {
		t.Skip(err)
	}
	cpus := []int{h.Topology().CPUs[0].ID}
	lineOf := func(p unsafe.Pointer) uintptr { return uintptr(p) / 64 }
	one := lineOf(unsafe.Pointer(&h.one.v))
	for _, k := range []Kernel{TicketLock, TASLock, MCSLock, TicketCAS, TicketStore} {
		job := Job{Kernel: k, CPUs: cpus, Work: 1}
		if _, err := h.Run(job, 10); err != nil {
			t.Fatalf("%v: %v", job, err)
		}
		s := h.data[job.String()]
		tail, head := s.ticketWords()
		for name, p := range map[string]unsafe.Pointer{"ticket tail": unsafe.Pointer(tail), "ticket head": unsafe.Pointer(head), "word": unsafe.Pointer(s.word())} {
			if lineOf(p) != one {
				t.Errorf("%v: the %s is not on the ping-pong's line", job, name)
			}
		}
		if s.protected != h.protected || &s.nodes[0] != &h.nodes[0] {
			t.Errorf("%v: its protected counter or MCS nodes are its own, not the run's", job)
		}
	}
}
