package cpu

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Placement is how a workload's threads are put on CPUs.
type Placement uint8

// Placements.
const (
	// SMTLast takes CPUs in Linux's numbering: one thread of every physical
	// core, socket by socket, then the SMT siblings.
	SMTLast Placement = iota
	// Compact fills a core's SMT threads, then the next core, socket by
	// socket: everything as close as it gets.
	Compact
	// Spread is what the scheduler's fork balancing does to unpinned
	// threads: one per socket in turn, within a socket one per LLC group in
	// turn, then core by core, SMT siblings last.
	Spread
)

var placementNames = []string{"smt-last", "compact", "spread"}

func (p Placement) String() string { return placementNames[p] }

// ParsePlacement maps a scenario's placement name to a Placement.
func ParsePlacement(s string) (Placement, bool) {
	i := slices.Index(placementNames, s)
	return Placement(max(i, 0)), i >= 0
}

// PlacementNames lists the placements a scenario may name.
func PlacementNames() []string { return slices.Clone(placementNames) }

// Order returns every CPU of the machine in the order p takes them.
func (t Topology) Order(p Placement) []int {
	n := t.NumCores()
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	key := func(c int) []int {
		thread := c / (t.p.Sockets * t.p.CoresPerSocket)
		phys := t.Physical(c)
		switch p {
		case Compact:
			return []int{phys, thread}
		case Spread:
			groups := t.p.CoresPerSocket / t.coresPerLLC()
			inSocket := phys % t.p.CoresPerSocket
			// rank of the core within its LLC group, then the group
			return []int{thread, inSocket % t.coresPerLLC(), inSocket / t.coresPerLLC() % groups, t.Socket(c)}
		}
		return []int{c}
	}
	slices.SortStableFunc(out, func(a, b int) int { return slices.Compare(key(a), key(b)) })
	return out
}

func (t Topology) coresPerLLC() int {
	if t.p.CoresPerLLC > 0 {
		return t.p.CoresPerLLC
	}
	return t.p.CoresPerSocket
}

// Where says where a CPU sits, in the words of lscpu.
func (t Topology) Where(c int) string {
	return fmt.Sprintf("socket %d, LLC %d, core %d, thread %d", t.Socket(c), t.LLCGroup(c), t.Physical(c), c/(t.p.Sockets*t.p.CoresPerSocket))
}

// ParseCPUList reads a CPU list as Linux writes them ("0-3,8-11"), in the
// order written, and refuses a CPU given twice.
func ParseCPUList(s string) ([]int, error) {
	var out []int
	seen := map[int]bool{}
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		a, err := strconv.Atoi(lo)
		b := a
		if err == nil && isRange {
			b, err = strconv.Atoi(hi)
		}
		if err != nil || a < 0 || b < a || b >= MaxCPUs {
			return nil, fmt.Errorf("%q is not a CPU or a range of CPUs; write them as Linux does, e.g. \"0-3,8-11\"", part)
		}
		for c := a; c <= b; c++ {
			if seen[c] {
				return nil, fmt.Errorf("CPU %d is listed twice; give each CPU once", c)
			}
			seen[c] = true
			out = append(out, c)
		}
	}
	return out, nil
}
