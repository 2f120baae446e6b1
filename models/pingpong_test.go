package models_test

import (
	"testing"

	"contend/cpu"
	"contend/models"
	"contend/sim"
)

// The CAS ping-pong passes the ball once per one-way time, which a profile
// defines as its latency between the two CPUs: the waiting CPU's failed
// CASes take the line between passes but never delay one, since the line
// alternates and always arrives next where the ball is due. Three CPUs pass
// it round in the order they first ran the step.
func TestPingPongOneWay(t *testing.T) {
	p := testProfile(cpu.NoJitter)
	p.Sockets, p.CoresPerSocket, p.ThreadsPerCore = 2, 8, 2
	for _, tc := range []struct {
		name string
		cpus []int
		want sim.Time
	}{
		{"smt", []int{0, 16}, p.SMTSibling},
		{"socket", []int{0, 1}, p.SameSocket},
		{"remote", []int{0, 8}, p.OtherSocket},
		{"three on a socket", []int{0, 1, 2}, p.SameSocket},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, res := pass(t, p, tc.cpus, false)
			if !within(float64(got), float64(tc.want), 0.01) {
				t.Errorf("one way %v, want %v", got, tc.want)
			}
			for _, c := range res.Cores {
				if d := float64(c.Packets) - float64(res.Packets)/float64(len(tc.cpus)); d > 1 || d < -1 {
					t.Errorf("cpu %d passed %d of %d: the turns are not fair", c.CPU, c.Packets, res.Packets)
				}
			}
		})
	}
}

// Waiting with loads, a pass is two transfers: the waiter's read that sees
// the ball (an L1 hit once the line is in) and its CAS taking the line back
// from the passer, a sharer since that read. With T = one-way - atomic, a
// pass takes 2T + L1 + atomic.
func TestPingPongReadsTwoTransfers(t *testing.T) {
	p := testProfile(cpu.NoJitter)
	p.Sockets, p.CoresPerSocket, p.ThreadsPerCore = 2, 8, 2
	for _, tc := range []struct {
		name  string
		cpus  []int
		table sim.Time
	}{
		{"socket", []int{0, 1}, p.SameSocket},
		{"remote", []int{0, 8}, p.OtherSocket},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := pass(t, p, tc.cpus, true)
			want := 2*(tc.table-p.Atomic) + p.L1Hit + p.Atomic
			if !within(float64(got), float64(want), 0.01) {
				t.Errorf("one way %v, want 2T + L1 + atomic = %v", got, want)
			}
		})
	}
}

// pass runs a ping-pong between cpus (waiting with loads if reads) and
// returns the mean time of one pass.
func pass(t *testing.T, p cpu.Profile, cpus []int, reads bool) (sim.Time, *models.Result) {
	t.Helper()
	w := newWorld(t, p, 1, models.DefaultKernel())
	ball := w.NewPingPong(newLine(t, w, "ball", false), w.M.Label("cmpxchg"), reads)
	prog := &cpu.Program{Name: "pingpong", Steps: []cpu.Step{&models.PingPongStep{P: ball}}}
	const d = 100 * sim.Microsecond
	res, err := w.Run(models.RunSpec{Flood: &models.Flood{CPUs: cpus, Program: prog}, Warmup: 5 * sim.Microsecond, Duration: d})
	if err != nil {
		t.Fatal(err)
	}
	return sim.Time(float64(d) / float64(res.Packets)), res
}
