package main

import (
	"flag"
	"fmt"
)

// samplesFlag declares --uncertainty for a command that predicts what, and
// then says what else it does with the samples.
func samplesFlag(fs *flag.FlagSet, what, then string) *int {
	return fs.Int("uncertainty", 0, "also predict "+what+" `N` times over the spread of the profile's values (\"45ns ± 4ns\") and the seed, by Latin hypercube: its median and 90% interval"+then)
}

// checkSamples refuses a sample count that gives no interval.
func checkSamples(n int) error {
	if n == 1 {
		return fmt.Errorf("--uncertainty %d: give at least 2 samples (20 or more for a useful 90%% interval), or 0 for none", n)
	}
	return nil
}
