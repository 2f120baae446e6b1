// Package cacheline models cache lines and the coherence traffic between cores.
//
// # State and cost
//
// A Line has either one owner (Modified/Exclusive) or a set of sharers. A load
// of a line the core holds is an L1 hit; otherwise the line is fetched from
// wherever it is, at a latency set by the distance between the two cores (SMT
// sibling, same socket, other socket, memory). A store or atomic read-modify-
// write needs ownership: it invalidates the sharers and pulls the line. Per-cpu
// lines exist once per core and never move.
//
// # Contention
//
// A line serves one transfer at a time. A request that arrives while the line is
// busy waits until the transfers queued before it are done, so N cores hammering
// one line serialize and the waiting grows with N: contention is this queueing,
// never a fixed penalty. Every line counts its transfers, invalidations, HITM-like
// transfers of a modified line, queueing delay and accesses by core, which is
// what a simulated `perf c2c` reads.
package cacheline
