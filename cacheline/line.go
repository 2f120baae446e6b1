package cacheline

import (
	"fmt"
	"math/bits"

	"contend/sim"
)

// Distance classes a transfer by where the line comes from.
type Distance uint8

// Distance classes, cheapest first. Topologies give Local, SMTSibling,
// SameSocket (another core of the same LLC group), OtherLLC (another LLC
// group of the same socket: an AMD CCX) and OtherSocket; LLC and Memory are
// where a miss can be served from when no core has to give the line up.
const (
	Local       Distance = iota // the requesting core's own L1
	SMTSibling                  // the other hardware thread of the same core
	LLC                         // a clean copy in the requester's LLC
	SameSocket                  // another core sharing the requester's LLC
	OtherLLC                    // a core of another LLC group of the same socket
	OtherSocket                 // a core of another socket
	Memory                      // no cache holds the line
	NumDistances
)

var distanceNames = [NumDistances]string{"local", "smt", "llc", "socket", "other-llc", "remote", "memory"}

func (d Distance) String() string {
	if d < NumDistances {
		return distanceNames[d]
	}
	return fmt.Sprintf("Distance(%d)", uint8(d))
}

// Topology says where each CPU sits.
type Topology interface {
	NumCores() int
	// Place returns the CPU's socket, its LLC group (numbered across the
	// machine, groups of one socket together) and its physical core (SMT
	// siblings share it).
	Place(cpu int) (socket, llc, core int)
}

// Op is a memory access.
type Op uint8

// Accesses.
const (
	Load    Op = iota
	Store      // needs ownership
	RMW        // atomic read-modify-write; needs ownership
	LoadOwn    // a load of a line the core stores to next (x++): read for ownership
)

func (o Op) String() string {
	switch o {
	case Load:
		return "load"
	case Store:
		return "store"
	case RMW:
		return "rmw"
	case LoadOwn:
		return "load-own"
	}
	return fmt.Sprintf("Op(%d)", uint8(o))
}

// Waker is woken when a watched line leaves a core's cache. LineLost runs
// inside an access: it may schedule events but must not access lines.
type Waker interface {
	LineLost(at sim.Time)
}

// Stats are the per-line counters behind the simulated perf c2c.
type Stats struct {
	Accesses      uint64   // loads, stores and RMWs
	Hits          uint64   // served from the requesting core's cache
	Transfers     uint64   // misses served by another cache, the LLC or memory
	HITM          uint64   // transfers of a line modified in another core
	Remote        uint64   // transfers from another socket
	Invalidations uint64   // copies invalidated by stores and RMWs
	QueueDelay    sim.Time // total wait for the line's earlier requests
	MaxQueueDelay sim.Time // longest single wait
	ByCore        []uint64 // accesses by core
	TransfersBy   []uint64 // transfers by requesting core (the heat map of who pulls the line)
	TransferTime  sim.Time // total time the line spent moving
	// Busy is how long the line's home could serve no other request: a
	// transfer and the atomic that holds the line once it has come, a
	// read's occupancy, a previous owner's atomic in its grace. A line
	// busy nearly all the time is a bottleneck: requests for it queue,
	// and taking traffic off another line moves the waiting here. An
	// owner's own hits do not count: while a core owns the line, no other
	// has asked for it.
	Busy sim.Time
	// SiblingClears counts the spinners the line's writes threw back: a
	// watcher woken by its SMT sibling's write, which pays SiblingClear
	// before it reads again.
	SiblingClears uint64
}

// Line is one named cache line. Its fields describe the state after every
// request made so far has been served; the previous owner keeps its copy
// until the request that takes it away is served (see doc.go).
type Line struct {
	Name   string
	ID     int
	PerCPU bool // one private copy per core; never transferred

	// readOnly says that no access of the run stores to the line or
	// changes it atomically (MarkReadOnly): a core that holds a copy keeps
	// it to the end.
	readOnly bool

	owner    int // Modified or Exclusive here; -1: none
	dirty    bool
	fwd      int      // ForwardOwner: the sharer that forwards the line (MOESI's Owned, or the last owner of a clean one); -1: none
	sharers  []uint64 // bitset of cores holding a Shared copy
	nsharers int
	byGroup  []int32  // sharers per LLC group
	freeAt   sim.Time // when the line's home has served every queued ownership request
	prev     int      // the owner before the last ownership request, or -1
	prevBy   int      // the core that request came from
	// grace is every core's own record of the window it keeps the line
	// for once the request after its own is served: prev's record is the
	// latest, but with requests queued behind each other an owner's turn
	// comes after later requests have been taken, and its window is its
	// own all the same.
	grace    []grace
	watchers []watcher
	Stats    Stats
}

type watcher struct {
	core int
	w    Waker
	from sim.Time // when the core starts watching
}

// Owner returns the owning core, or -1.
func (l *Line) Owner() int { return l.owner }

// Holds reports whether core has, or is being sent, a valid copy.
func (l *Line) Holds(core int) bool {
	return l.PerCPU || l.owner == core || l.isSharer(core)
}

// KeptUntil returns until when a core that no longer Holds the line still
// has its copy: the previous owner keeps it until the request that took it
// is served. For other cores it is 0.
func (l *Line) KeptUntil(core int) sim.Time { return l.grace[core].till }

// grace is one core's window: until when it keeps the line, whether the
// request that takes it asks to own it (not only to read it), and the
// writes it may still make (from System.Write; -1: no bound).
type grace struct {
	till  sim.Time
	taken bool
	left  int32
}

// MarkReadOnly says that no store or atomic of the run will ever reach l:
// what a static check of every program finds for a line no step writes.
// A core that has a copy then keeps it to the end of the run, so its loads
// of the line hit whenever they run (cpu runs them ahead of the clock). A
// store or atomic that reaches the line all the same panics: the check
// that marked it was wrong.
func (l *Line) MarkReadOnly() { l.readOnly = true }

// ReadOnly reports whether MarkReadOnly marked l.
func (l *Line) ReadOnly() bool { return l.readOnly }

// Sharers returns the cores holding a shared copy, in increasing order.
func (l *Line) Sharers() []int {
	var out []int
	for w, word := range l.sharers {
		for word != 0 {
			b := bits.TrailingZeros64(word)
			out = append(out, w*64+b)
			word &^= 1 << uint(b)
		}
	}
	return out
}

// occupy keeps the line's home busy from from until to: requests that come
// meanwhile wait. Overlapping spans count once in Stats.Busy.
func (l *Line) occupy(from, to sim.Time) {
	if to > l.freeAt {
		l.Stats.Busy += to - max(from, l.freeAt)
		l.freeAt = to
	}
}

func (l *Line) isSharer(c int) bool { return l.sharers[c>>6]&(1<<uint(c&63)) != 0 }

// ResetStats zeroes the counters, keeping the coherence state.
func (l *Line) ResetStats() {
	by, tby := l.Stats.ByCore, l.Stats.TransfersBy
	clear(by)
	clear(tby)
	l.Stats = Stats{ByCore: by, TransfersBy: tby}
}

// WatchedByOthers reports whether a core other than core spins on l at
// now.
func (l *Line) WatchedByOthers(core int, now sim.Time) bool {
	for _, w := range l.watchers {
		if w.core != core && w.from <= now {
			return true
		}
	}
	return false
}
