package sim

import (
	"math"
	"math/rand/v2"
)

// Rand is a seeded random source. Every model receives one; nothing in contend
// uses a global source, so a seed fixes a run.
type Rand struct {
	r *rand.Rand
}

// NewRand returns a source for seed. Stream separates independent sources
// drawn from one seed (one per replication, say).
func NewRand(seed, stream uint64) *Rand {
	return &Rand{r: rand.New(rand.NewPCG(seed, stream^0x9e3779b97f4a7c15))}
}

// Float64 returns a uniform value in [0, 1).
func (r *Rand) Float64() float64 { return r.r.Float64() }

// IntN returns a uniform value in [0, n).
func (r *Rand) IntN(n int) int { return r.r.IntN(n) }

// Exp returns an exponentially distributed duration with the given mean.
func (r *Rand) Exp(mean Time) Time {
	if mean <= 0 {
		return 0
	}
	return Time(math.Round(r.r.ExpFloat64() * float64(mean)))
}
