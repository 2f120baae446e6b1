package scenarios

import (
	"slices"
	"testing"
)

// labelsOf, which the checker refuses references by, is checked against
// the simulation: every label that a short run of a built-in variant
// counts time under on the CPU is among the labels it finds, and every
// label it blocks under among those it finds with offCPU.
func TestLabelsOfCoversSimulatedLabels(t *testing.T) {
	offSeen := 0
	for _, name := range BuiltinNames() {
		s, err := LoadBuiltin(name)
		if err != nil {
			t.Fatal(err)
		}
		s.Run.Warmup, s.Run.Duration = Dur{PS: 1e6}, Dur{PS: 30e6}
		s.Workload.BatchOps = min(s.Workload.BatchOps, 20)
		s.Workload.InitialItems = min(s.Workload.InitialItems, 20)
		for _, v := range s.Variants {
			variants := []string{v.Name}
			if s.Workload.Kind == WorkloadBoth {
				variants = append(variants, s.Workload.BatchVariant, s.Workload.FloodVariant)
			}
			have, blocks := s.labelsOf(false, variants...), s.labelsOf(true, variants...)
			r, err := s.Simulate(Point{Variant: v.Name, Seed: 1})
			if err != nil {
				t.Errorf("%s %s: %v", name, v.Name, err)
				continue
			}
			var on, off []string
			profile := r.Profile
			if r.Batch != nil {
				profile = append(slices.Clone(profile), r.Batch.Profile...) // beside a flood, the batch CPU's own
			}
			for _, l := range profile {
				if l.WorkNs+l.StallNs+l.SpinNs > 0 {
					on = append(on, l.Label)
				}
				if l.SleepNs > 0 {
					off = append(off, l.Label)
				}
			}
			if r.Batch != nil {
				for _, o := range r.Batch.OffCPU {
					off = append(off, o.Label)
				}
			}
			if len(on) == 0 {
				t.Errorf("%s %s: the run counted time under no label", name, v.Name)
			}
			for _, l := range on {
				if !slices.Contains(have, l) {
					t.Errorf("%s %s: the run counts time under %q, which labelsOf does not find in %v", name, v.Name, l, have)
				}
			}
			for _, l := range off {
				if !slices.Contains(blocks, l) {
					t.Errorf("%s %s: the run blocks under %q, which labelsOf does not find in %v", name, v.Name, l, blocks)
				}
			}
			offSeen += len(off)
		}
	}
	if offSeen == 0 {
		t.Error("no built-in variant blocked: the off-CPU labels went unchecked")
	}
}
