//go:build linux

package hostbench

import (
	"testing"
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
