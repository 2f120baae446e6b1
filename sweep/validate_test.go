package sweep

import (
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"contend/scenarios"
)

// AddAll, one queue over every scenario's points, leaves the validation
// Add leaves, one scenario after another, whatever the number of workers.
func TestAddAllIsAddInTurn(t *testing.T) {
	var scens []*scenarios.Scenario
	var seeds []int64
	for _, name := range []string{"srcu-refperf", "perfbook-cas-small", "qspinlock"} {
		s, err := scenarios.LoadBuiltin(name)
		if err != nil {
			t.Fatal(err)
		}
		scens, seeds = append(scens, s), append(seeds, s.Run.Seed)
	}
	var want Validation
	for i, s := range scens {
		if err := want.Add(s, seeds[i], 0, Runner(s, 1, nil)); err != nil {
			t.Fatal(err)
		}
	}
	if len(want.Rows) == 0 {
		t.Fatal("no rows to compare")
	}
	for _, jobs := range []int{1, 3} {
		var got Validation
		calls, last := 0, 0
		if err := got.AddAll(scens, seeds, jobs, func(done, total int) { calls, last = calls+1, total }); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.Rows, want.Rows) || !reflect.DeepEqual(got.Changes, want.Changes) || !reflect.DeepEqual(got.Tags, want.Tags) {
			t.Errorf("jobs %d: AddAll's rows, changes or tags differ from Add's in turn", jobs)
		}
		if len(got.Series) != len(want.Series) {
			t.Errorf("jobs %d: %d series, want %d", jobs, len(got.Series), len(want.Series))
		}
		if calls < 2 || last < len(want.Rows)/2 {
			t.Errorf("jobs %d: progress was told %d times, last of %d points", jobs, calls, last)
		}
	}
}

// A point that fails fails AddAll with the error Add in turn meets first.
func TestAddAllFailsAsAddDoes(t *testing.T) {
	bad := `name = "bad"
[profile.p]
ghz = 1
sockets = 1
cores_per_socket = 2
l1_hit = "1ns"
same_socket = "50ns"
memory = "90ns"
atomic = "10ns"
wakeup = "20ns"
other_socket = "20ns"
smt_sibling = "20ns"
[[line]]
name = "l"
[[lock]]
name = "k"
kind = "ticket"
[[variant]]
name = "v"
steps = [ { unlock = "k" } ]
[workload]
kind = "flood"
cores = 2
unit = "op"
[run]
duration = "10us"
[[series]]
name = "s"
profile = "p"
variants = ["v"]
axis = "cores"
points = [2]
[[series.reference]]
variant = "v"
x = 2
metric = "throughput"
value = 1
unit = "Mops/s"
role = "validate"
source = "none"
`
	s, err := scenarios.Parse(fstest.MapFS{}, "bad.toml", []byte(bad))
	if err != nil {
		t.Fatal(err)
	}
	ok, err := scenarios.LoadBuiltin("srcu-refperf")
	if err != nil {
		t.Fatal(err)
	}
	var inTurn Validation
	errAdd := inTurn.Add(ok, ok.Run.Seed, 0, Runner(ok, 2, nil))
	if errAdd == nil {
		errAdd = inTurn.Add(s, s.Run.Seed, 0, Runner(s, 2, nil))
	}
	var v Validation
	errAll := v.AddAll([]*scenarios.Scenario{ok, s}, []int64{ok.Run.Seed, s.Run.Seed}, 2, nil)
	if errAdd == nil || errAll == nil || errAll.Error() != errAdd.Error() {
		t.Fatalf("AddAll: %v; Add in turn: %v", errAll, errAdd)
	}
	if !strings.Contains(errAll.Error(), "unlock") {
		t.Errorf("the error does not name the bad unlock: %v", errAll)
	}
}
