package figures

import (
	"math"
	"slices"
	"testing"
)

// The interval of 1, 2, 3: mean 2, s = 1, t(0.975, 2) = 4.302653, so the
// half-width is 4.302653/sqrt(3) = 2.484138 (any table of Student's t).
func TestCI95ClosedForm(t *testing.T) {
	got := ci95([]float64{1, 2, 3})
	if got.mean != 2 || math.Abs(got.hi-2-2.484138) > 1e-6 || math.Abs(2-got.lo-2.484138) > 1e-6 {
		t.Fatalf("ci95(1,2,3) = %+v, want 2 ± 2.484138", got)
	}
	if one := ci95([]float64{5}); one != (stats{5, 5, 5}) {
		t.Fatalf("one replication: %+v, want no interval", one)
	}
}

// Lines drawn on top of each other are one, named for every variant it
// stands for; a line 2% away at one point stays its own.
func TestCoincidingLines(t *testing.T) {
	lines := []curveLine{
		{name: "a", means: []float64{1, 10, 100}},
		{name: "b", means: []float64{2, 20, 200}},
		{name: "c", means: []float64{1, 10, 100}},
		{name: "d", means: []float64{2.01, 20.1, 199}},
		{name: "e", means: []float64{1, 10.2, 100}},
	}
	leader, names := coincide(lines)
	if want := []int{0, 1, 0, 1, 4}; !slices.Equal(leader, want) {
		t.Errorf("leaders %v, want %v", leader, want)
	}
	for i, want := range map[int]string{0: "a = c (identical predictions)", 1: "b ≈ d (predictions within 1%)", 4: "e"} {
		if names[i] != want {
			t.Errorf("line %d named %q, want %q", i, names[i], want)
		}
	}
}
