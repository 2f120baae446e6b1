package hostbench

import (
	"math"
	"sync/atomic"
	"unsafe"
)

// line is a counter alone on its cache line, padded to 128 bytes because
// Intel's adjacent-line prefetcher pulls lines in pairs. Allocated on its own,
// a 128-byte object is 128-byte aligned (Go's size classes).
type line struct {
	v uint64
	_ [120]byte
}

// lcg is one unit of work: a dependent multiply and add, which the core
// cannot overlap with the next unit.
func lcg(x uint64, n int) uint64 {
	for range n {
		x = x*6364136223846793005 + 1442695040888963407
	}
	return x
}

// sink keeps the work's result alive so the compiler cannot drop it.
var sink atomic.Uint64

// shared is the memory one job's threads use.
type shared struct {
	own       []*line // one per thread
	other     []*line // one per thread: StoreAdd's store target
	one       *line   // the contended line
	protected *line   // the lock loops' counter
	// The locks' words are on the contended line (ticketWords, word),
	// where the ping-pong runs.
	// The timed kernels: the second line they hand the turn over on, and
	// the first thread's counts of the time-stamp counter.
	flag   *line
	tsc    tscCounts
	nodes  []mcsNode
	cycle  []uint32 // Chase: index of the next element, one per 64 bytes
	stored *line    // SharedStoreAdd: the line every thread stores to
}

// mcsNode is one waiter's queue node on its own line. Like the kernel's, its
// fields are written with plain stores (WRITE_ONCE) and read with loads;
// Go's atomic stores would be locked XCHGs and measure a different lock.
type mcsNode struct {
	next   uint32 // index+1 of the successor's node, 0: none yet
	locked uint32
	_      [120]byte
}

func newShared(threads int, job Job) *shared {
	s := &shared{one: new(line), protected: new(line), stored: new(line), flag: new(line)}
	for range threads {
		s.own = append(s.own, new(line))
		s.other = append(s.other, new(line))
	}
	s.nodes = make([]mcsNode, threads)
	if job.Kernel == Chase {
		s.cycle = randomCycle(max(job.Bytes/64, 2))
	}
	return s
}

// restart sets the counters a loop counts its turns on back to zero
// before a run, keeping the lines: readers' round numbers, the CAS
// ping-pong's ball and the timed kernels' handshake.
func (s *shared) restart() {
	s.one.v, s.flag.v, s.protected.v, s.tsc = 0, 0, 0, tscCounts{}
	for _, l := range s.own {
		l.v = 0
	}
}

// randomCycle links n slots, 64 bytes apart (16 uint32), in one random cycle
// so that every load depends on the last and the prefetcher cannot guess
// the next. The permutation comes from a fixed LCG: the same every run.
func randomCycle(n int) []uint32 {
	order := make([]uint32, n)
	for i := range order {
		order[i] = uint32(i)
	}
	x := uint64(1)
	for i := n - 1; i > 0; i-- {
		x = lcg(x, 1)
		j := int((x >> 33) % uint64(i+1))
		order[i], order[j] = order[j], order[i]
	}
	cyc := make([]uint32, n*16)
	for i := range order {
		cyc[order[i]*16] = order[(i+1)%n] * 16
	}
	return cyc
}

