// Package parallel runs independent pieces of work on a fixed number of
// goroutines, with an outcome that does not depend on how many.
package parallel

import "sync"

// Each calls f(0..n-1) on jobs goroutines (at least one) and returns the
// error of the lowest index that failed, so that the error does not depend
// on jobs. progress, if set, is told how many calls have returned.
func Each(n, jobs int, progress func(done, total int), f func(i int) error) error {
	errs := make([]error, n)
	next := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for range max(1, min(jobs, n)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				errs[i] = f(i)
				if progress != nil {
					mu.Lock()
					done++
					progress(done, n)
					mu.Unlock()
				}
			}
		}()
	}
	if progress != nil {
		progress(0, n)
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
