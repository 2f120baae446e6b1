package sim

import (
	"cmp"
	"math/bits"
	"slices"
)

// Sorter sorts values by a time of theirs, stably: values of equal times
// keep their order. It keeps its scratch space from one sort to the next,
// so sorting allocates nothing once it has grown.
//
// Models sort batches of what happens next (a write wakes every core that
// spins on its line, each at a time of its own) in one go, rather than push
// each into a heap. The times of a batch lie close together, so a radix
// sort of their offsets from the earliest, a byte at a time, does it in a
// few passes without a comparison, where a comparison sort would mispredict
// about every other branch.
type Sorter[T any] struct {
	At func(*T) Time // the time a value sorts by
	// Scratch: the values' times, their order and the next, and the
	// values in order.
	at        []Time
	idx, next []int32
	spare     []T
}

// maxRadixPasses bounds the span a radix sort takes on: three bytes of
// offset, 16.7 µs. Wider batches are sorted by comparison.
const maxRadixPasses = 3

// Sort sorts s by At, stably, and returns the sorted values: s itself, or
// the sorter's scratch space, which then takes s as its own (the caller
// uses the result in place of s). Cost: O(n) for n values whose times span
// at most 16.7 µs, O(n log n) for others.
func (so *Sorter[T]) Sort(s []T) []T {
	if len(s) < 2 {
		return s
	}
	at := so.at[:0]
	for i := range s {
		at = append(at, so.At(&s[i]))
	}
	so.at = at
	lo, hi := at[0], at[0]
	sorted := true
	for i, t := range at {
		lo, hi = min(lo, t), max(hi, t)
		sorted = sorted && (i == 0 || t >= at[i-1])
	}
	if sorted {
		return s
	}
	passes := (bits.Len64(uint64(hi-lo)) + 7) / 8
	if passes > maxRadixPasses || len(s) < 24 || len(s) > 1<<31-1 {
		slices.SortStableFunc(s, func(a, b T) int { return cmp.Compare(so.At(&a), so.At(&b)) })
		return s
	}
	idx := slices.Grow(so.idx[:0], len(s))[:len(s)]
	next := slices.Grow(so.next[:0], len(s))[:len(s)]
	for i := range idx {
		idx[i] = int32(i)
	}
	for p := range passes {
		shift := uint(8 * p)
		var count [257]int32
		for _, i := range idx {
			count[1+uint64(at[i]-lo)>>shift&0xff]++
		}
		for d := 1; d < len(count); d++ {
			count[d] += count[d-1]
		}
		for _, i := range idx {
			d := uint64(at[i]-lo) >> shift & 0xff
			next[count[d]] = i
			count[d]++
		}
		idx, next = next, idx
	}
	so.idx, so.next = idx, next
	out := slices.Grow(so.spare[:0], len(s))[:len(s)]
	for k, i := range idx {
		out[k] = s[i]
	}
	so.spare = s
	return out
}
