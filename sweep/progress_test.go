package sweep

import (
	"strings"
	"sync"
	"testing"
	"time"
)

// Off a terminal, progress is a line at every tick (every few seconds)
// while points are simulated, even before the first is done, and none after
// the last.
func TestProgressLines(t *testing.T) {
	var out syncBuffer
	start := time.Unix(0, 0)
	tick := make(chan time.Time)
	p := ProgressLines(&out, "run", func() time.Time { return start }, tick)
	p(0, 3)
	tick <- start.Add(5 * time.Second)
	p(1, 3)
	tick <- start.Add(10 * time.Second)
	tick <- start.Add(15 * time.Second) // sent once the line before is written
	p(3, 3)
	want := "contend run: 0/3 points simulated (5s)\ncontend run: 1/3 points simulated (10s)\n"
	if got := out.String(); !strings.HasPrefix(got, want) || strings.Count(got, "\n") != 3 {
		t.Errorf("progress printed %q; want %q and one more line", got, want)
	}
	select {
	case tick <- start.Add(20 * time.Second):
		t.Error("a tick after the last point was taken")
	case <-time.After(50 * time.Millisecond):
	}
}

// On a terminal, progress is a bar; a run of no points draws none (it
// divided by zero: validate on a terminal panicked).
func TestProgressBar(t *testing.T) {
	var out strings.Builder
	p := ProgressBar(&out)
	p(0, 0)
	if out.Len() != 0 {
		t.Errorf("no points drew %q; want nothing", out.String())
	}
	p(1, 2)
	p(2, 2)
	if got, want := out.String(), "] 1/2 points"; !strings.Contains(got, want) || !strings.HasSuffix(got, "\r\033[K") {
		t.Errorf("the bar is %q; want it to show %q and be cleared at the end", got, want)
	}
}

// syncBuffer is a strings.Builder safe for one writer and one reader.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
