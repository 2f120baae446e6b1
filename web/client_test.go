package web

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// fakeConn records frames with the (fake) time they were written; each write
// takes delay.
type fakeConn struct {
	delay  time.Duration
	c      *client // acknowledges each frame once written
	noAck  bool
	mu     sync.Mutex
	frames []Frame
	at     []time.Time
	other  []any
}

func (f *fakeConn) WriteJSON(v any) error {
	time.Sleep(f.delay)
	f.mu.Lock()
	defer f.mu.Unlock()
	if fr, ok := v.(Frame); ok {
		f.frames = append(f.frames, fr)
		f.at = append(f.at, time.Now())
		if f.c != nil {
			f.c.ack()
		}
	} else {
		f.other = append(f.other, v)
	}
	return nil
}

func (f *fakeConn) Ping() error { return nil }

// pace starts a run and pushes a sample every interval for span into a client that writes to
// conn, then sends a done, and returns how many samples it pushed.
func pace(t *testing.T, l limits, conn *fakeConn, every, span time.Duration) int {
	c := newClient(l)
	if !conn.noAck {
		conn.c = c
	}
	r := &run{id: "r1"}
	r.join(c)
	r.announce(Started{Type: "started", Run: r.id})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		c.pump(ctx, conn)
		close(done)
	}()
	n := 0
	for start := time.Now(); time.Since(start) < span; n++ {
		c.push(r, Sample{NowNs: float64(n)}, time.Now())
		time.Sleep(every)
	}
	c.send(Done{Type: "done"})
	time.Sleep(time.Second + 3*conn.delay)
	cancel()
	<-done
	return n
}

var testLimits = limits{frame: time.Second / 30, queue: 1024, maxAge: time.Second, ping: time.Minute, ctrlCap: 4}

// TestPacingFast: a fast page gets every sample, in at most 30 frames a
// second (plus the one a done flushes), and the done after the last sample.
func TestPacingFast(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		conn := &fakeConn{}
		n := pace(t, testLimits, conn, time.Millisecond, 3*time.Second)
		got := 0
		for i, f := range conn.frames {
			for k, s := range f.Samples {
				if s.NowNs != float64(got) {
					t.Fatalf("frame %d sample %d is sample %v, want %d: samples lost or reordered", i, k, s.NowNs, got)
				}
				got++
			}
			if f.Dropped != 0 {
				t.Fatalf("frame %d: %d dropped for a page that keeps up", i, f.Dropped)
			}
		}
		if got != n {
			t.Fatalf("delivered %d of %d samples", got, n)
		}
		if want := 3*30 + 1; len(conn.frames) > want || len(conn.frames) < want-3 {
			t.Errorf("%d frames in 3 s, want about %d", len(conn.frames), want)
		}
		for i := 1; i < len(conn.at)-1; i++ {
			if gap := conn.at[i].Sub(conn.at[i-1]); gap < time.Second/30 {
				t.Errorf("frames %d and %d %v apart, less than 1/30 s", i-1, i, gap)
			}
		}
		if len(conn.other) != 2 {
			t.Fatalf("control messages %v, want the started and the done", conn.other)
		}
	})
}

// TestPacingSlow: a page whose writes take 300 ms gets fewer, fuller frames;
// with a queue of 100 samples it cannot hold the 300 produced meanwhile, so
// the oldest are dropped, counted, and the producer never waits. No frame
// carries a sample older than a second.
func TestPacingSlow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := testLimits
		l.queue = 100
		conn := &fakeConn{delay: 300 * time.Millisecond}
		start := time.Now()
		n := pace(t, l, conn, time.Millisecond, 3*time.Second)
		if took := time.Since(start); took > 5*time.Second+100*time.Millisecond {
			t.Fatalf("producer took %v: it waited for the page", took)
		}
		last := conn.frames[len(conn.frames)-1]
		got := 0
		for _, f := range conn.frames {
			got += len(f.Samples)
			if f.AgeMs > 1000 {
				t.Errorf("frame with a sample %v ms old", f.AgeMs)
			}
		}
		if got+int(last.Dropped) != n {
			t.Fatalf("delivered %d + dropped %d != %d pushed", got, last.Dropped, n)
		}
		if last.Dropped == 0 || len(conn.frames) > 11 {
			t.Fatalf("%d frames, %d dropped: a slow page should get few frames and miss samples", len(conn.frames), last.Dropped)
		}
	})
}

// TestPacingStale: a page stuck for two seconds in one write gets no sample
// older than a second afterwards, even with room in the queue.
func TestPacingStale(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		conn := &fakeConn{delay: 2 * time.Second}
		n := pace(t, testLimits, conn, 10*time.Millisecond, 5*time.Second)
		got := 0
		for _, f := range conn.frames {
			got += len(f.Samples)
			if f.AgeMs > 1000 {
				t.Errorf("frame with a sample %v ms old", f.AgeMs)
			}
		}
		if last := conn.frames[len(conn.frames)-1]; last.Dropped == 0 || got+int(last.Dropped) != n {
			t.Fatalf("delivered %d, dropped %d of %d", got, last.Dropped, n)
		}
	})
}

// TestPacingNoAck: a page that never acknowledges gets one sample frame, then
// only what precedes its control messages; the rest is dropped and counted.
func TestPacingNoAck(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		conn := &fakeConn{noAck: true}
		n := pace(t, testLimits, conn, time.Millisecond, 3*time.Second)
		if len(conn.frames) != 2 || len(conn.other) != 2 {
			t.Fatalf("%d frames, %d control messages; want started, the first frame and the one before done, then done", len(conn.frames), len(conn.other))
		}
		got := len(conn.frames[0].Samples) + len(conn.frames[1].Samples)
		if last := conn.frames[1]; last.Dropped == 0 || got+int(last.Dropped) != n {
			t.Fatalf("delivered %d, dropped %d of %d", got, last.Dropped, n)
		}
	})
}

// TestNoFrameBeforeStarted: a page that starts a run while it still has
// losses of its last one to hear of learns of them only after the new
// run's started, not in a frame of the new run ahead of it.
func TestNoFrameBeforeStarted(t *testing.T) {
	h := newHub(2, 0, time.Now)
	l := testLimits
	l.queue = 2
	c := newClient(l)
	a, _ := h.begin(c)
	a.announce(Started{Type: "started", Run: a.id})
	for i := range 3 { // one more than the queue holds: one dropped
		a.each(func(c *client) { c.push(a, Sample{NowNs: float64(i)}, time.Now()) })
	}
	b, _ := h.begin(c) // the page starts another run: it leaves a
	// a's goroutine had the watchers before c left: its sample must not
	// reach c as one of b's.
	c.push(a, Sample{NowNs: 99}, time.Now())
	var got []any
	got = append(got, c.take(time.Now(), true)...)
	b.announce(Started{Type: "started", Run: b.id})
	c.push(b, Sample{NowNs: 1}, time.Now())
	got = append(got, c.take(time.Now(), true)...)
	var kinds []string
	for _, m := range got {
		switch m := m.(type) {
		case Frame:
			var at []float64
			for _, s := range m.Samples {
				at = append(at, s.NowNs)
			}
			kinds = append(kinds, fmt.Sprintf("frame %s %v dropped %d", m.Run, at, m.Dropped))
		case Started:
			kinds = append(kinds, "started "+m.Run)
		}
	}
	want := []string{"started r1", "started r2", "frame r2 [1] dropped 1"}
	if strings.Join(kinds, "; ") != strings.Join(want, "; ") {
		t.Fatalf("the page got\n%s\nwant\n%s", strings.Join(kinds, "\n"), strings.Join(want, "\n"))
	}
}
