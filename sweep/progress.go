package sweep

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// ProgressLines prints "contend NAME: D/T points simulated (S)" at every
// tick while points are being simulated, so that a single long point shows
// too. The runner reports 0/T when it starts and T/T when it ends; a tick
// between those prints the latest count.
func ProgressLines(w io.Writer, name string, now func() time.Time, tick <-chan time.Time) func(done, total int) {
	var mu sync.Mutex
	start := now()
	var done, total int
	var stop, exited chan struct{}
	watch := func(stop, exited chan struct{}) {
		defer close(exited)
		for {
			select {
			case <-stop:
				return
			case t := <-tick:
				mu.Lock()
				fmt.Fprintf(w, "contend %s: %d/%d points simulated (%v)\n", name, done, total, t.Sub(start).Round(time.Second))
				mu.Unlock()
			}
		}
	}
	return func(d, n int) {
		mu.Lock()
		done, total = d, n
		var wait chan struct{}
		switch {
		case d < n && stop == nil:
			stop, exited = make(chan struct{}), make(chan struct{})
			go watch(stop, exited)
		case d == n && stop != nil:
			close(stop)
			wait, stop = exited, nil
		}
		mu.Unlock()
		// A tick taken just before the last point finishes its line before
		// the caller goes on to print the results.
		if wait != nil {
			<-wait
		}
	}
}

// ProgressBar draws on a terminal. A run of no points (a validate section
// with nothing to simulate) draws nothing.
func ProgressBar(f io.Writer) func(done, total int) {
	return func(done, total int) {
		if total == 0 {
			return
		}
		const width = 30
		n := width * done / total
		fmt.Fprintf(f, "\r[%s%s] %d/%d points", strings.Repeat("#", n), strings.Repeat(".", width-n), done, total)
		if done == total {
			fmt.Fprint(f, "\r\033[K")
		}
	}
}
