package models

// Every test of the package runs with unlockedWord checking its counts
// against the per-CPU tables they count (the lockref and cmpxchg tests ask
// it on every try).
func init() { checkCounts = true }
