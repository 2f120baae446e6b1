package scenarios

import (
	"strings"
	"testing"
)

// A value on an axis reaches the model in the type of what the axis drives:
// a whole count of CPUs or operations, or a param of the param's own type.
func TestAxisValueSetsWhatItDrives(t *testing.T) {
	t.Parallel()
	s := &Scenario{Axes: map[string]Drives{"cores": DrivesCPUs, "filters": DrivesOps, "tasks": DrivesCPUs}}
	params := map[string]Value{"work": {IsTime: true, Dur: Dur{PS: 1000}}, "burst": {Num: 2}}
	cases := []struct {
		axis string
		x    float64
		want func(wl Workload, p map[string]Value) bool
	}{
		{"cores", 3, func(wl Workload, _ map[string]Value) bool { return wl.Cores == 3 }},
		{"tasks", 8, func(wl Workload, _ map[string]Value) bool { return wl.Cores == 8 }},
		{"filters", MaxCount, func(wl Workload, _ map[string]Value) bool { return wl.BatchOps == MaxCount }},
		{"work", 25, func(_ Workload, p map[string]Value) bool { return p["work"].IsTime && p["work"].Dur.PS == 25000 }},
		{"burst", 0.5, func(_ Workload, p map[string]Value) bool { return !p["burst"].IsTime && p["burst"].Num == 0.5 }},
	}
	for _, c := range cases {
		a, msg := s.axisValue(c.axis, c.x, params)
		if msg != "" {
			t.Errorf("%s=%v: %s", c.axis, c.x, msg)
			continue
		}
		wl, p := Workload{Cores: 1, BatchOps: 1}, map[string]Value{"work": params["work"], "burst": params["burst"]}
		a.set(&wl, p)
		if !c.want(wl, p) {
			t.Errorf("%s=%v set workload %+v, params %+v", c.axis, c.x, wl, p)
		}
	}
}

func TestAxisValueRefusesWhatItCannotSet(t *testing.T) {
	t.Parallel()
	s := &Scenario{Axes: map[string]Drives{"cores": DrivesCPUs, "filters": DrivesOps}}
	params := map[string]Value{"work": {IsTime: true}}
	for _, c := range []struct {
		axis string
		x    float64
		want string
	}{
		{"cores", 2.5, "a whole number from 1 to"},
		{"cores", 0, "a whole number from 1 to"},
		{"filters", MaxCount + 1, "a whole number from 1 to"},
		{"work", -1, "finite and at least 0"},
		{"work", MaxStepTime.Nanoseconds() + 1, "a duration takes at most"},
		{"wrok", 1, "is not an axis"},
	} {
		if _, msg := s.axisValue(c.axis, c.x, params); !strings.Contains(msg, c.want) {
			t.Errorf("%s=%v: %q; want it to say %q", c.axis, c.x, msg, c.want)
		}
	}
}
