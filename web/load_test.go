package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// loadStats is what the pages of a load saw.
type loadStats struct {
	maxAgeMs  float64 // oldest sample delivered: its wait in the server and on the way to the page
	maxWaitMs float64 // longest a delivered sample waited in the server
	// seen counts, for each page that started a run, the samples it got
	// plus those it was told it missed.
	seen       []uint64
	maxFPS     float64 // most sample frames one page got in any one second
	dropped    uint64  // samples dropped, all pages
	samples    uint64  // samples delivered, all pages
	peakHeapMB float64 // peak heap in use during the load (server and pages)
}

// load runs pages clients against one server that allows runs at once: the
// first runs pages each start ingress locked on 2 cores for dur of simulated
// time, the others watch one of those runs; all read until done. Every
// slow-th page takes 200 ms to take in each frame, like a page that cannot
// keep up.
func load(t testing.TB, pages, runs, slow int, dur string) loadStats {
	_, ts := newTestServer(t, Options{MaxRuns: runs})
	var st loadStats
	var mu sync.Mutex
	var peak atomic.Uint64
	stop := make(chan struct{})
	go func() {
		var m runtime.MemStats
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			runtime.ReadMemStats(&m)
			if m.HeapInuse > peak.Load() {
				peak.Store(m.HeapInuse)
			}
		}
	}()
	ids := make([]chan string, runs)
	for i := range ids {
		ids[i] = make(chan string, pages)
	}
	var wg sync.WaitGroup
	errs := make(chan error, pages)
	for i := range pages {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := &loadPage{url: ts.URL, slow: i%slow == 0, st: &st, mu: &mu}
			if i < runs {
				p.req = Request{Type: "start", Scenario: "ingress", Series: "ingress-u32", Variant: "locked", Cores: new(2), Duration: dur}
				p.started = ids[i]
			} else {
				p.req = Request{Type: "watch", Run: <-ids[i%runs]}
			}
			if err := p.read(); err != nil {
				errs <- fmt.Errorf("page %d: %w", i, err)
			}
		}()
	}
	wg.Wait()
	close(stop)
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	st.peakHeapMB = float64(peak.Load()) / (1 << 20)
	return st
}

// loadPage is one page of a load: it sends req and reads until done.
type loadPage struct {
	url     string
	req     Request
	slow    bool
	started chan string // a starter passes its run's id on to the watchers
	st      *loadStats
	mu      *sync.Mutex
}

func (p *loadPage) read() error {
	c, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(p.url, "http")+"/ws", http.Header{"Origin": {p.url}})
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.WriteJSON(p.req); err != nil {
		return err
	}
	perSecond := map[int64]int{}
	var last Frame
	var got uint64
	for {
		c.SetReadDeadline(time.Now().Add(60 * time.Second))
		var raw json.RawMessage
		if err := c.ReadJSON(&raw); err != nil {
			return err
		}
		at := time.Now()
		var f Frame
		json.Unmarshal(raw, &f)
		switch f.Type {
		case "error":
			return fmt.Errorf("%s", raw)
		case "started":
			for range cap(p.started) {
				p.started <- f.Run
			}
		case "done":
			p.mu.Lock()
			p.st.dropped += last.Dropped
			if p.started != nil {
				p.st.seen = append(p.st.seen, got+last.Dropped)
			}
			for _, n := range perSecond {
				p.st.maxFPS = max(p.st.maxFPS, float64(n))
			}
			p.mu.Unlock()
			return nil
		case "sample":
			perSecond[at.Unix()]++
			got += uint64(len(f.Samples))
			p.mu.Lock()
			p.st.samples += uint64(len(f.Samples))
			if len(f.Samples) > 0 {
				p.st.maxAgeMs = max(p.st.maxAgeMs, f.AgeMs+float64(at.UnixMicro())/1e3-f.SentUnixMs)
				p.st.maxWaitMs = max(p.st.maxWaitMs, f.AgeMs)
			}
			p.mu.Unlock()
			last = f
			if p.slow {
				time.Sleep(200 * time.Millisecond)
			}
			if err := c.WriteJSON(Request{Type: "ack"}); err != nil {
				return err
			}
		}
	}
}

