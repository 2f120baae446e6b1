package models

import (
	"testing"

	"contend/cacheline"
	"contend/cpu"
	"contend/sim"
)

// A CPU that queued behind another and is made the queue's head reads its
// node's next pointer and, the successor linked in, prefetchw()es the
// successor's node while it waits on the word (Linux 4.5 on, 81b5598665a2).
// Here cpu 0 holds
// the lock for 3 us, cpu 1 waits on the pending bit, and cpus 2, 3 and 4
// queue in that order, each holding the lock for 1 us once it has it. cpu 3
// asks for cpu 4's node with intent to write while cpu 2 still holds the
// lock. Without PrefetchNext it waits for the lock to be free, as cpu 2
// does for cpu 3's node in both runs (cpu 2, the first CPU queued, reads its
// next pointer before cpu 3 has linked in).
func TestQspinlockHeadPrefetchesSuccessor(t *testing.T) {
	for _, prefetch := range []bool{true, false} {
		w, l := qspinlockWorld(t, 5, 80*sim.Nanosecond)
		m := w.M
		if !l.PrefetchNext {
			t.Fatal("a new qspinlock does not prefetch its successor's node; Linux has since 4.5")
		}
		l.PrefetchNext = prefetch
		q := &l.algo.(*qspinlock).q
		var order []int
		got := probeStep(func(c *cpu.Core) { order = append(order, c.ID) })
		released := make([]sim.Time, 5) // when each CPU's spin_unlock began
		releasing := probeStep(func(c *cpu.Core) { released[c.ID] = c.Now() })
		// firstAsked[c][s]: when CPU c first asked for CPU s's node to write it.
		firstAsked := map[[2]int]sim.Time{}
		m.TraceTransfers(0, func(tr cpu.Traced) {
			for s := range 5 {
				k := [2]int{tr.Core, s}
				if _, seen := firstAsked[k]; !seen && tr.Op == cacheline.Store && q.nodes[s] == tr.Line {
					firstAsked[k] = tr.Asked
				}
			}
		})
		const us = sim.Microsecond
		prog := &cpu.Program{Name: "once", Steps: []cpu.Step{
			after{0, 10 * sim.Nanosecond, 20 * sim.Nanosecond, 30 * sim.Nanosecond, 40 * sim.Nanosecond},
			&LockStep{L: l}, got,
			after{3 * us, us, us, us, us},
			releasing, &UnlockStep{L: l},
			after{sim.Millisecond, sim.Millisecond, sim.Millisecond, sim.Millisecond, sim.Millisecond},
		}}
		if _, err := w.Run(RunSpec{Flood: &Flood{CPUs: []int{0, 1, 2, 3, 4}, Program: prog}, Duration: 10 * us}); err != nil {
			t.Fatal(err)
		}
		if len(order) != 5 || order[2] != 2 || order[3] != 3 || order[4] != 4 {
			t.Fatalf("prefetch %t: acquired in the order %v, want [0 1 2 3 4]", prefetch, order)
		}
		at34, ok34 := firstAsked[[2]int{3, 4}]
		at23, ok23 := firstAsked[[2]int{2, 3}]
		if !ok34 || !ok23 {
			t.Fatalf("prefetch %t: cpu 3 never wrote cpu 4's node (%t) or cpu 2 cpu 3's (%t)", prefetch, ok34, ok23)
		}
		if prefetch && at34 >= released[2] {
			t.Errorf("cpu 3 first asked for cpu 4's node at %v, not while cpu 2 held the lock (it let go at %v)", at34, released[2])
		}
		if !prefetch && at34 < released[2] {
			t.Errorf("without PrefetchNext cpu 3 asked for cpu 4's node at %v, while cpu 2 held the lock (it let go at %v)", at34, released[2])
		}
		if at23 < released[1] {
			t.Errorf("prefetch %t: cpu 2 asked for cpu 3's node at %v, while cpu 1 held the lock (it let go at %v)", prefetch, at23, released[1])
		}
	}
}
