package models_test

import (
	"fmt"
	"testing"

	"contend/cacheline"
	"contend/cpu"
	"contend/models"
	"contend/sim"
)

// cbReference is the naive reference for callbacks that carry steps: each
// CPU's calls in a FIFO, and grace periods as the RCU trace reports them. A
// callback must run on the CPU that queued it, oldest first, exactly once,
// and only after a grace period that started after its call has ended.
type cbReference struct {
	calls [][]sim.Time // per CPU, call times not yet run
	gps   [][2]sim.Time
	ran   int
	made  int
	err   string
}

func (r *cbReference) call(c *cpu.Core) {
	r.calls[c.ID] = append(r.calls[c.ID], c.Now())
	r.made++
}

func (r *cbReference) run(c *cpu.Core) {
	q := r.calls[c.ID]
	if len(q) == 0 {
		r.fail("cpu %d ran a callback it never queued", c.ID)
		return
	}
	at := q[0]
	r.calls[c.ID] = q[1:]
	r.ran++
	for _, gp := range r.gps {
		if gp[0] > at && gp[1] <= c.Now() {
			return
		}
	}
	r.fail("cpu %d ran at %v the callback queued at %v before a grace period begun after it had ended", c.ID, c.Now(), at)
}

func (r *cbReference) fail(format string, args ...any) {
	if r.err == "" {
		r.err = fmt.Sprintf(format, args...)
	}
}

func TestCallbackStepsRunOnceOnTheirCPUAfterAGracePeriod(t *testing.T) {
	w := newWorld(t, testProfile(cpu.UniformJitter), 3, models.DefaultKernel())
	const n = 4
	ref := &cbReference{calls: make([][]sim.Time, n)}
	w.RCU.Trace = func(_ int64, start, end sim.Time) { ref.gps = append(ref.gps, [2]sim.Time{start, end}) }
	line := newLine(t, w, "refcnt", false)
	cb := []cpu.Step{probe(ref.run), access(w, "dev_put", line, cacheline.RMW), compute(w, "kmem_cache_free", 50*sim.Nanosecond)}
	p := &cpu.Program{Name: "send", Steps: []cpu.Step{
		&models.RCUSoftirq{W: w},
		compute(w, "send", 2*sim.Microsecond),
		access(w, "dev_hold", line, cacheline.RMW),
		probe(ref.call),
		&models.CallRCU{W: w, Callback: cb},
	}}
	res := flood(t, w, p, n, 0, 60*sim.Millisecond)
	if ref.err != "" {
		t.Fatal(ref.err)
	}
	// At 2 µs a packet a CPU queues ~500 callbacks a millisecond; what is
	// still waiting at the end is at most a few jiffies' worth.
	waiting := ref.made - ref.ran
	if ref.ran == 0 || waiting > ref.made/2 {
		t.Fatalf("%d callbacks ran of %d queued", ref.ran, ref.made)
	}
	var puts float64
	for _, l := range res.Profile {
		if l.Label == "dev_put" {
			puts = l.NsPerPacket
		}
	}
	if puts == 0 {
		t.Fatalf("the callbacks' dev_put is not in the profile: %+v", res.Profile)
	}
}

// With one CPU and no jitter, every packet's callback runs on that CPU
// sooner or later, so in the steady state a packet costs its own work plus
// its callback's: the rate is 1 / (send + callback).
func TestCallbackWorkIsChargedToItsCPU(t *testing.T) {
	w := newWorld(t, testProfile(cpu.NoJitter), 1, models.DefaultKernel())
	const send, free = 3 * sim.Microsecond, 1 * sim.Microsecond
	p := &cpu.Program{Name: "send", Steps: []cpu.Step{
		&models.RCUSoftirq{W: w},
		compute(w, "send", send),
		&models.CallRCU{W: w, Callback: []cpu.Step{compute(w, "dst_destroy", free)}},
	}}
	res := flood(t, w, p, 1, 50*sim.Millisecond, 200*sim.Millisecond)
	want := float64(sim.Second) / float64(send+free)
	if !within(res.PPS, want, 0.03) {
		t.Fatalf("%.0f packets/s, want 1/(send+callback) = %.0f", res.PPS, want)
	}
	if res.RCU.CallbacksPerGP < 100 {
		t.Fatalf("%.0f callbacks per grace period; the test needs batches", res.RCU.CallbacksPerGP)
	}
}
