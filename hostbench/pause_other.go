//go:build !amd64

package hostbench

// pause has no portable equivalent: Go has no spin-loop hint outside
// assembly, so the Pause kernel is not offered on other architectures.
func pause(int) {}

const havePause = false
