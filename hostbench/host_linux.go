package hostbench

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// Host runs jobs on this machine, one OS thread pinned per CPU of the job.
type Host struct {
	topo Topology
	// Each job's memory, kept for its next run: building a random cycle
	// through a large array takes longer than walking it, and every
	// sample of a figure is then measured on the same lines, though
	// calibrate measures another loop between two of them. The contended
	// line is one for every job: on a mesh a line's home (its slice of
	// the last-level cache) decides part of what a transfer costs (on the
	// Emerald Rapids guest a ping-pong round trip takes 116-141 ns on one
	// line or another; on the Sapphire Rapids guest a test-and-set loop
	// took 104-131 ns a thread's operation on one pair of lines and
	// 154-168 on another), so the ping-pong the transfer is fitted to and
	// the loops it predicts share it: every lock's word is on it, and the
	// counter the locks protect and the MCS queue's nodes are one for
	// every job too.
	data      map[string]*shared
	one       *line
	protected *line
	nodes     []mcsNode
	ops       uint64 // the last run's shared counter
}

// NewHost reads the topology from /sys, keeping the CPUs this process may
// run on (a container or taskset may allow fewer than are online).
func NewHost() (*Host, error) {
	t, err := ReadTopology(os.DirFS("/sys/devices/system/cpu"))
	if err != nil {
		return nil, fmt.Errorf("topology from /sys/devices/system/cpu: %w", err)
	}
	var allowed unix.CPUSet
	if err := unix.SchedGetaffinity(0, &allowed); err == nil {
		t.CPUs = slices.DeleteFunc(t.CPUs, func(c CPU) bool { return !allowed.IsSet(c.ID) })
	}
	if len(t.CPUs) == 0 {
		return nil, fmt.Errorf("this process may run on none of the online CPUs")
	}
	return &Host{topo: t, data: map[string]*shared{}, one: new(line), protected: new(line), nodes: make([]mcsNode, len(t.CPUs))}, nil
}

// Topology implements Machine.
func (h *Host) Topology() Topology { return h.topo }

// Supports implements Machine.
func (h *Host) Supports(k Kernel) bool {
	return (k != Pause || havePause) && (!k.timed() || haveTSC && len(h.topo.CPUs) >= 2)
}

// Run implements Machine. Every thread pins itself, then all wait at a
// start line so that contended loops really overlap; each times its own
// loop and the slowest is the job's time. The garbage collector is off
// meanwhile (the loops allocate nothing, but a collection started elsewhere
// would steal a CPU).
func (h *Host) Run(job Job, iters int) (time.Duration, error) {
	if len(job.CPUs) == 0 {
		return 0, fmt.Errorf("%v: no CPUs", job)
	}
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	s := h.data[job.String()]
	if s == nil {
		s = newShared(len(job.CPUs), job)
		s.one, s.protected = h.one, h.protected
		if len(job.CPUs) <= len(h.nodes) {
			s.nodes = h.nodes[:len(job.CPUs)]
		}
		h.data[job.String()] = s
	}
	// Readers, the CAS ping-pong and the timed kernels count their turns
	// from the start.
	s.restart()
	var ready, start atomic.Int32
	elapsed := make([]time.Duration, len(job.CPUs))
	errs := make([]error, len(job.CPUs))
	var wg sync.WaitGroup
	var pipes [2][2]int
	if job.Kernel == Wakeup {
		for i := range pipes {
			if err := unix.Pipe(pipes[i][:]); err != nil {
				return 0, fmt.Errorf("%v: pipe: %w", job, err)
			}
			defer unix.Close(pipes[i][0])
			defer unix.Close(pipes[i][1])
		}
	}
	for t, cpu := range job.CPUs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Never unlocked: the goroutine ends locked, so the runtime
			// retires the pinned thread instead of reusing it.
			runtime.LockOSThread()
			var set unix.CPUSet
			set.Set(cpu)
			if err := unix.SchedSetaffinity(0, &set); err != nil {
				errs[t] = fmt.Errorf("%v: pin to CPU %d: %w", job, cpu, err)
				ready.Add(1)
				start.Store(1)
				return
			}
			ready.Add(1)
			if t == 0 {
				for ready.Load() < int32(len(job.CPUs)) {
				}
				start.Store(1)
			}
			for start.Load() == 0 {
			}
			t0 := time.Now()
			if job.Kernel == Wakeup {
				errs[t] = wakeups(pipes, t, iters)
			} else {
				s.loop(job, t, iters)
			}
			elapsed[t] = time.Since(t0)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return 0, err
		}
	}
	h.ops = s.count(job)
	if job.Kernel.timed() {
		return s.tsc.accessTime(elapsed[0]), nil
	}
	return slices.Max(elapsed), nil
}

// count returns what a job's shared counter reached, for tests that the
// loops did their work: the contended counter, or the lock loops'.
func (s *shared) count(job Job) uint64 {
	switch job.Kernel {
	case TicketLock, TASLock, MCSLock, TicketCAS:
		return s.protected.v
	case SharedAdd, SharedStoreAdd, SharedLoadAdd, PingPongCAS:
		return s.one.v
	}
	return 0
}

// wakeups plays one side of a pipe ping-pong: thread 0 writes a byte and
// blocks reading the reply, thread 1 blocks until the byte comes and
// replies. An iteration is two wake-ups of a thread blocked in read(2).
func wakeups(pipes [2][2]int, t, iters int) error {
	in, out := pipes[0][0], pipes[1][1]
	if t == 1 {
		in, out = pipes[1][0], pipes[0][1]
	}
	b := []byte{0}
	for range iters {
		if t == 0 {
			if _, err := unix.Write(out, b); err != nil {
				return err
			}
		}
		if _, err := unix.Read(in, b); err != nil {
			return err
		}
		if t == 1 {
			if _, err := unix.Write(out, b); err != nil {
				return err
			}
		}
	}
	return nil
}

// accessTime is the time a timed kernel's accesses took, less its
// brackets: the time-stamp counter's counts turned into time by the rate
// it ran at over the first thread's run (elapsed).
func (c tscCounts) accessTime(elapsed time.Duration) time.Duration {
	if c.end <= c.start || elapsed <= 0 || c.op <= c.base {
		return 0
	}
	perNS := float64(c.end-c.start) / float64(elapsed.Nanoseconds())
	return time.Duration(float64(c.op-c.base) / perNS)
}
