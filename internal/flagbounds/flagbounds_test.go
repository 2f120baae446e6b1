package flagbounds

import (
	"flag"
	"math"
	"strings"
	"testing"
	"time"
)

// A flag set within its bound passes, one outside it (or NaN) is refused
// with the range, a default outside is not looked at, and a numeric flag
// with no bound panics.
func TestCheck(t *testing.T) {
	table := Table{"jobs": {1, 8, "a number of points"}, "run window": {0, float64(time.Second), "a span"}}
	parse := func(args ...string) error {
		fs := flag.NewFlagSet("run", flag.ContinueOnError)
		fs.Int("jobs", 100, "")
		fs.Duration("window", 0, "")
		fs.String("name", "", "")
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		return table.Check(fs, "run")
	}
	if err := parse("--jobs", "4", "--window", "2ms", "--name", "x"); err != nil {
		t.Errorf("in bounds: %v", err)
	}
	if err := parse(); err != nil {
		t.Errorf("defaults are not checked: %v", err)
	}
	for _, args := range [][]string{{"--jobs", "9"}, {"--window", "2s"}} {
		if err := parse(args...); err == nil || !strings.Contains(err.Error(), "from") {
			t.Errorf("%v: error %v, want the range", args, err)
		}
	}
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.Float64("rate", math.NaN(), "")
	defer func() {
		if recover() == nil {
			t.Error("a numeric flag with no bound did not panic")
		}
	}()
	_ = table.Check(fs, "x")
}
