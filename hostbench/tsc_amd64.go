package hostbench

// rdtsc reads the time-stamp counter between two LFENCEs: every
// instruction before it has completed, and none after it has begun, so two
// reads bracket the accesses between them.
func rdtsc() uint64

const haveTSC = true
