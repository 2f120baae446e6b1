//go:build !amd64

package hostbench

// rdtsc has no portable equivalent: the timed kernels are offered on amd64
// only.
func rdtsc() uint64 { return 0 }

const haveTSC = false