// TestLoad50: 50 pages (every fifth a slow one) watch 4 runs at once. None
// is sent more than 30 sample frames in a second (and the one before done), no sample that waited over
// half a second in the server is sent, every page sees its run to the end,
// and a page that started a run got or was told it missed every sample.
// How old samples are when they arrive depends on the machine's load: that
// figure is BenchmarkLoad50's.
func TestLoad50(t *testing.T) {
	st := load(t, 50, 4, 5, "200ms") // long enough that every watcher joins before its run ends
	// 30 a second, and one more may precede the done.
	if st.maxFPS > 31 {
		t.Errorf("a page got %v sample frames in one second", st.maxFPS)
	}
	if st.maxWaitMs > float64(maxSampleAge/time.Millisecond) {
		t.Errorf("a sample that waited %v ms in the server was sent", st.maxWaitMs)
	}
	if len(st.seen) != 4 {
		t.Fatalf("%d starters saw their run end, want 4", len(st.seen))
	}
	for _, n := range st.seen {
		if n != samplesPerRun {
			t.Errorf("a starter got or was told of %d samples, the run took %d", n, samplesPerRun)
		}
	}
}

// BenchmarkLoad50 reports what 50 pages watching 4 runs at once cost and
// saw; each iteration is one such load.
func BenchmarkLoad50(b *testing.B) {
	var st loadStats
	for b.Loop() {
		st = load(b, 50, 4, 5, "100ms")
	}
	b.ReportMetric(st.peakHeapMB, "peak-heap-MB")
	b.ReportMetric(st.maxAgeMs, "max-sample-age-ms")
	b.ReportMetric(st.maxWaitMs, "max-server-wait-ms")
	b.ReportMetric(st.maxFPS, "max-frames/s/page")
	b.ReportMetric(float64(st.dropped), "dropped-samples")
	b.ReportMetric(float64(st.samples), "delivered-samples")
}

// TestQueue50: 50 pages start a run each at once on a server that runs 4 at
// a time. None is refused: the others wait in the queue, each told its
// place, which only falls, and every run completes.
func TestQueue50(t *testing.T) {
	const pages, runs = 50, 4
	_, ts := newTestServer(t, Options{MaxRuns: runs})
	var wg, dialed sync.WaitGroup
	var queued atomic.Int64
	errs := make(chan error, pages)
	at := make(chan struct{}) // closed when every page is connected
	dialed.Add(pages)
	for i := range pages {
		wg.Go(func() {
			if err := queuedPage(ts.URL, &dialed, at, &queued); err != nil {
				errs <- fmt.Errorf("page %d: %w", i, err)
			}
		})
	}
	dialed.Wait()
	close(at)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	// Runs that end while the last starts are still on their way free
	// their slots for them, but most must have waited.
	t.Logf("%d of %d pages waited in the queue", queued.Load(), pages)
	if n := queued.Load(); n < pages/2 {
		t.Errorf("%d pages were told a place in the queue, want most of the %d", n, pages)
	}
}

// queuedPage starts a short run, reads until its done and checks what it
// was told of its place in the queue on the way.
func queuedPage(url string, dialed *sync.WaitGroup, at chan struct{}, queued *atomic.Int64) error {
	c, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(url, "http")+"/ws", http.Header{"Origin": {url}})
	dialed.Done()
	if err != nil {
		return err
	}
	defer c.Close()
	<-at
	req := Request{Type: "start", Scenario: "ingress", Series: "ingress-u32", Variant: "locked", Cores: new(2), Duration: "5ms"}
	if err := c.WriteJSON(req); err != nil {
		return err
	}
	last := -1
	for {
		c.SetReadDeadline(time.Now().Add(60 * time.Second))
		var raw json.RawMessage
		if err := c.ReadJSON(&raw); err != nil {
			return err
		}
		var m struct {
			Type     string
			Position int
		}
		json.Unmarshal(raw, &m)
		switch m.Type {
		case "error":
			return fmt.Errorf("%s", raw)
		case "queued":
			if last == -1 {
				queued.Add(1)
			} else if m.Position >= last {
				return fmt.Errorf("told place %d after %d", m.Position, last)
			}
			last = m.Position
		case "started":
			if last > 0 {
				return fmt.Errorf("started while told it was %d in the queue", last)
			}
		case "sample":
			if err := c.WriteJSON(Request{Type: "ack"}); err != nil {
				return err
			}
		case "done":
			return nil
		}
	}
}
