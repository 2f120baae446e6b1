package nb_test

import (
	"fmt"
	"slices"
	"testing"

	"contend/figures"
	"contend/notebooks/nb"
)

// Captions read their numbers with Value: a number matches however it is
// written, and "a|b" matches either word.
func TestValueAndColumn(t *testing.T) {
	f := &figures.Figure{Kind: "scaling", Header: []string{"variant", "x", "kind", "value"}, Rows: [][]string{
		{"locked", "2", "prediction", "4.5"},
		{"locked", "2", "calibrate", "4.6"},
		{"lockless", "2", "validate", "23.5"},
		{"lockless", "16", "prediction", "24"},
	}}
	for _, tc := range []struct {
		where []string
		want  float64
	}{
		{[]string{"variant=locked", "x=2.0", "kind=prediction"}, 4.5},
		{[]string{"variant=locked", "kind=calibrate|validate"}, 4.6},
		{[]string{"variant=lockless", "x=2", "kind=calibrate|validate"}, 23.5},
		{[]string{"x=1.6e1"}, 24},
	} {
		if got := nb.Value(f, "value", tc.where...); got != tc.want {
			t.Errorf("Value(%v) = %v, want %v", tc.where, got, tc.want)
		}
	}
	if got := nb.Column(f, "x"); !slices.Equal(got, []float64{2, 2, 2, 16}) {
		t.Errorf("Column(x) = %v", got)
	}
	if got := nb.Pct(4, 5); got != 25 {
		t.Errorf("Pct(4, 5) = %v, want 25", got)
	}
	if got := fmt.Sprintf("%+.1f", nb.Pct(2316, 2315.99)); got != "+0.0" {
		t.Errorf("a calibrated point prints %s", got)
	}
}
