//go:build unix

package scenarios

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time the process has used, user and system: on a
// machine shared with other work it varies less from run to run than the
// wall time does, so benchmarks report it beside the wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
