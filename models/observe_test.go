package models_test

import (
	"testing"

	"contend/cpu"
	"contend/models"
	"contend/sim"
)

// TestObserveSamples checks the streaming hook: one sample per interval, the
// packet counts it reports agree with the closed form of a compute-only loop,
// and observing does not change the result.
func TestObserveSamples(t *testing.T) {
	run := func(observe bool) (*models.Result, []models.Sample) {
		m, err := cpu.NewMachine(cpu.Profile{Name: "t", GHz: 3, Sockets: 1, CoresPerSocket: 2, ThreadsPerCore: 1,
			L1Hit: 1000, SMTSibling: 15000, SameSocket: 40000, OtherSocket: 120000, Memory: 90000, Atomic: 7000}, 1)
		if err != nil {
			t.Fatal(err)
		}
		w, err := models.NewWorld(m, models.DefaultKernel())
		if err != nil {
			t.Fatal(err)
		}
		p := &cpu.Program{Name: "loop", Steps: []cpu.Step{&cpu.ComputeStep{Label: m.Label("x"), D: 40 * sim.Nanosecond}}}
		spec := models.RunSpec{Flood: &models.Flood{CPUs: []int{0, 1}, Program: p}, Duration: sim.Millisecond}
		var samples []models.Sample
		if observe {
			spec.SampleEvery = 100 * sim.Microsecond
			spec.Observe = func(s models.Sample) {
				s.Packets = append([]uint64(nil), s.Packets...)
				samples = append(samples, s)
			}
		}
		res, err := w.Run(spec)
		if err != nil {
			t.Fatal(err)
		}
		return res, samples
	}
	plain, _ := run(false)
	seen, samples := run(true)
	if plain.Packets != seen.Packets {
		t.Fatalf("observing changed the run: %d vs %d packets", plain.Packets, seen.Packets)
	}
	if len(samples) != 10 {
		t.Fatalf("got %d samples in 1 ms at 100 µs, want 10", len(samples))
	}
	for i, s := range samples {
		// A 40 ns loop completes 2500 packets per 100 µs per CPU; a sample at
		// k·100 µs may or may not include the packet that ends exactly then.
		want := uint64(2500 * (i + 1))
		for _, n := range s.Packets {
			if n != want && n != want-1 {
				t.Fatalf("sample %d at %v: %d packets, want %d", i, s.Now, n, want)
			}
		}
	}
}
