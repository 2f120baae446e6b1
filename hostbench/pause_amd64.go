package hostbench

// pause executes n PAUSE instructions, the body of a kernel spin loop
// (cpu_relax).
func pause(n int)

const havePause = true