// loop runs iters iterations of job's kernel as thread t.
func (s *shared) loop(job Job, t, iters int) {
	x := uint64(t + 1)
	w := job.Work
	switch job.Kernel {
	case Work:
		for range iters {
			x = lcg(x, w)
		}
	case Add, Padded:
		p := &s.own[t].v
		for range iters {
			atomic.AddUint64(p, 1)
			x = lcg(x, w)
		}
	case CAS:
		p := &s.own[t].v
		v := atomic.LoadUint64(p)
		for range iters {
			if atomic.CompareAndSwapUint64(p, v, v+1) {
				v++
			}
			x = lcg(x, w)
		}
	case Swap:
		p := &s.own[t].v
		for i := range iters {
			atomic.SwapUint64(p, uint64(i))
			x = lcg(x, w)
		}
	case AddStoreLine:
		// The pattern of an uncontended lock: a test-and-set's CAS and
		// then its unlock, or a ticket's xadd of its tail and then the
		// store of its head, on one line.
		p := &s.own[t].v
		q := (*uint64)(unsafe.Add(unsafe.Pointer(p), 8))
		for i := range iters {
			atomic.AddUint64(p, 1)
			*q = uint64(i)
			x = lcg(x, w)
		}
	case StoreAdd:
		p, q := &s.own[t].v, &s.other[t].v
		for i := range iters {
			*q = uint64(i)
			atomic.AddUint64(p, 1)
			x = lcg(x, w)
		}
	case PingPong:
		s.pingPong(t, iters)
	case PingPongCAS:
		s.pingPongCAS(t, iters)
	case SharedAdd:
		for range iters {
			atomic.AddUint64(&s.one.v, 1)
			x = lcg(x, w)
		}
	case SharedLoadAdd:
		// The kernel's "read, then update" on a contended word
		// (dst_alloc's atomic_read of ops->entries before its
		// atomic_inc): the add waits for the load's line, and whether
		// the load brought it to be owned or only to be read is the
		// machine's, one transfer or two.
		p := &s.one.v
		for range iters {
			if atomic.LoadUint64(p) != math.MaxUint64 {
				atomic.AddUint64(p, 1)
			}
			x = lcg(x, w)
		}
	case SharedStoreAdd:
		q := &s.stored.v
		for i := range iters {
			*q = uint64(i)
			atomic.AddUint64(&s.one.v, 1)
			x = lcg(x, w)
		}
	case FalseShare:
		// Words 8 bytes apart on one line; at most 16 threads share it.
		p := (*uint64)(unsafe.Add(unsafe.Pointer(s.one), 8*(t%16)))
		for range iters {
			atomic.AddUint64(p, 1)
			x = lcg(x, w)
		}
	case TicketLock, TASLock, MCSLock, TicketCAS, TicketStore:
		x = s.locked(job, t, iters, x)
	case MCSBare:
		// The hand-over alone, beside the mcs loop: what the critical
		// section's counter adds to it.
		for range iters {
			s.mcsLock(t)
			s.mcsUnlock(t)
		}
	case TicketBare:
		for range iters {
			s.ticketLock()
			s.ticketUnlock()
		}
	case Chase:
		var i uint32
		for range iters {
			i = s.cycle[i]
		}
		x = uint64(i)
	case Pause:
		pause(iters)
	case Readers:
		s.readers(t, len(job.CPUs), iters)
	case LoadModified, RMWModified, RMWShared:
		s.transaction(job.Kernel, t, iters)
	case RMWWork:
		s.hidden(t, iters, job.Work)
	}
	sink.Add(x)
}

// pingPong: thread t waits until the ball's parity is t's, then moves it on
// with a CAS. Each iteration is one round trip of the line.
func (s *shared) pingPong(t, iters int) {
	p := &s.one.v
	for range iters {
		for {
			v := atomic.LoadUint64(p)
			if int(v&1) == t&1 && atomic.CompareAndSwapUint64(p, v, v+1) {
				break
			}
		}
	}
}

// pingPongCAS: thread t's turn is when the ball holds a number of t's
// parity, and it passes the ball by a CAS from that number to the next,
// retried until it succeeds, as core-to-core latency tables measure: every
// try asks to own the line, so a pass is one transfer of a modified line
// and the CAS that wanted it, whatever a load of such a line does.
func (s *shared) pingPongCAS(t, iters int) {
	p := &s.one.v
	for i := range uint64(iters) {
		v := 2*i + uint64(t&1)
		for !atomic.CompareAndSwapUint64(p, v, v+1) {
		}
	}
}

// locked runs the lock loops. The critical section is the work and a plain
// increment of a counter the lock protects: a lock that let two threads in
// at once would lose increments.
// readers: thread 0 writes the round's number on the shared line and waits
// for every other thread's acknowledgement; each of those loads the line
// until it sees the number, then writes it on its own line. A round is a
// load of a line another core just wrote, by every reader, and the writer's
// loads of their acknowledgements. The stores are plain, as a kernel's
// WRITE_ONCE.
func (s *shared) readers(t, n, iters int) {
	p := &s.one.v
	for i := uint64(1); i <= uint64(iters); i++ {
		if t == 0 {
			*p = i
			for r := 1; r < n; r++ {
				for atomic.LoadUint64(&s.own[r].v) != i {
				}
			}
			continue
		}
		for atomic.LoadUint64(p) != i {
		}
		s.own[t].v = i
	}
}

