package hostbench

import (
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
)

// CPU is one logical CPU and where it sits.
type CPU struct {
	ID     int `json:"id"`
	Socket int `json:"socket"` // physical_package_id
	Core   int `json:"core"`   // core_id, unique within the socket
	LLC    int `json:"llc"`    // lowest CPU sharing its last-level cache; -1 when /sys does not say
}

// Topology is the logical CPUs of a machine.
type Topology struct {
	CPUs []CPU
}

// PairClass is how close two CPUs are, in the profile's terms.
type PairClass uint8

// Pair classes, nearest first.
const (
	SMTSibling  PairClass = iota // two threads of one core
	SameLLC                      // two cores sharing the last-level cache (or one socket when unknown)
	OtherLLC                     // one socket, different last-level caches
	OtherSocket                  // two sockets
)

var pairNames = [...]string{"smt_sibling", "same_llc", "other_llc", "other_socket"}

func (c PairClass) String() string { return pairNames[c] }

// Class returns how CPUs a and b (indexes into CPUs) are related.
func (t Topology) Class(a, b CPU) PairClass {
	switch {
	case a.Socket != b.Socket:
		return OtherSocket
	case a.Core == b.Core:
		return SMTSibling
	case a.LLC != b.LLC:
		return OtherLLC
	}
	return SameLLC
}

// Pairs returns one pair of CPU ids per class present, the lowest ids first.
func (t Topology) Pairs() map[PairClass][2]int {
	out := map[PairClass][2]int{}
	for i, a := range t.CPUs {
		for _, b := range t.CPUs[i+1:] {
			if _, ok := out[t.Class(a, b)]; !ok {
				out[t.Class(a, b)] = [2]int{a.ID, b.ID}
			}
		}
	}
	return out
}

// Shape returns sockets, cores per socket and threads per core, as a profile
// gives them (the largest socket and core when the machine is uneven).
func (t Topology) Shape() (sockets, coresPerSocket, threadsPerCore int) {
	cores := map[[2]int]int{} // (socket, core) → threads
	perSocket := map[int]int{}
	for _, c := range t.CPUs {
		k := [2]int{c.Socket, c.Core}
		if cores[k] == 0 {
			perSocket[c.Socket]++
		}
		cores[k]++
	}
	for _, n := range cores {
		threadsPerCore = max(threadsPerCore, n)
	}
	for _, n := range perSocket {
		coresPerSocket = max(coresPerSocket, n)
	}
	return len(perSocket), coresPerSocket, threadsPerCore
}

// CoresPerLLC returns how many physical cores share the first CPU's
// last-level cache, and whether /sys said.
func (t Topology) CoresPerLLC() (int, bool) {
	first := t.CPUs[0]
	if first.LLC < 0 {
		return 0, false
	}
	cores := map[int]bool{}
	for _, c := range t.CPUs {
		if c.Socket == first.Socket && c.LLC == first.LLC {
			cores[c.Core] = true
		}
	}
	return len(cores), true
}

// ReadTopology reads the online CPUs from fsys, a view of
// /sys/devices/system/cpu.
func ReadTopology(fsys fs.FS) (Topology, error) {
	online, err := readList(fsys, "online")
	if err != nil {
		return Topology{}, err
	}
	var t Topology
	for _, id := range online {
		dir := fmt.Sprintf("cpu%d/", id)
		c := CPU{ID: id, LLC: -1}
		if c.Socket, err = readInt(fsys, dir+"topology/physical_package_id"); err != nil {
			return t, err
		}
		if c.Core, err = readInt(fsys, dir+"topology/core_id"); err != nil {
			return t, err
		}
		c.LLC = lastLevelCache(fsys, dir)
		t.CPUs = append(t.CPUs, c)
	}
	if len(t.CPUs) == 0 {
		return t, fmt.Errorf("%s: no CPU online", "online")
	}
	// Without cache information, one socket is taken to be one LLC group.
	for i := range t.CPUs {
		if t.CPUs[i].LLC < 0 {
			t.CPUs[i].LLC = -1 - t.CPUs[i].Socket
		}
	}
	return t, nil
}

// lastLevelCache returns the lowest CPU sharing cpu's highest-level unified
// cache, or -1.
func lastLevelCache(fsys fs.FS, dir string) int {
	best, group := 0, -1
	for i := 0; ; i++ {
		idx := fmt.Sprintf("%scache/index%d/", dir, i)
		level, err := readInt(fsys, idx+"level")
		if err != nil {
			return group
		}
		typ, _ := fs.ReadFile(fsys, idx+"type")
		shared, err := readList(fsys, idx+"shared_cpu_list")
		if err != nil || strings.TrimSpace(string(typ)) != "Unified" || level <= best || len(shared) == 0 {
			continue
		}
		best, group = level, slices.Min(shared)
	}
}

func readInt(fsys fs.FS, name string) (int, error) {
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return 0, err
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 0, fmt.Errorf("%s: %q is not a number", name, strings.TrimSpace(string(b)))
	}
	return n, nil
}

// readList reads a CPU list such as "0-3,8,10-11".
func readList(fsys fs.FS, name string) ([]int, error) {
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, err
	}
	return ParseCPUList(strings.TrimSpace(string(b)))
}

// ParseCPUList parses the kernel's CPU list format ("0-3,8,10-11").
func ParseCPUList(s string) ([]int, error) {
	var out []int
	if s == "" {
		return out, nil
	}
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		b := a
		if err == nil && isRange {
			b, err = strconv.Atoi(hi)
		}
		if err != nil || a < 0 || b < a || b-a > 1<<16 {
			return nil, fmt.Errorf("CPU list %q: %q is not a CPU or a range lo-hi", s, part)
		}
		for i := a; i <= b; i++ {
			out = append(out, i)
		}
	}
	return out, nil
}
