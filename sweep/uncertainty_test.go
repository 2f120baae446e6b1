package sweep

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Each value's samples fall one in each stratum.
func TestLatinHypercubeStrata(t *testing.T) {
	const n, d = 16, 3
	s := latinHypercube(rand.New(rand.NewPCG(1, 2)), n, d)
	for j := range d {
		seen := make([]bool, n)
		for i := range n {
			k := int(math.Floor(s[i][j] * n))
			if k < 0 || k >= n || seen[k] {
				t.Fatalf("value %d: sample %d (%v) in stratum %d, taken twice or out of range", j, i, s[i][j], k)
			}
			seen[k] = true
		}
	}
}