func (s *shared) locked(job Job, t, iters int, x uint64) uint64 {
	for range iters {
		switch job.Kernel {
		case TicketLock:
			s.ticketLock()
			x = s.critical(x, job.Work)
			s.ticketUnlock()
		case TASLock:
			s.tasLock()
			x = s.critical(x, job.Work)
			s.tasUnlock()
		case MCSLock:
			s.mcsLock(t)
			x = s.critical(x, job.Work)
			s.mcsUnlock(t)
		case TicketCAS:
			s.ticketLock()
			x = s.criticalCAS(x, job.Work)
			s.ticketUnlock()
		case TicketStore:
			s.ticketLock()
			s.protected.v = x
			x = lcg(x, job.Work)
			s.ticketUnlock()
		}
	}
	return x
}

func (s *shared) critical(x uint64, work int) uint64 {
	s.protected.v++
	return lcg(x, work)
}

// criticalCAS is critical with the increment made by a load and a CAS: a
// locked instruction that waits for the line the other thread wrote last,
// with the unlock's store to the lock word right behind it.
func (s *shared) criticalCAS(x uint64, work int) uint64 {
	p := &s.protected.v
	v := atomic.LoadUint64(p)
	atomic.CompareAndSwapUint64(p, v, v+1)
	return lcg(x, work)
}

// The unlocks below are plain stores, as in the kernel (a MOV on x86): only
// the holder writes, x86 keeps stores in order, and the Go compiler does not
// move a store across an atomic. Go's atomic.Store would be a locked XCHG.

func (s *shared) ticketLock() {
	tail, head := s.ticketWords()
	me := atomic.AddUint32(tail, 1) - 1
	for atomic.LoadUint32(head) != me {
	}
}

func (s *shared) ticketUnlock() {
	_, head := s.ticketWords()
	*head++
}

// ticketWords are the ticket lock's tail and head, the two halves of the
// contended word, on one line as in the kernel's arch_spinlock_t.
func (s *shared) ticketWords() (tail, head *uint32) {
	p := unsafe.Pointer(&s.one.v)
	return (*uint32)(p), (*uint32)(unsafe.Add(p, 4))
}

// word is the low half of the contended word: the test-and-set lock's
// word, and the MCS lock's tail, the index+1 of the last waiter's node
// (0: free), the way the kernel's qspinlock encodes its tail. The MCS lock
// takes it with a 32-bit XCHG and CMPXCHG, not Go's pointer atomics, which
// are calls with a write-barrier check and would time Go, not the lock.
func (s *shared) word() *uint32 { return (*uint32)(unsafe.Pointer(&s.one.v)) }

func (s *shared) tasLock() {
	p := s.word()
	for !atomic.CompareAndSwapUint32(p, 0, 1) {
		for atomic.LoadUint32(p) != 0 {
		}
	}
}

func (s *shared) tasUnlock() { *s.word() = 0 }

func (s *shared) mcsLock(t int) {
	n := &s.nodes[t]
	n.next, n.locked = 0, 1
	prev := atomic.SwapUint32(s.word(), uint32(t+1))
	if prev == 0 {
		return
	}
	s.nodes[prev-1].next = uint32(t + 1)
	for atomic.LoadUint32(&n.locked) != 0 {
	}
}

func (s *shared) mcsUnlock(t int) {
	n := &s.nodes[t]
	next := atomic.LoadUint32(&n.next)
	if next == 0 {
		if atomic.CompareAndSwapUint32(s.word(), uint32(t+1), 0) {
			return
		}
		for next == 0 {
			next = atomic.LoadUint32(&n.next)
		}
	}
	s.nodes[next-1].locked = 0
}

