package scenarios

import (
	"fmt"
	"slices"

	"contend/cacheline"
)

// threadCPUs returns the CPUs of a point's threads, thread 0 first: the
// flood's in the order of its placement, then the batch's CPU.
func threadCPUs(wl Workload, order []int) []int {
	var out []int
	if wl.Kind != WorkloadBatch {
		out = slices.Clone(order[:wl.Cores])
	}
	if wl.Kind == WorkloadFlood {
		return out
	}
	if cpu := batchCPUOf(wl, order); !slices.Contains(out, cpu) {
		out = append(out, cpu)
	}
	return out
}

// batchCPUOf is the CPU a workload with a batch runs it on: the one it
// names, else the first of order (a batch alone) or the first after the
// flood's.
func batchCPUOf(wl Workload, order []int) int {
	switch {
	case wl.BatchCPU >= 0:
		return wl.BatchCPU
	case wl.Kind == WorkloadBatch:
		return order[0]
	case wl.Kind == WorkloadBoth:
		return order[wl.Cores]
	}
	return -1
}

// declarePacked makes the lines of a per-cpu array packed l.PerLine to a
// line: thread i's element is on line i/PerLine, named "name[k]", and
// b.packed gives each thread's CPU its line.
func (b *builder) declarePacked(l lineRaw, threads []int) error {
	m := b.w.M
	byCPU := make([]*cacheline.Line, m.NumCPUs())
	var lines []*cacheline.Line
	for i, c := range threads {
		if i%l.PerLine == 0 {
			line, err := m.NewLine(fmt.Sprintf("%s[%d]", l.Name, i/l.PerLine), false)
			if err != nil {
				return err
			}
			lines = append(lines, line)
		}
		byCPU[c] = lines[len(lines)-1]
	}
	if b.packed == nil {
		b.packed = map[string][]*cacheline.Line{}
	}
	b.packed[l.Name] = byCPU
	b.lines[l.Name] = lines[0]
	return nil
}
