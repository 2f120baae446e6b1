// Package cacheline models cache lines and the coherence traffic between cores.
//
// # States
//
// Each line is, for every core, Modified or Exclusive (the core is its owner),
// Shared (the core is a sharer), or Invalid; at most one owner, and never an
// owner and sharers at once. A line has a home (its LLC slice, or directory)
// that takes the requests for it in order of arrival. Who serves a Shared
// line is the vendor's protocol (Forward): with ForwardLLC (Intel's MESIF)
// the LLC keeps a copy of a line that is Shared, so a sharer in the
// requester's LLC group means the LLC can serve it; with ForwardOwner (AMD's
// MOESI, whose L3 is a victim cache) the owner that first shared the line
// keeps it Owned and forwards it to every later reader, core to core. Cores are placed by a Topology in sockets, LLC groups (an
// AMD CCX; one per socket on Intel) and physical cores (SMT siblings); the
// distance between two cores is SMTSibling, SameSocket (same LLC group),
// OtherLLC or OtherSocket.
//
// # What an access costs
//
// A hit completes at once (the core charges the instruction). A miss starts
// when the home has finished the requests before it (start = max(now, free))
// and completes a latency later. The latencies are indexed by where the miss
// is served from; d(a, b) is the distance between cores a and b, far the
// largest distance from the requester to a sharer other than itself.
//
//	request  state of the line                   served from   home busy until  after
//	load     Modified/Exclusive at core o        d(o, me)      done             o (forwarder) and me Shared
//	load     Shared, forwarded by f (MOESI)      d(f, me)      start+occupancy  me Shared too
//	load     Shared, a sharer in my LLC group    LLC           start+occupancy  me Shared too
//	load     Shared, no sharer in my LLC group   nearest d     start+occupancy  me Shared too
//	load     Invalid everywhere                  Memory        start+occupancy  me Exclusive
//	store,   Modified/Exclusive at core o        d(o, me)      done+hold        me Modified
//	RMW,     Shared elsewhere (me too or not)    far           done+hold        me Modified, others Invalid
//	load-own Shared by me alone                  LLC           done+hold        me Modified
//	         Invalid everywhere                  Memory        done+hold        me Modified
//
// A load-own is a load of a line the core stores to next (x++): the core
// reads it for ownership, so the store after it hits: on the EPYC guest
// contend calibrate runs on, a load and a store of a line another core holds
// modified cost what the load alone does, one transfer, not a read and then
// an upgrade.
//
// With Migrate (a machine whose calibrate readers loop says so), a load of
// a line modified in another core's cache is served as a request for
// ownership: the reader takes the line Exclusive, and a write it makes next
// hits; a write the old owner makes before the snoop reaches it turns the
// read that is under way into such a migration too.
//
// An owner that loses the line, or its exclusive right to it, keeps the line
// as it was until the home's snoop reaches it, a fraction (Snoop) of the
// transfer after the request starts (of that transfer's own time, jitter
// included: the snoop travels the same path), or with Window set, Window
// after the home takes the request up, never past the transfer's end (a
// property of the core, which calibrate's 2-thread add measures): its own
// accesses before then are hits
// (and a locked one must also finish by then), so an owner issuing atomics
// back to back is not robbed of the line on every one. The window is each
// owner's own: when several requests queue, the ones behind a core's are
// taken up before that core even has the line, and it keeps its window all
// the same, so a cmpxchg that fails and is retried at once finds the line
// still there however long the queue. A plain store is the
// exception when the request asks to own the line: it leaves the store
// buffer after the snoop has come. On the EPYC guest contend calibrate runs
// on, two threads adding to one counter do about ten adds each time the line
// comes (80 M adds/s where a transfer takes about 130 ns) and a
// test-and-test-and-set lock is taken 17-21 M times a second, several times
// a transfer, but a ticket lock, whose next holder already waits with its
// ticket, changes hands on every release (1.00 to 1.08 acquisitions a
// turn, recorded).
//
// A watcher (a spinning core) notices that its copy is gone when the
// writer has the line: the snoop came while the line travelled. With
// SiblingClear set, a watcher whose SMT sibling wrote the line notices
// SiblingClear after the write lands (the atomic executed, the store
// committed) instead: the siblings share the L1, no snoop comes ahead of
// the write, and a spinner with no PAUSE in its loop throws away the reads
// it ran ahead (a memory-ordering machine clear) before it reads again. On
// perfbook's 8176 and i7-8750H a CAS pass between hyper-threads that waits
// with loads costs 2.5 of one that spins on the CAS (18.0 and 16.2 ns
// against 7.2 and 6.5); without the clear the model had it 1.2.
//
// The window is also a count: with Write set (the core's atomic), the owner
// makes no more writes in it than the atomics that fit in its time (at least
// one). What the 2-thread add measures is adds a visit; a
// test-and-test-and-set holder that re-takes the lock writes twice a turn
// (its CAS and its unlock's store), and on the Intel guest's records it was
// predicted up to 59% too fast while its critical section ran under its
// atomic and the window was time alone (+1..+20% with the count).
//
// Every request a home serves can be traced (System.Trace; contend explain
// --trace lists them): who asked, when, how long it queued, how long the
// transfer took, where the line came from and whether it was modified.
//
// Every ownership request invalidates all the other copies in one
// broadcast, whose cost is that of the farthest one, and wakes the cores
// watching the line (spinners) when it completes, in the order they started
// watching. A line no access of the run writes can be marked read-only
// (MarkReadOnly): its copies are never taken, so a load of one a core holds
// hits whenever it is made.
//
// # Contention
//
// Ownership requests of one line are served one at a time, and reads served by
// the home take its occupancy each: N cores hammering one line queue at its
// home, and the waiting grows with N. Contention is this queueing, never a
// fixed penalty. Every line counts its transfers, invalidations, HITM-like
// transfers of a modified line, queueing delay, accesses by core and the
// time its home is busy (Stats.Busy: the share of a run near 100% marks the
// bottleneck), which is what a simulated `perf c2c` reads. Per-cpu lines exist once per core and
// never move.
package cacheline