// tscCounts are the first thread's time-stamp counts in a timed kernel:
// the accesses timed, the same brackets around a load that hits (what the
// brackets themselves cost), and the whole run.
type tscCounts struct{ op, base, start, end uint64 }

// transaction runs a timed kernel: each iteration the second thread puts
// the line in the state the kernel names (modified in its cache, or read by
// both), hands the turn over on the flag line, and the first thread times
// its one access of the line between two reads of the time-stamp counter,
// less what the same brackets around a load of its own line take. The
// handshake's own transfers are outside the brackets. Only two threads
// take part.
func (s *shared) transaction(k Kernel, t, iters int) {
	p, f := &s.one.v, &s.flag.v
	if t == 1 {
		for i := range uint64(iters) {
			turn := 4 * i
			modify(p, f, turn, i) // modified here
			if k == RMWShared {
				for atomic.LoadUint64(f) != turn+2 {
				}
				_ = atomic.LoadUint64(p) // and read here after the first thread read it: shared
				atomic.StoreUint64(f, turn+3)
			}
		}
		return
	}
	if t != 0 {
		return
	}
	own := &s.own[t].v
	var x uint64
	s.tsc.start = rdtsc()
	for i := range uint64(iters) {
		turn := 4 * i
		for atomic.LoadUint64(f) != turn+1 {
		}
		if k == RMWShared {
			x += atomic.LoadUint64(p)
			atomic.StoreUint64(f, turn+2)
			for atomic.LoadUint64(f) != turn+3 {
			}
		}
		a := rdtsc()
		x += atomic.LoadUint64(own)
		b := rdtsc()
		if k == LoadModified {
			x += atomic.LoadUint64(p)
		} else {
			x += atomic.AddUint64(p, 1)
		}
		c := rdtsc()
		s.tsc.base += b - a
		s.tsc.op += c - b
		atomic.StoreUint64(f, turn+4)
	}
	s.tsc.end = rdtsc()
	sink.Add(x)
}

// hidden runs the RMWWork kernel: what of w units of independent work after
// an atomic on a line the other thread just wrote runs while the atomic
// waits for the line. Each iteration times, in brackets of their own, the
// atomic alone, the atomic with the work after it (the line modified
// afresh), and the work alone, so that the three share the line's
// placement at that moment; the counts add the first and the last and
// take away the second and a bracket around a load that hits. What is
// left is the hidden work: none when the work waits for the atomic, all
// of it when the work runs in the wait, at most as much as the reorder
// window holds.
func (s *shared) hidden(t, iters, w int) {
	p, f := &s.one.v, &s.flag.v
	if t == 1 {
		for i := range uint64(iters) {
			turn := 4 * i
			modify(p, f, turn, i)   // for the atomic alone
			modify(p, f, turn+2, i) // and for it with the work
		}
		return
	}
	if t != 0 {
		return
	}
	own := &s.own[t].v
	var x uint64
	y, z := uint64(3), uint64(5)
	s.tsc.start = rdtsc()
	for i := range uint64(iters) {
		turn := 4 * i
		for atomic.LoadUint64(f) != turn+1 {
		}
		a := rdtsc()
		x += atomic.LoadUint64(own)
		b := rdtsc()
		x += atomic.AddUint64(p, 1)
		c := rdtsc()
		atomic.StoreUint64(f, turn+2)
		for atomic.LoadUint64(f) != turn+3 {
		}
		d := rdtsc()
		x += atomic.AddUint64(p, 1)
		y = lcg(y, w)
		e := rdtsc()
		z = lcg(z, w)
		g := rdtsc()
		s.tsc.op += (c - b) + (g - e)
		s.tsc.base += (b - a) + (e - d)
		atomic.StoreUint64(f, turn+4)
	}
	s.tsc.end = rdtsc()
	sink.Add(x + y + z)
}

// modify is the second thread's side of a timed kernel's handshake: once
// the turn is turn it writes v to p, so that the line is modified in its
// cache, and hands the turn on.
func modify(p, f *uint64, turn, v uint64) {
	for atomic.LoadUint64(f) != turn {
	}
	atomic.StoreUint64(p, v)
	atomic.StoreUint64(f, turn+1)
}
