package scenarios

import "slices"

// Footprint is where a point runs: how many CPUs its workload keeps busy
// and over how many sockets they lie. Variants of a series share it, since
// they differ only in their steps.
type Footprint struct {
	CPUs    int `json:"cpus"`
	Sockets int `json:"sockets"`
}

// cpusNeeded is how many CPUs a workload takes: its flood CPUs, the batch's
// one, or both.
func cpusNeeded(wl Workload) int {
	switch wl.Kind {
	case WorkloadBatch:
		return 1
	case WorkloadBoth:
		return wl.Cores + 1
	}
	return wl.Cores
}

// Footprint returns the CPUs and sockets point p takes on its profile's
// machine, as Build would lay them out.
func (s *Scenario) Footprint(p Point) (Footprint, error) {
	prof, _, wl, err := s.settings(p)
	if err != nil {
		return Footprint{}, err
	}
	m, order, err := s.machine(prof, wl, p.Seed)
	if err != nil {
		return Footprint{}, err
	}
	used := slices.Clone(order[:cpusNeeded(wl)])
	if wl.Kind != WorkloadFlood && wl.BatchCPU >= 0 {
		used[len(used)-1] = wl.BatchCPU
	}
	slices.Sort(used)
	used = slices.Compact(used)
	var sockets []int
	for _, c := range used {
		if so := m.Topology().Socket(c); !slices.Contains(sockets, so) {
			sockets = append(sockets, so)
		}
	}
	return Footprint{CPUs: len(used), Sockets: len(sockets)}, nil
}
