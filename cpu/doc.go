// Package cpu models the cores of a machine and runs programs on them.
//
// # Hardware
//
// A Profile describes one machine: clock, sockets, cores, SMT, the latency of a
// cache-line transfer at each distance, and the cost of an uncontended atomic
// together with the fraction of it that out-of-order execution hides behind the
// work that follows. A store issues into the core's store buffer in a cycle
// and the core goes on; it commits once its line is there, and an atomic or
// a fence waits for the buffer to drain. An atomic asks for its line while
// the stores before it drain, unless another core spins reading that line:
// the spinner would take a line fetched early back before the atomic could
// execute (see Core.access). The other way round, a store whose address is
// known asks for its line while an atomic before it waits for its own, and
// commits after the atomic (Core.PrefetchW): a store within the reorder
// window behind an atomic step, past work only, or a step that begins with
// a store (Storer, an unlock). Topology numbers logical CPUs the
// way Linux usually does: every physical core first, then their SMT siblings.
//
// # Which loop of contend calibrate sets each field
//
// GHz: work50 (a unit of work is 4 cycles). L1Hit, LLCHit, Memory: dependent
// loads through 16 KiB, 4 MiB and 64 MiB. Atomic: add on an owned line;
// AtomicOverlap: add-work10 against work10; StoreDrain: store-add.
// SameSocket (or the distance of the pair the machine has): the ping-pong
// round trip, read as one transfer a pass when Migrate and as two otherwise.
// Migrate: the readers loop against that ping-pong (hostbench's
// loadModified). Window: the 2-thread add. MissOverlap: the 2-thread add
// with 10 units of work after each add (add-work50 at two threads is then a
// prediction), where RunAhead was not timed; RunAhead: the timed rmw-work
// loop with 20 units of work, what it hid over the work's time (both
// 2-thread adds with work are then predictions). ReorderReach: the timed
// rmw-work loops (an atomic on a line the other CPU just wrote, then 20 or
// 100 units of work, against the atomic and the work timed alone), where the
// 100 units hid more than the 20 and less than the work and the wait.
// LoadAfterAtomic: shared-load-add on one CPU (a load of the counter, then
// an add on it) against add; the same loop at two threads, a load followed
// by an atomic on a contended line (one transfer when Migrate), is then a
// prediction. StoreAfterAtomic: add-store-line (an add, then a store to
// another word of its line) against add; the uncontended ticket and
// test-and-set loops, whose unlock is such a store, are then predictions.
// Calibrate's ticket-bare and mcs-bare loops check a lock's
// hand-over without the critical section the ticket and mcs loops hold, and
// ticket-store one whose section only stores (the unlock's store then
// commits behind a store that waits for its line). SpinClear: no calibrate
// loop (a 2-vCPU guest has no SMT pair); a workload that spins tight takes
// DefaultSpinClearCycles, fitted to perfbook's hyper-thread CAS rows.
// Pause: a loop of PAUSE;
// Wakeup: half a pipe round trip. Published profiles take the same fields
// from core-to-core tables (a CAS ping-pong's one-way time is SameSocket).
//
// # Programs and accounting
//
// A Core runs a Program, a list of Steps, in a loop driven by a Driver (closed
// loop, open loop or batch, defined by package models). Steps here are compute
// and memory accesses; models adds locks, RCU and the rest through the same Step
// interface. Every picosecond a core spends is charged to a label (a kernel
// symbol such as `_raw_spin_lock`) and a state (work, coherence stall, spin,
// sleep, idle), which is what the simulated `perf report` and off-CPU profiles
// read. A core decodes its program when it is loaded and runs the steps that
// touch nothing another core sees back to back, ahead of the engine's clock
// (at most Lookahead), and so are its loads of a read-only line it holds; a
// step on a shared line waits for an event of its own. A core spinning on a
// line with SpinRereads (a ticket lock's waiter) has the reads a write to
// the line sends it served by the machine, with every other spinner's, in
// time order and before the engine's next event, in one event: only the
// core whose read finds its turn wakes.
package cpu
