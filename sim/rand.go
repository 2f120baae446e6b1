package sim

import (
	"math"
	"math/bits"
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
	state    u128 // the generator's (see refill)
	r        *rand.Rand
}

// NewRand returns a source for seed. Stream separates independent sources
// drawn from one seed (one per replication, say).
func NewRand(seed, stream uint64) *Rand {
	r := &Rand{state: u128{seed, stream ^ 0x9e3779b97f4a7c15}} // rand.NewPCG(seed, stream^…)
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
// index 1 up, index 0 last. It steps math/rand/v2's PCG (a 128-bit LCG with
// the DXSM output, and its constants) itself, with the state in registers,
// which the library's method, stepping a struct in memory, does not allow;
// the stream's tests hold it to the library's.
func (r *Rand) refill() {
	// Two interleaved chains, each two steps of the LCG at a time, so that
	// one value's multiplications need not wait for the previous one's.
	mul2, inc2 := pcgMul2, pcgInc2
	even := pcgMul.times(r.state).plus(pcgInc)
	odd := pcgMul.times(even).plus(pcgInc)
	for i := 1; ; i += 2 {
		r.put(uint8(i), even.dxsm())
		r.put(uint8(i+1), odd.dxsm())
		if i+2 > len(r.block) {
			break
		}
		even = mul2.times(even).plus(inc2)
		odd = mul2.times(odd).plus(inc2)
	}
	r.state = odd
}

// put stores v, the stream's value, and what Centered returns for it at i.
func (r *Rand) put(i uint8, v uint64) {
	r.block[i] = v
	// 2u-1 = (k - 2^52) / 2^52 for u = k / 2^53, exactly.
	r.centered[i] = float64(int64(v<<11>>11)-1<<52) / (1 << 52)
}

// u128 is a 128-bit unsigned integer, the PCG's state.
type u128 struct{ hi, lo uint64 }

func (x u128) times(y u128) u128 {
	hi, lo := bits.Mul64(x.lo, y.lo)
	return u128{hi + x.hi*y.lo + x.lo*y.hi, lo}
}

func (x u128) plus(y u128) u128 {
	lo, c := bits.Add64(x.lo, y.lo, 0)
	hi, _ := bits.Add64(x.hi, y.hi, c)
	return u128{hi, lo}
}

// dxsm is the PCG's output for the state x (DXSM, "double xorshift
// multiply").
func (x u128) dxsm() uint64 {
	const cheapMul = 0xda942042e4dd58b5
	h := x.hi
	h ^= h >> 32
	h *= cheapMul
	h ^= h >> 48
	return h * (x.lo | 1)
}

// math/rand/v2's PCG steps its state s to s*pcgMul + pcgInc; two steps are
// s*pcgMul2 + pcgInc2.
var (
	pcgMul  = u128{2549297995355413924, 4865540595714422341}
	pcgInc  = u128{6364136223846793005, 1442695040888963407}
	pcgMul2 = pcgMul.times(pcgMul)
	pcgInc2 = pcgMul.plus(u128{0, 1}).times(pcgInc)
)

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
