package hostbench

import (
	"fmt"
	"time"
)

// Kernel names a measured loop. Every loop repeats one operation per
// iteration on every thread of its job.
type Kernel uint8

// The loops. Work counts units of independent work between operations: one
// unit is one step of a 64-bit linear congruential generator, a dependent
// multiply and add.
const (
	Work           Kernel = iota // Work units only
	Add                          // atomic add on the thread's own line
	CAS                          // compare-and-swap on the thread's own line
	Swap                         // exchange on the thread's own line
	StoreAdd                     // plain store to one own line, then atomic add on another
	PingPong                     // two threads take turns: wait for my parity, CAS it on
	SharedAdd                    // every thread adds to one shared line
	FalseShare                   // every thread adds to its own word of one shared line
	Padded                       // every thread adds to a counter on its own line
	TicketLock                   // lock, Work units, unlock
	TASLock                      // test-and-test-and-set lock, Work units, unlock
	MCSLock                      // MCS queue lock, Work units, unlock
	Chase                        // one dependent load through a random cycle of Bytes
	Pause                        // one PAUSE instruction
	Wakeup                       // wake the other thread blocked in read(2), then block
	Readers                      // the first thread writes a line; each other loads it until it sees the write, then acknowledges on its own line
	SharedStoreAdd               // every thread stores to one shared line, then adds to another
	TicketCAS                    // the ticket lock with a CAS for the increment inside it: a waiting atomic, then the unlock's store
	PingPongCAS                  // PingPong with waiters spinning on the CAS itself, as core-to-core tables measure
	SharedLoadAdd                // every thread loads one shared line, then adds to it: a load followed by an atomic on a contended line
	MCSBare                      // the MCS lock with nothing inside: its hand-over alone
	TicketBare                   // the ticket lock with nothing inside: its hand-over alone
	TicketStore                  // the ticket lock whose section stores the counter without reading it: the unlock's store waits behind one that waits for its line
	LoadModified                 // one access timed alone (timed): the first thread loads a line the second just wrote
	RMWModified                  // timed: the first thread's atomic add on a line the second just wrote
	RMWShared                    // timed: the first thread's atomic add on a line both threads just read (an upgrade)
	RMWWork                      // timed: RMWModified alone, then with Work units of independent work after it, then the work alone; what of the work the atomic's wait hid
	AddStoreLine                 // atomic add on one word of the thread's own line, then a plain store to another word of it: a lock's unlock after its atomic
	numKernels
)

var kernelNames = [numKernels]string{"work", "add", "cas", "swap", "store-add", "pingpong", "shared-add",
	"false-share", "padded", "ticket", "tas", "mcs", "chase", "pause", "wakeup", "readers", "shared-store-add", "ticket-cas", "pingpong-cas", "shared-load-add", "mcs-bare", "ticket-bare", "ticket-store",
	"load-modified", "rmw-modified", "rmw-shared", "rmw-work", "add-store-line"}

// timed reports whether the kernel times one access of each iteration
// with the time-stamp counter, apart from the handshake that sets the
// line's state up: a figure of the access alone, as the per-state tables
// of David, Guerraoui and Trigonakis (SOSP'13, ccbench) give.
func (k Kernel) timed() bool {
	return k == LoadModified || k == RMWModified || k == RMWShared || k == RMWWork
}

func (k Kernel) String() string {
	if k < numKernels {
		return kernelNames[k]
	}
	return fmt.Sprintf("kernel(%d)", k)
}

// Job is one loop on a set of CPUs, one thread pinned on each.
type Job struct {
	Kernel Kernel
	CPUs   []int
	Work   int // units of work after each operation (inside the lock for lock kernels)
	Bytes  int // Chase: size of the array walked
}

func (j Job) String() string {
	s := fmt.Sprintf("%s cpus=%v", j.Kernel, j.CPUs)
	if j.Work > 0 {
		s += fmt.Sprintf(" work=%d", j.Work)
	}
	if j.Bytes > 0 {
		s += fmt.Sprintf(" bytes=%d", j.Bytes)
	}
	return s
}

// Machine runs jobs: Host on this machine, a model of one in tests.
type Machine interface {
	// Run runs iters iterations of job on every thread and returns how
	// long the slowest thread took.
	Run(job Job, iters int) (time.Duration, error)
	// Topology says which CPUs there are and how they are related.
	Topology() Topology
	// Supports says whether the machine can run a kernel (PAUSE needs amd64).
	Supports(k Kernel) bool
}
