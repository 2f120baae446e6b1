package sim

import (
	"math"
	"math/rand/v2"
)

// Rand is a seeded random source. Every model receives one; nothing in contend
// uses a global source, so a seed fixes a run.
//
// A jittered run draws on every step. The generator fills a block of
// values at a time and a draw takes the next one, which keeps a draw small
// enough for the compiler to inline into the step that draws. Every draw,
// through Float64, Centered or rand.Rand (IntN, Exp), takes the next value
// of the one stream: the values and their order are math/rand/v2's for the
// same PCG, whatever mix of calls reads them.
type Rand struct {
	// last is the index in block of the value drawn last. It counts 1, 2,
	// …, 255, 0 through a block, wrapping as a byte does, so a draw needs
	// no bounds check and only a last of 0 means the block is used up.
	last  uint8
	block [256]uint64
	// centered holds what Centered returns for each value of block,
	// worked out with the block: a step that draws then waits for one
	// load, not for a conversion and two float operations.
	centered [256]float64
	pcg      rand.PCG
	r        *rand.Rand
}

// NewRand returns a source for seed. Stream separates independent sources
// drawn from one seed (one per replication, say).
func NewRand(seed, stream uint64) *Rand {
	r := &Rand{}
	r.pcg.Seed(seed, stream^0x9e3779b97f4a7c15)
	r.r = rand.New((*blockSource)(r))
	return r
}

// Float64 returns a uniform value in [0, 1), computed as math/rand/v2's
// Float64 computes it.
func (r *Rand) Float64() float64 {
	if r.last == 0 {
		r.refill()
	}
	r.last++
	return unit(r.block[r.last])
}

// Centered returns a uniform value in [-1, 1): 2u-1 for the u that Float64
// would have returned, which it gives exactly (u has 53 bits).
func (r *Rand) Centered() float64 {
	if r.last == 0 {
		r.refill()
	}
	r.last++
	return r.centered[r.last]
}

// unit maps a value of the stream to [0, 1) as math/rand/v2's Float64 does:
// its low 53 bits, scaled.
func unit(v uint64) float64 { return float64(v<<11>>11) / (1 << 53) }

// refill makes the next block, in the order the draws read it: from
// index 1 up, index 0 last.
func (r *Rand) refill() {
	for i := 1; i <= len(r.block); i++ {
		v := r.pcg.Uint64()
		r.block[uint8(i)] = v
		r.centered[uint8(i)] = 2*unit(v) - 1
	}
}

// blockSource is the rand.Source that rand.Rand draws through: the next
// value, taken as Float64 and Centered take it (they do not call it: that
// would take them over the compiler's budget for inlining).
type blockSource Rand

func (s *blockSource) Uint64() uint64 {
	r := (*Rand)(s)
	if r.last == 0 {
		r.refill()
	}
	r.last++
	return r.block[r.last]
}

// IntN returns a uniform value in [0, n).
func (r *Rand) IntN(n int) int { return r.r.IntN(n) }

// Exp returns an exponentially distributed duration with the given mean.
func (r *Rand) Exp(mean Time) Time {
	if mean <= 0 {
		return 0
	}
	return Time(math.Round(r.r.ExpFloat64() * float64(mean)))
}
