package models

import (
	"fmt"
	"testing"
)

// Hand-worked expiries from calc_wheel_index() and calc_index(): level 0
// (deltas under 63) fires one jiffy after expiry; level n rounds the
// expiry up past a multiple of 8^n.
func TestWheelFiresByHand(t *testing.T) {
	for _, tc := range []struct {
		now, timeout, hz int
		want             int64
	}{
		{0, 1, 250, 2}, {10, 1, 250, 12}, {10, 5, 250, 16}, {0, 62, 250, 63},
		{0, 63, 250, 64},     // level 1: (63 >> 3) + 1 = 8, << 3
		{5, 100, 250, 112},   // level 1: (105 >> 3) + 1 = 14, << 3
		{0, 600, 1000, 640},  // level 2: (600 >> 6) + 1 = 10, << 6
		{0, 2500, 250, 2560}, // LAZY_FLUSH_JIFFIES at HZ=250: level 2
	} {
		if got := wheelFires(int64(tc.now), int64(tc.timeout), tc.hz); got != tc.want {
			t.Errorf("armed at jiffy %d for %d: fires at %d, want %d", tc.now, tc.timeout, got, tc.want)
		}
	}
}

// The wheel's contract (the comment on its levels in timer.c): a timer
// never fires at or before its expiry, and late by at most one granule of
// its level, which is at most an eighth of the timeout past level 0.
func TestWheelNeverEarlyAtMostAGranuleLate(t *testing.T) {
	for now := int64(0); now < 600; now += 37 {
		for timeout := int64(1); timeout < 40000; timeout += 1 + timeout/9 {
			fires := wheelFires(now, timeout, 1000)
			late := fires - (now + timeout)
			if late < 1 || (timeout >= lvlStart(1) && float64(late) > float64(timeout)/7) || (timeout < lvlStart(1) && late != 1) {
				t.Fatalf("armed at %d for %d: fires %d jiffies after expiry", now, timeout, late)
			}
		}
	}
}

// rcu_init_geometry() by hand: one leaf up to 16 CPUs, then a root over
// ceil(n/16) leaves up to 1024, then a third level.
func TestGeometryByHand(t *testing.T) {
	for _, tc := range []struct {
		ncpus  int
		levels string
		nodes  int
	}{
		{1, "[1]", 1}, {16, "[1]", 1}, {17, "[1 2]", 3}, {64, "[1 4]", 5}, {256, "[1 16]", 17},
		{512, "[1 32]", 33}, {1024, "[1 64]", 65}, {1025, "[1 2 65]", 68},
	} {
		g := geometry(tc.ncpus)
		if got := fmt.Sprint(g.levels); got != tc.levels || g.nodes != tc.nodes {
			t.Errorf("%d CPUs: levels %s, %d nodes; want %s, %d", tc.ncpus, got, g.nodes, tc.levels, tc.nodes)
		}
	}
}
