package figures

import (
	"math"
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
