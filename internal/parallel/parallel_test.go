package parallel_test

import (
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"contend/internal/parallel"
)

// Every index runs once, whatever the number of goroutines, and the error
// returned is the lowest failing index's, so it does not depend on jobs.
func TestEachRunsAllAndReportsLowestError(t *testing.T) {
	for _, jobs := range []int{0, 1, 3, 64} {
		var calls [10]atomic.Int32
		err := parallel.Each(10, jobs, nil, func(i int) error {
			calls[i].Add(1)
			if i == 4 || i == 7 {
				return fmt.Errorf("index %d", i)
			}
			return nil
		})
		for i := range calls {
			if n := calls[i].Load(); n != 1 {
				t.Errorf("jobs %d: index %d ran %d times", jobs, i, n)
			}
		}
		if err == nil || err.Error() != "index 4" {
			t.Errorf("jobs %d: error %v, want index 4", jobs, err)
		}
	}
	if err := parallel.Each(0, 2, nil, func(int) error { return errors.New("called") }); err != nil {
		t.Errorf("no work: %v", err)
	}
}
