package scenarios

import "testing"

// The edit distance against hand-counted cases: a swap of neighbours is one
// edit, so a typo of "lock" is nearer "lock" than "load".
func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"lock", "lock", 0}, {"", "abc", 3}, {"lokc", "lock", 1}, {"lokc", "load", 2},
		{"kitten", "sitting", 3}, {"ca", "abc", 3}, {"unlcok", "unlock", 1}, {"stroe", "store", 1},
	} {
		if got := EditDistance(tc.a, tc.b); got != tc.want {
			t.Errorf("EditDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := EditDistance(tc.b, tc.a); got != tc.want {
			t.Errorf("EditDistance(%q, %q) = %d, want %d (it is symmetric)", tc.b, tc.a, got, tc.want)
		}
	}
}
