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
	cpu := wl.BatchCPU
	switch {
	case cpu < 0 && wl.Kind == WorkloadBatch:
		cpu = order[0]
	case cpu < 0:
		cpu = order[wl.Cores]
	}
	if !slices.Contains(out, cpu) {
		out = append(out, cpu)
	}
	return out
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
