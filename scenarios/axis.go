package scenarios

import (
	"fmt"
	"math"

	"contend/cpu"
)

// Drives is what an axis sets at each point: the flood's CPUs, the batch's
// operations, or the param of the axis's name.
type Drives uint8

// What an axis drives. A name that is neither a built-in axis nor one of
// the file's [axes] drives the param of that name.
const (
	DrivesParam Drives = iota
	DrivesCPUs         // the flood's CPUs
	DrivesOps          // the batch's operations
)

// drivesNames are the words of [axes], by what they drive.
var drivesNames = [...]string{DrivesParam: "param", DrivesCPUs: "cpus", DrivesOps: "ops"}

var drivesWhat = [...]string{DrivesCPUs: "flood CPUs", DrivesOps: "operations in the batch"}

func (d Drives) String() string { return drivesNames[d] }

// parseDrives reads what one of the file's own axes drives.
func parseDrives(s string) (Drives, bool) {
	switch s {
	case "cpus":
		return DrivesCPUs, true
	case "ops":
		return DrivesOps, true
	}
	return DrivesParam, false
}

// builtinAxes are the axis names every scenario understands.
var builtinAxes = map[string]Drives{"cores": DrivesCPUs, "rx_queues": DrivesCPUs, "threads": DrivesCPUs, "filters": DrivesOps}

// AxisDrives says what axis name drives; DrivesParam for a param (or no
// such axis).
func (s *Scenario) AxisDrives(name string) Drives { return s.Axes[name] }

// axes reads the file's own axis names.
func (c *checker) axes(raw map[string]string) {
	c.s.Axes = map[string]Drives{}
	for k, v := range builtinAxes {
		c.s.Axes[k] = v
	}
	for _, name := range sortedKeys(raw) {
		at := []string{"[axes]", keyNeedle(name)}
		d, ok := parseDrives(raw[name])
		switch _, isParam := c.s.Params[name]; {
		case builtinAxes[name] != DrivesParam:
			c.fail("axes."+name, at, "%q is a built-in axis already; give yours another name", name)
		case name == PlacementAxis:
			c.fail("axes."+name, at, "%q is where the threads run, swept by name under [sweep]; give your axis another name", name)
		case isParam:
			c.fail("axes."+name, at, "%q is a param, and a param is an axis by itself; drop it here or rename one", name)
		case !ok:
			c.fail("axes."+name, at, "%q; an axis drives \"cpus\" (the flood's CPUs) or \"ops\" (the batch's operations)", raw[name])
		}
		c.s.Axes[name] = d
	}
}

// axisValue is a point's value on its axis, in the type the model takes it:
// a count of CPUs or operations, or the value of a param.
type axisValue struct {
	drives Drives
	count  int64
	param  string
	value  Value
}

// axisValue reads x as a value of axis name, or says what is wrong with it.
// Counts are whole and bounded; a param's value is finite and at least 0,
// and a duration param's (in ns) within MaxStepTime. params are the values
// the point starts from, to know a param's type.
func (s *Scenario) axisValue(name string, x float64, params map[string]Value) (axisValue, string) {
	if drives, ok := s.Axes[name]; ok && drives != DrivesParam {
		most := float64(cpu.MaxCPUs)
		if drives == DrivesOps {
			most = MaxCount
		}
		if !finite(x) || x != math.Trunc(x) || x < 1 || x > most {
			return axisValue{}, fmt.Sprintf("%v; %s counts %s, a whole number from 1 to %v", x, name, drivesWhat[drives], most)
		}
		return axisValue{drives: drives, count: int64(x)}, ""
	}
	v, ok := params[name]
	switch {
	case !ok:
		return axisValue{}, notAnAxis(name)
	case !finite(x) || x < 0:
		return axisValue{}, fmt.Sprintf("%v; values of %s are finite and at least 0", x, name)
	case v.IsTime && x > MaxStepTime.Nanoseconds():
		return axisValue{}, fmt.Sprintf("%v ns; a duration takes at most %v", x, MaxStepTime)
	}
	if v.IsTime {
		v.Dur = Dur{PS: x * 1000}
	} else {
		v.Num = x
	}
	return axisValue{param: name, value: v}, ""
}

// isAxis says whether a point may take name as its axis.
func (s *Scenario) isAxis(name string, params map[string]Value) bool {
	_, isParam := params[name]
	return s.Axes[name] != DrivesParam || isParam
}

func notAnAxis(name string) string {
	return fmt.Sprintf("%q is not an axis; sweep cores, rx_queues, threads, filters, a param, or name your own under [axes]", name)
}

// set puts the value where its axis drives it.
func (a axisValue) set(wl *Workload, params map[string]Value) {
	switch a.drives {
	case DrivesCPUs:
		wl.Cores = int(a.count)
	case DrivesOps:
		wl.BatchOps = a.count
	default:
		params[a.param] = a.value
	}
}
