// Package hostbench measures the machine contend runs on, to make a hardware
// profile from it: uncontended atomics, the part of an atomic that independent
// work hides, the store-buffer drain a locked instruction waits for, CAS
// ping-pong between CPU pairs, contended and falsely shared counters, ticket
// (with a plain increment in the critical section, and with a CAS),
// test-and-set and MCS locks written in Go, dependent loads (L1 and memory),
// a PAUSE spin iteration, a thread wake-up, single accesses of a line in a
// known state timed with the time-stamp counter (amd64), and, timed the
// same way, what of the work after an atomic that waits for its line runs
// meanwhile (the reorder window). Threads are
// pinned one per CPU and timed with the monotonic clock; every figure is a
// median over repeated samples, with its interquartile range and sample
// count. The work and atomic
// loops of one CPU are sampled in interleaved rounds, so that a burst of noise on the host
// spreads over all of them instead of spoiling one.
//
// # Testing without the host
//
// The loops run behind the Machine interface: Host runs them on this machine,
// Simulated on contend's own model of a profile, and tests give the driver
// machines whose costs are known, so the repetition, statistics, the
// derivation of profile values and the check are verified against closed
// forms and against the model itself rather than against host speed. Unlike the model
// packages this one reads the clock, pins threads and reads /proc and /sys.
package hostbench
