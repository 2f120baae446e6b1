package cacheline

import (
	"fmt"
	"math/bits"

	"contend/sim"
)

// Distance classes a transfer by where the line comes from.
type Distance uint8

// Distance classes, nearest first.
const (
	Local       Distance = iota // the requesting core's own L1
	SMTSibling                  // the other hardware thread of the same core
	SameSocket                  // another core of the same socket (LLC)
	OtherSocket                 // a core of another socket
	Memory                      // no cache holds the line
	NumDistances
)

var distanceNames = [NumDistances]string{"local", "smt", "socket", "remote", "memory"}

func (d Distance) String() string {
	if d < NumDistances {
		return distanceNames[d]
	}
	return fmt.Sprintf("Distance(%d)", uint8(d))
}

// Topology tells the distance between two cores.
type Topology interface {
	NumCores() int
	Distance(from, to int) Distance
}

// Op is a memory access.
type Op uint8

// Accesses.
const (
	Load  Op = iota
	Store    // needs ownership
	RMW      // atomic read-modify-write; needs ownership
)

func (o Op) String() string {
	switch o {
	case Load:
		return "load"
	case Store:
		return "store"
	case RMW:
		return "rmw"
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
	Transfers     uint64   // misses served by another cache or memory
	HITM          uint64   // transfers of a line modified in another core
	Remote        uint64   // transfers from another socket
	Invalidations uint64   // sharer copies invalidated by stores and RMWs
	QueueDelay    sim.Time // total wait for the line to become free
	MaxQueueDelay sim.Time // longest single wait
	ByCore        []uint64 // accesses by core
	TransfersBy   []uint64 // transfers by requesting core (the heat map of who pulls the line)
	TransferTime  sim.Time // total time the line spent moving
}

// Line is one named cache line.
type Line struct {
	Name   string
	ID     int
	PerCPU bool // one private copy per core; never transferred

	owner    int // -1: no owner
	dirty    bool
	sharers  []uint64 // bitset of cores holding a shared copy
	nsharers int
	freeAt   sim.Time // when the line finishes its queued transfers
	watchers []watcher
	Stats    Stats
}

type watcher struct {
	core int
	w    Waker
}

// Owner returns the owning core, or -1.
func (l *Line) Owner() int { return l.owner }

// Holds reports whether core has a valid copy.
func (l *Line) Holds(core int) bool {
	return l.PerCPU || l.owner == core || l.isSharer(core)
}

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

func (l *Line) isSharer(c int) bool { return l.sharers[c>>6]&(1<<uint(c&63)) != 0 }

func (l *Line) addSharer(c int) {
	if !l.isSharer(c) {
		l.sharers[c>>6] |= 1 << uint(c&63)
		l.nsharers++
	}
}

func (l *Line) clearSharers() {
	clear(l.sharers)
	l.nsharers = 0
}

// ResetStats zeroes the counters, keeping the coherence state.
func (l *Line) ResetStats() {
	by, tby := l.Stats.ByCore, l.Stats.TransfersBy
	clear(by)
	clear(tby)
	l.Stats = Stats{ByCore: by, TransfersBy: tby}
}
