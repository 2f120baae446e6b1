// Package advise derives what-if variants from one variant of a scenario:
// the design changes a kernel engineer weighs before writing a patch (make a
// shared counter per-cpu, a shared refcount_t a percpu_ref, drop a lock that
// then protects nothing shared, queue the waiters, claim a qspinlock with a
// store, move readers to RCU, defer a free past a grace period, give a lock
// (or a lockref) its own line, split a lock by line; or all that apply, one
// after the other). Each rule, in rules.go,
// transforms the variant's own step list, its call_rcu callbacks included;
// nothing is a canned answer.
//
// # Evidence
//
// A rule sees the base run's simulated perf c2c (which lines more than one
// CPU wrote); At simulates every candidate with the normal run machinery,
// through the runner its caller passes in (Env), and Explain compares the
// c2c counters of base and candidate: which lines stop moving and how many
// transfers per packet go away. Rank orders the rows by gain, or by the
// lower bound of its interval when the profile's spread was sampled. Render
// gives the TOML a scenario file appends to hold the candidates; the rules
// and At do no I/O, and only WriteScenarios (write.go, advise --write)
// writes files: each row as a scenario of its own that contend run takes as
// it is.
package advise
