package sim_test

import (
	"cmp"
	"math/rand"
	"slices"
	"testing"

	"contend/sim"
)

type stamped struct {
	at sim.Time
	id int
}

// Sorter sorts as a stable comparison sort does, whatever the batch: few
// values or many, times close together or far apart, sorted already or
// with many equal.
func TestSorterMatchesStableSort(t *testing.T) {
	r := rand.New(rand.NewSource(9))
	so := sim.Sorter[stamped]{At: func(s *stamped) sim.Time { return s.at }}
	var buf []stamped
	for trial := range 2000 {
		n := r.Intn(300)
		span := []sim.Time{1, 50, 255, 256, 70 * sim.Nanosecond, 16 * sim.Microsecond, sim.Millisecond}[trial%7]
		base := sim.Time(r.Int63n(int64(sim.Second)))
		in := buf[:0]
		for i := range n {
			in = append(in, stamped{at: base + sim.Time(r.Int63n(int64(span))), id: i})
		}
		if trial%11 == 0 {
			slices.SortFunc(in, func(a, b stamped) int { return cmp.Compare(a.at, b.at) })
		}
		want := slices.Clone(in)
		slices.SortStableFunc(want, func(a, b stamped) int { return cmp.Compare(a.at, b.at) })
		got := so.Sort(in)
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d: %d values over %v: sorted %v, want %v", trial, n, span, got, want)
		}
		buf = got
	}
}
