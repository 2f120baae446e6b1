package models_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"contend/cpu"
	"contend/models"
	"contend/sim"
)

// faultCase is a program with a bug in it. The run must stop with a model
// error (not a panic, not a hang) that names the program, the step (1-based,
// as printed) and the time.
type faultCase struct {
	name string
	// build returns the workload; programs are named after the case.
	build func(t *testing.T, w *models.World) models.RunSpec
	step  int    // the step the error names
	what  string // part of the explanation
}

func spinFaults(kind models.LockKind) []faultCase {
	one := func(name string, steps func(w *models.World, a, b *models.Spinlock) []cpu.Step) func(t *testing.T, w *models.World) models.RunSpec {
		return func(t *testing.T, w *models.World) models.RunSpec {
			a, b := locks2(t, w, kind)
			p := &cpu.Program{Name: name, Steps: steps(w, a, b)}
			return models.RunSpec{Flood: &models.Flood{CPUs: []int{0}, Program: p}, Duration: sim.Millisecond}
		}
	}
	sleep := func(w *models.World) cpu.Step {
		return &models.SleepStep{W: w, D: sim.Millisecond, Label: w.M.Label("msleep")}
	}
	return []faultCase{
		{"unlock-not-held", one("unlock-not-held", func(w *models.World, a, _ *models.Spinlock) []cpu.Step {
			return []cpu.Step{compute(w, "x", 30*sim.Nanosecond), &models.UnlockStep{L: a}}
		}), 2, "spin_unlock(a) by a CPU that does not hold it"},
		{"sleep-under-spinlock", one("sleep-under-spinlock", func(w *models.World, a, _ *models.Spinlock) []cpu.Step {
			return []cpu.Step{&models.LockStep{L: a}, compute(w, "x", 30*sim.Nanosecond), sleep(w), &models.UnlockStep{L: a}}
		}), 3, "sleep sleeps while holding a spinlock"},
		{"ends-holding", one("ends-holding", func(w *models.World, a, _ *models.Spinlock) []cpu.Step {
			return []cpu.Step{compute(w, "x", 30*sim.Nanosecond), &models.LockStep{L: a}, compute(w, "x", 10*sim.Nanosecond)}
		}), 3, "the program ends holding a spinlock"},
		{"lock-twice", one("lock-twice", func(w *models.World, a, _ *models.Spinlock) []cpu.Step {
			return []cpu.Step{&models.LockStep{L: a}, compute(w, "x", 30*sim.Nanosecond), &models.LockStep{L: a}, &models.UnlockStep{L: a}}
		}), 3, "deadlock: spin_lock(a) while this CPU already holds it"},
		{"abba", func(t *testing.T, w *models.World) models.RunSpec {
			a, b := locks2(t, w, kind)
			// CPU 0 takes a then b, CPU 1 b then a; each holds its first
			// lock for 1 µs, so by then both hold one and want the other.
			abba := func(name string, first, second *models.Spinlock) *cpu.Program {
				return &cpu.Program{Name: name, Steps: []cpu.Step{
					&models.LockStep{L: first}, compute(w, "x", sim.Microsecond), &models.LockStep{L: second},
					compute(w, "x", 10*sim.Nanosecond), &models.UnlockStep{L: second}, &models.UnlockStep{L: first},
				}}
			}
			return models.RunSpec{
				Flood: &models.Flood{CPUs: []int{0}, Program: abba("abba", a, b)},
				Batch: &models.Batch{CPU: 1, Program: abba("abba", b, a), Ops: 1000},
				Limit: 10 * sim.Millisecond, // a missed deadlock ends as an unfinished batch, not a hang
			}
		}, 3, "deadlock: waits for"},
	}
}

func locks2(t *testing.T, w *models.World, kind models.LockKind) (*models.Spinlock, *models.Spinlock) {
	a, err := w.NewSpinlock("a", kind, "_raw_spin_lock", "_raw_spin_unlock")
	if err != nil {
		t.Fatal(err)
	}
	b, err := w.NewSpinlock("b", kind, "_raw_spin_lock", "_raw_spin_unlock")
	if err != nil {
		t.Fatal(err)
	}
	return a, b
}

