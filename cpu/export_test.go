package cpu

import "contend/sim"

// Engine lets the package's tests and benchmarks step the engine by hand.
func (m *Machine) Engine() *sim.Engine { return m.eng }
