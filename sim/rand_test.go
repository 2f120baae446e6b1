package sim_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"contend/sim"
)

// Rand draws the stream math/rand/v2 draws from the same PCG: Float64 and
// Centered read blocks it generates itself, IntN and Exp go through
// rand.Rand, and mixing them must not shift either. Every recorded output
// depends on this stream.
func TestRandIsMathRandStream(t *testing.T) {
	for _, seed := range []uint64{0, 1, 42} {
		for _, stream := range []uint64{0, 3} {
			got := sim.NewRand(seed, stream)
			want := rand.New(rand.NewPCG(seed, stream^0x9e3779b97f4a7c15))
			for i := range 3000 {
				switch i % 4 {
				case 0:
					if g, w := got.Float64(), want.Float64(); g != w {
						t.Fatalf("seed %d stream %d draw %d: Float64 = %v, want %v", seed, stream, i, g, w)
					}
				case 3:
					if g, w := got.Centered(), 2*want.Float64()-1; g != w {
						t.Fatalf("seed %d stream %d draw %d: Centered = %v, want %v", seed, stream, i, g, w)
					}
				case 1:
					if g, w := got.IntN(1000), want.IntN(1000); g != w {
						t.Fatalf("seed %d stream %d draw %d: IntN = %d, want %d", seed, stream, i, g, w)
					}
				default:
					const mean = sim.Microsecond
					w := sim.Time(math.Round(want.ExpFloat64() * float64(mean)))
					if g := got.Exp(mean); g != w {
						t.Fatalf("seed %d stream %d draw %d: Exp = %v, want %v", seed, stream, i, g, w)
					}
				}
			}
		}
	}
}