func otherFaults() []faultCase {
	batch := func(name string, steps func(w *models.World) []cpu.Step) func(t *testing.T, w *models.World) models.RunSpec {
		return func(t *testing.T, w *models.World) models.RunSpec {
			return models.RunSpec{Batch: &models.Batch{CPU: 0, Program: &cpu.Program{Name: name, Steps: steps(w)}, Ops: 10}}
		}
	}
	return []faultCase{
		{"synchronize-in-reader", batch("synchronize-in-reader", func(w *models.World) []cpu.Step {
			return []cpu.Step{compute(w, "x", 30*sim.Nanosecond), &models.RCUReadLock{W: w}, &models.SynchronizeRCU{W: w, Label: w.M.Label("synchronize_rcu")}, &models.RCUReadUnlock{W: w}}
		}), 3, "synchronize_rcu inside an RCU read-side section"},
		{"unbalanced-rcu-unlock", batch("unbalanced-rcu-unlock", func(w *models.World) []cpu.Step {
			return []cpu.Step{compute(w, "x", 30*sim.Nanosecond), &models.RCUReadUnlock{W: w}}
		}), 2, "rcu_read_unlock without rcu_read_lock"},
		{"ends-in-reader", batch("ends-in-reader", func(w *models.World) []cpu.Step {
			return []cpu.Step{&models.RCUReadLock{W: w}, compute(w, "x", 30*sim.Nanosecond)}
		}), 2, "ends inside an RCU read-side section"},
		{"mutex-twice", batch("mutex-twice", func(w *models.World) []cpu.Step {
			m, _ := w.NewMutex("rtnl", "mutex_lock")
			return []cpu.Step{&models.MutexLockStep{M: m}, compute(w, "x", 30*sim.Nanosecond), &models.MutexLockStep{M: m}}
		}), 3, "deadlock: mutex_lock(rtnl) while this task already holds it"},
		{"write-lock-while-reading", batch("write-lock-while-reading", func(w *models.World) []cpu.Step {
			l, _ := w.NewRWLock("tbl", "read_lock", "write_lock")
			return []cpu.Step{&models.ReadLockStep{L: l}, &models.WriteLockStep{L: l}}
		}), 2, "deadlock: write_lock(tbl) while this CPU already holds it"},
	}
}

// Bad programs are model errors: they stop the run at once, in simulated and
// in wall time, and say where.
func TestFaultsAreModelErrors(t *testing.T) {
	var cases []faultCase
	for _, kind := range []models.LockKind{models.Ticket, models.MCS, models.TestAndSet} {
		for _, fc := range spinFaults(kind) {
			fc.name = kind.String() + "/" + fc.name
			cases = append(cases, fc)
		}
	}
	cases = append(cases, otherFaults()...)
	for _, fc := range cases {
		t.Run(fc.name, func(t *testing.T) {
			w := newWorld(t, testProfile(cpu.NoJitter), 1, models.DefaultKernel())
			spec := fc.build(t, w)
			res, err := w.Run(spec)
			if err == nil {
				t.Fatalf("run succeeded (%d packets, batch %+v); want a model error", res.Packets, res.Batch)
			}
			var me *cpu.ModelError
			if !errors.As(err, &me) {
				t.Fatalf("error %q is not a *cpu.ModelError", err)
			}
			msg := err.Error()
			var name string
			if spec.Flood != nil {
				name = spec.Flood.Program.Name
			} else {
				name = spec.Batch.Program.Name
			}
			wantStep := fmt.Sprintf("%s step %d", name, fc.step)
			if !strings.Contains(msg, wantStep) || !strings.Contains(msg, fc.what) || !strings.Contains(msg, me.At.String()) {
				t.Errorf("error %q; want it to name %q, say %q and give the time %v", msg, wantStep, fc.what, me.At)
			}
			// Every fault here happens within the first few operations: a few
			// µs, far from the run's end.
			if me.At > 10*sim.Microsecond {
				t.Errorf("fault found at %v; want within the first 10 µs", me.At)
			}
		})
	}
}

// Deadlock detection as a property: on 2 to 8 CPUs with jitter, even CPUs
// take a then b and odd CPUs b then a, for every lock kind and many seeds.
// Sooner or later an even and an odd CPU each hold their first lock and wait
// for the other's: every run must end in a deadlock error, never in a silent
// stall (a flood that stops completing packets) or a batch that runs out of
// time.
func TestABBADeadlockAlwaysDetected(t *testing.T) {
	for seed := uint64(0); seed < 60; seed++ {
		for _, kind := range []models.LockKind{models.Ticket, models.MCS, models.TestAndSet} {
			n := 2 + int(seed%7)
			w := newWorld(t, testProfile(cpu.ExponentialJitter), seed, models.DefaultKernel())
			a, b := locks2(t, w, kind)
			nested := func(first, second *models.Spinlock) []cpu.Step {
				return []cpu.Step{
					&models.LockStep{L: first}, compute(w, "x", 300*sim.Nanosecond), &models.LockStep{L: second},
					compute(w, "x", 10*sim.Nanosecond), &models.UnlockStep{L: second}, &models.UnlockStep{L: first},
				}
			}
			even := func(id int) bool { return id%2 == 0 }
			odd := func(id int) bool { return id%2 == 1 }
			steps := []cpu.Step{compute(w, "rx", 200*sim.Nanosecond), onlyOn{even, 6}}
			steps = append(steps, nested(a, b)...)
			steps = append(steps, onlyOn{odd, 6})
			steps = append(steps, nested(b, a)...)
			p := &cpu.Program{Name: "abba", Steps: steps}
			_, err := w.Run(models.RunSpec{Flood: &models.Flood{CPUs: firstN(n), Program: p}, Duration: 5 * sim.Millisecond})
			var me *cpu.ModelError
			if !errors.As(err, &me) || !strings.Contains(me.What, "deadlock") {
				t.Errorf("%v on %d cpus, seed %d: %v; want a deadlock error", kind, n, seed, err)
			}
		}
	}
}
