// Package sim is the deterministic discrete-event engine under every contend model.
//
// # Time and events
//
// Time is an integer count of picoseconds. An Engine owns a priority queue of
// Events ordered by time and, for equal times, by the order in which they were
// scheduled, so a run is a pure function of its inputs. Events are values owned
// by the model (a core keeps its own), which is what makes scheduling free of
// allocation: Schedule, Cancel and reschedule move a pointer inside the heap.
//
// # Statistics and control
//
// Counters, time-weighted means, log-bucketed histograms and interval rates
// collect what a run reports. Run control covers a discarded warm-up, a stop
// time, cancellation from another goroutine and an observer that receives the
// simulated time every N nanoseconds for streaming. The package does no I/O,
// starts no goroutines and never reads the wall clock; randomness comes only from
// a Rand that the caller seeds.
package sim
