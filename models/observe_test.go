package models_test

import (
	"testing"

	"contend/cacheline"
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

// TestObserveContention checks the chart fields of a sample against the
// result of the same run: two CPUs fighting for a ticket lock. At the last
// sample (the end of the run) the line x CPU transfers add up to the line's
// transfers, the lock-wait histogram counts every contended acquisition, and
// each CPU's state times add up to the measured interval. Observing still
// does not change the run.
func TestObserveContention(t *testing.T) {
	run := func(observe bool) (*models.Result, models.Sample) {
		w := newWorld(t, testProfile(cpu.ExponentialJitter), 1, models.DefaultKernel())
		l := newSpinlock(t, w, models.Ticket)
		p := &cpu.Program{Name: "locked", Steps: []cpu.Step{
			compute(w, "stack", 30*sim.Nanosecond), &models.LockStep{L: l},
			compute(w, "ingress", 20*sim.Nanosecond), &models.UnlockStep{L: l}}}
		spec := models.RunSpec{Flood: &models.Flood{CPUs: firstN(2), Program: p},
			Warmup: 10 * sim.Microsecond, Duration: 200 * sim.Microsecond}
		var last models.Sample
		if observe {
			spec.SampleEvery = 7 * sim.Microsecond
			spec.Observe = func(s models.Sample) {
				last = s
				last.States = append(last.States[:0:0], s.States...)
				last.LockWait = append([]uint64(nil), s.LockWait...)
				last.Transfers = [][]uint64{append([]uint64(nil), s.Transfers[0]...)}
			}
		}
		res, err := w.Run(spec)
		if err != nil {
			t.Fatal(err)
		}
		return res, last
	}
	plain, _ := run(false)
	res, last := run(true)
	if plain.Packets != res.Packets || plain.Lines[0].Transfers != res.Lines[0].Transfers {
		t.Fatalf("observing changed the run: %d/%d packets, %d/%d transfers",
			plain.Packets, res.Packets, plain.Lines[0].Transfers, res.Lines[0].Transfers)
	}
	if got := last.Now; got != 210*sim.Microsecond {
		t.Fatalf("last sample at %v, want the end of the run", got)
	}
	var transfers, waits uint64
	for _, n := range last.Transfers[0] {
		transfers += n
	}
	for _, n := range last.LockWait {
		waits += n
	}
	// Events at the very end instant may fire after the last sample: allow
	// the one or two acquisitions and transfers they can hold.
	if want := res.Lines[0].Transfers; transfers > want || transfers+4 < want || want < 100 {
		t.Errorf("transfers by CPU add up to %d, the line had %d", transfers, want)
	}
	if want := res.Locks[0].Contended; waits > want || waits+2 < want || want < 100 {
		t.Errorf("lock-wait histogram holds %d waits, the lock had %d contended acquisitions", waits, want)
	}
	for i, st := range last.States {
		var sum sim.Time
		for _, d := range st {
			sum += d
		}
		// A CPU is charged up to the step it is in: a wait in progress (at
		// most a transfer plus the critical section) is not yet counted, a
		// compute started before the end is counted whole.
		if span := 200 * sim.Microsecond; sum > span+200*sim.Nanosecond || sum < span-200*sim.Nanosecond {
			t.Errorf("cpu %d: states add up to %v of %v", last.CPUs[i], sum, span)
		}
		if st[cpu.Spin] == 0 || st[cpu.Work] == 0 {
			t.Errorf("cpu %d: no spin or no work in %v", last.CPUs[i], st)
		}
	}
}

// TestObserveRunAhead: observing does not change a run whose cores run
// local work (compute, per-cpu lines) ahead of the engine's clock, as
// lockless ingress does, with jitter on; not even by a packet.
func TestObserveRunAhead(t *testing.T) {
	run := func(every sim.Time) *models.Result {
		w := newWorld(t, testProfile(cpu.ExponentialJitter), 1, models.DefaultKernel())
		stats := newLine(t, w, "stats", true)
		shared := newLine(t, w, "dev", false)
		p := &cpu.Program{Name: "lockless", Steps: []cpu.Step{
			compute(w, "stack", 39*sim.Nanosecond), access(w, "stats", stats, cacheline.RMW),
			compute(w, "ingress", 15*sim.Nanosecond), access(w, "dev", shared, cacheline.Load)}}
		spec := models.RunSpec{Flood: &models.Flood{CPUs: firstN(2), Program: p},
			Warmup: 20 * sim.Microsecond, Duration: sim.Millisecond, SampleEvery: every}
		if every > 0 {
			spec.Observe = func(models.Sample) {}
		}
		res, err := w.Run(spec)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	plain := run(0)
	for _, every := range []sim.Time{5100 * sim.Nanosecond, 17 * sim.Microsecond} {
		if got := run(every); got.Packets != plain.Packets {
			t.Errorf("sampling every %v: %d packets, %d without", every, got.Packets, plain.Packets)
		}
	}
}
