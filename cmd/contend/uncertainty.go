package main

import "flag"

// samplesFlag declares --uncertainty for a command that predicts what, and
// then says what else it does with the samples.
func samplesFlag(fs *flag.FlagSet, what, then string) *int {
	return fs.Int("uncertainty", 0, "also predict "+what+" `N` times over the spread of the profile's values (\"45ns ± 4ns\") and the seed, by Latin hypercube: its median and 90% interval"+then)
}
