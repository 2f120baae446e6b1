package sim

import (
	"math"
	"math/rand/v2"
)

// Rand is a seeded random source. Every model receives one; nothing in contend
// uses a global source, so a seed fixes a run.
type Rand struct {
	// A jittered run draws on every step: Float64 calls pcg itself, which
	// the compiler inlines, where r would call it through its Source
	// interface. Both draw from the one stream.
	pcg *rand.PCG
	r   *rand.Rand
}

// NewRand returns a source for seed. Stream separates independent sources
// drawn from one seed (one per replication, say).
func NewRand(seed, stream uint64) *Rand {
	pcg := rand.NewPCG(seed, stream^0x9e3779b97f4a7c15)
	return &Rand{pcg: pcg, r: rand.New(pcg)}
}

// Float64 returns a uniform value in [0, 1), computed as math/rand/v2's
// Float64 computes it.
func (r *Rand) Float64() float64 { return float64(r.pcg.Uint64()<<11>>11) / (1 << 53) }

// IntN returns a uniform value in [0, n).
func (r *Rand) IntN(n int) int { return r.r.IntN(n) }

// Exp returns an exponentially distributed duration with the given mean.
func (r *Rand) Exp(mean Time) Time {
	if mean <= 0 {
		return 0
	}
	return Time(math.Round(r.r.ExpFloat64() * float64(mean)))
}
