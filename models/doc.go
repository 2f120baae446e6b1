// Package models builds kernel mechanisms from cores and cache lines.
//
// # Mechanisms
//
// Spinlocks (ticket, MCS, qspinlock and its NUMA-aware CNA slow path,
// test-and-set, test-and-test-and-set; each a file that opens with the kernel
// source it follows), rwlocks and sleeping mutexes are state on cache
// lines: acquiring is an atomic on the lock word, waiting is spinning on a
// line until a release invalidates it, so their cost under contention comes
// from package cacheline's queueing rather than from a constant. What an atomic or a spinner's read finds is decided when it is
// served at the line, not when the core issues it. Counters are stores and
// atomics on shared or per-cpu lines, a percpu_counter folds a CPU's delta
// into the shared count once it reaches the batch, and the per-jiffy lazy
// forms of seed 004 gate a block of steps on the jiffies clock. The
// primitives built on them are files of their own, each opening with the
// kernel source it follows: cmpxchg loops and lockref (cmpxchg.go,
// lockref.go), seqcount and seqlock (seqlock.go), refcount_t and
// percpu_ref (refcount.go, percpu_ref.go), rw_semaphore and
// percpu_rw_semaphore (rwsem.go, percpu_rwsem.go), SRCU and the RCU Tasks
// Trace read side (srcu.go).
// RCU follows kernel/rcu/tree.c: a CPU's tick asks for a grace period, a
// kthread starts it and scans for idle CPUs on jiffies (force-quiescent-state
// delays from HZ and nr_cpu_ids), busy CPUs report at their ticks, and
// callbacks run at their CPU's tick after the end (a callback's own steps,
// dst_destroy's atomics, on that CPU before its next packet); Kernel presets
// follow what changed between versions (kfree_rcu batching, wake-from-GP,
// lazy call_rcu) and turn on what makes a real grace period last: the
// kthread's timeouts on the jiffy timer wheel, its walks of the rcu_node
// tree, and its CPU; callback offloading (rcuog, rcuop) and idle CPUs' own
// wake-ups are switches of their own.
//
// # Workloads
//
// A World holds one machine and its mechanisms. Workloads drive its cores: a
// packet flood (closed loop, or open loop at an offered rate with drops), a
// batch of control-plane operations on one CPU, or both at once. Faults in a
// program (unlocking a lock not held, sleeping under a spinlock, a deadlock)
// stop the run with an error that names the program, the step and the time.
package models
