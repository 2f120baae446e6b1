package scenarios

import (
	"reflect"
	"strings"
	"testing"

	"contend/models"
)

// Every operation key of the schema is one step kind, and every kind reads
// its own key: a key without a kind would parse as a compute step.
func TestStepKindsCoverTheSchema(t *testing.T) {
	t.Parallel()
	typ := reflect.TypeFor[stepRaw]()
	kinds := 0
	for i := 0; i < typ.NumField(); i++ {
		key := strings.Split(typ.Field(i).Tag.Get("toml"), ",")[0]
		if key == "label" || key == "steps" || key == "callback" || key == "free" || key == "retries" || key == "fallback" || key == "independent" || key == "relax" {
			continue
		}
		kinds++
		found := false
		for k := StepCompute; k < numStepKinds; k++ {
			if k.String() == key {
				found = true
				if stepFields[k] != i {
					t.Errorf("kind %v reads field %d; its key is field %d", k, stepFields[k], i)
				}
			}
		}
		if !found {
			t.Errorf("step key %q has no StepKind", key)
		}
	}
	if kinds != int(numStepKinds)-1 {
		t.Errorf("%d step keys in the schema, %d kinds", kinds, numStepKinds-1)
	}
}

func TestWorkloadKindRoundTrip(t *testing.T) {
	t.Parallel()
	for _, k := range []WorkloadKind{WorkloadFlood, WorkloadBatch, WorkloadBoth} {
		got, ok := parseWorkloadKind(k.String())
		if !ok || got != k {
			t.Errorf("parseWorkloadKind(%q) = %v, %v; want %v", k.String(), got, ok, k)
		}
	}
	if _, ok := parseWorkloadKind("Flood"); ok {
		t.Error("parseWorkloadKind accepts \"Flood\"; kinds are lowercase, as written in files")
	}
}

// Every kind the error message offers parses to its class; a spinlock's
// to the implementation of its name.
func TestParseLockKind(t *testing.T) {
	t.Parallel()
	for k, want := range map[string]lockClass{"ticket": spinlockClass, "qspinlock": spinlockClass, "cna": spinlockClass, "mcs": spinlockClass,
		"tas": spinlockClass, "ttas": spinlockClass, "rwlock": rwlockClass, "mutex": mutexClass, "rw_semaphore": rwsemClass, "percpu_rw_semaphore": percpuRwsemClass, "spinlock": notALock, "": notALock} {
		class, spin := parseLockKind(k)
		if class != want {
			t.Errorf("parseLockKind(%q) is a %q; want a %q", k, class, want)
		}
		if m, ok := models.ParseLockKind(k); ok && spin != m {
			t.Errorf("parseLockKind(%q) runs %v; want %v", k, spin, m)
		}
	}
}
