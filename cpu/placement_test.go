package cpu_test

import (
	"slices"
	"testing"

	"contend/cpu"
)

// On 2 sockets of 4 cores with 2 threads (CPU i is thread i/8 of core i%8,
// cores 0-3 on socket 0): smt-last is Linux's numbering, compact pairs each
// core's threads, spread alternates sockets before it uses a second core of
// either, and siblings come last.
func TestPlacementOrders(t *testing.T) {
	p := cpu.Profile{Name: "t", GHz: 2, Sockets: 2, CoresPerSocket: 4, ThreadsPerCore: 2}
	m, err := cpu.NewMachine(p, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		p    cpu.Placement
		want []int
	}{
		{cpu.SMTLast, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}},
		{cpu.Compact, []int{0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15}},
		{cpu.Spread, []int{0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15}},
	} {
		if got := m.Topology().Order(tc.p); !slices.Equal(got, tc.want) {
			t.Errorf("%v: %v, want %v", tc.p, got, tc.want)
		}
	}
	// With two LLC groups a socket (an AMD CCX of 2 cores), spread also
	// alternates groups: socket 0 group 0, socket 1 group 2, socket 0
	// group 1, socket 1 group 3, then the second core of each.
	p.CoresPerLLC = 2
	m, err = cpu.NewMachine(p, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := m.Topology().Order(cpu.Spread)[:8], []int{0, 4, 2, 6, 1, 5, 3, 7}; !slices.Equal(got, want) {
		t.Errorf("spread with LLC groups: %v, want %v", got, want)
	}
}

func TestParseCPUList(t *testing.T) {
	got, err := cpu.ParseCPUList("0-3, 8-9,12")
	if err != nil || !slices.Equal(got, []int{0, 1, 2, 3, 8, 9, 12}) {
		t.Errorf("0-3, 8-9,12: %v, %v", got, err)
	}
	for _, bad := range []string{"", "3-1", "a", "1,1", "-1", "0-99999"} {
		if _, err := cpu.ParseCPUList(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
