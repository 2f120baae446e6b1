package web

import (
	"context"
	"sync"
	"time"
)

// frameWriter is the write side of a connection; tests pass a fake.
type frameWriter interface {
	WriteJSON(v any) error
	Ping() error
}

// entry is a sample waiting for the next frame (with when it was taken), or
// a control message (started, done, error...) to send in its turn.
type entry struct {
	at   time.Time
	s    Sample
	ctrl any
}

// client is one page. Runs push samples into it without ever blocking; its
// pump sends them at its own pace and drops what it cannot send in time.
type client struct {
	limits limits
	wake   chan struct{} // a control message is queued

	mu      sync.Mutex
	queue   []entry
	samples int // entries of queue that are samples
	dropped uint64
	told    uint64 // dropped as of the last frame
	unacked int    // sample frames sent and not yet acknowledged
	run     *run   // being watched, if any
	// live is set once run's started has been taken: frames, which carry
	// run's id, go only after it.
	live bool
}

// limits bound what a client costs and how fresh its frames are.
type limits struct {
	frame   time.Duration // at least this long between sample frames
	queue   int           // samples held for one page at most
	maxAge  time.Duration // older samples are dropped, not delivered
	ping    time.Duration
	ctrlCap int // control messages held at most
}

func newClient(l limits) *client {
	return &client{limits: l, wake: make(chan struct{}, 1)}
}

// push queues a sample of r; when the queue is full the oldest sample goes.
// A sample of a run c has left (its run found c among its watchers just
// before) is not c's to see.
func (c *client) push(r *run, s Sample, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.run != r {
		return
	}
	if c.samples == c.limits.queue {
		c.dropOldest()
	}
	c.queue = append(c.queue, entry{at: now, s: s})
	c.samples++
}

func (c *client) dropOldest() {
	for i, e := range c.queue {
		if e.ctrl == nil {
			c.queue = append(c.queue[:i], c.queue[i+1:]...)
			c.samples--
			c.dropped++
			return
		}
	}
}

// send queues a control message after the samples before it. A page that
// reads nothing fills the queue; then its control messages are dropped too.
func (c *client) send(m any) {
	c.mu.Lock()
	c.queueCtrl(m)
	c.mu.Unlock()
	c.wakeUp()
}

// sendFor sends a message of run r, if c still watches it.
func (c *client) sendFor(r *run, m any) {
	c.mu.Lock()
	if c.run == r {
		c.queueCtrl(m)
	}
	c.mu.Unlock()
	c.wakeUp()
}

func (c *client) queueCtrl(m any) {
	if len(c.queue)-c.samples >= c.limits.ctrlCap {
		c.dropped++
	} else {
		c.queue = append(c.queue, entry{ctrl: m})
	}
}

func (c *client) wakeUp() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// take returns the messages to write now: every control message queued, each
// preceded by a frame of the samples before it, and, when tick is set, a
// frame of the samples after the last one. Samples older than maxAge at now
// are dropped.
func (c *client) take(now time.Time, tick bool) []any {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []any
	id := ""
	if c.run != nil {
		id = c.run.id
	}
	start := 0
	for i, e := range c.queue {
		if e.ctrl != nil {
			if f, ok := c.frame(now, id, c.queue[start:i]); ok {
				out = append(out, f)
			}
			out = append(out, e.ctrl)
			if st, ok := e.ctrl.(Started); ok && st.Run == id {
				c.live = true
			}
			start = i + 1
		}
	}
	rest := c.queue[start:]
	// One sample frame in flight at most: a page that has not taken the
	// last one in gets none, and its samples age here, where stale ones
	// are dropped, instead of in socket buffers.
	if tick && c.unacked == 0 {
		if f, ok := c.frame(now, id, rest); ok {
			out = append(out, f)
		}
		rest = nil
	}
	// A fresh slice: the old backing array may be large after a burst.
	c.queue = append([]entry(nil), rest...)
	c.samples = len(c.queue)
	return out
}

// frame makes a frame of samples q; it goes even without samples when more
// were dropped, so that the page learns of every loss. None goes before
// the run's started, so none but the drops can wait: samples come after it.
func (c *client) frame(now time.Time, id string, q []entry) (Frame, bool) {
	if !c.live {
		return Frame{}, false
	}
	for len(q) > 0 && now.Sub(q[0].at) > c.limits.maxAge {
		q = q[1:]
		c.dropped++
	}
	if len(q) == 0 && c.told == c.dropped {
		return Frame{}, false
	}
	c.told = c.dropped
	c.unacked++
	f := Frame{Type: "sample", Run: id, Samples: make([]Sample, len(q)), Dropped: c.dropped,
		SentUnixMs: float64(now.UnixMicro()) / 1e3}
	if len(q) > 0 {
		f.AgeMs = float64(now.Sub(q[0].at)) / float64(time.Millisecond)
	}
	for i, e := range q {
		f.Samples[i] = e.s
	}
	return f, true
}

// ack records that the page has taken in a sample frame.
func (c *client) ack() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.unacked = max(c.unacked-1, 0)
}

// pump writes to w until ctx ends or a write fails. Sample frames go out at
// most once per frame interval and only when the page has acknowledged the
// previous one; control messages go at once, after the samples queued
// before them.
func (c *client) pump(ctx context.Context, w frameWriter) error {
	tick := time.NewTicker(c.limits.frame)
	defer tick.Stop()
	ping := time.NewTicker(c.limits.ping)
	defer ping.Stop()
	for {
		var msgs []any
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
			msgs = c.take(time.Now(), true)
		case <-c.wake:
			msgs = c.take(time.Now(), false)
		case <-ping.C:
			if err := w.Ping(); err != nil {
				return err
			}
		}
		for _, m := range msgs {
			if err := w.WriteJSON(m); err != nil {
				return err
			}
		}
	}
}
