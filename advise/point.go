package advise

import (
	"fmt"
	"slices"
	"strings"

	"contend/scenarios"
	"contend/sweep"
)

// PointOf checks what advise was asked for against the scenario and returns
// the point it simulates: variant on the series named (default: the first
// that runs it) with cores CPUs (0: the series' largest point on a CPU
// axis, else the workload's cores).
func PointOf(s *scenarios.Scenario, variant, seriesName string, cores int) (scenarios.Point, error) {
	var pt scenarios.Point
	if s.Variant(variant) == nil {
		if variant == "" {
			return pt, fmt.Errorf("--variant: name the variant to improve, one of %s", strings.Join(s.VariantNames(), ", "))
		}
		return pt, fmt.Errorf("--variant %q: %s has no such variant; use one of %s", variant, s.Name, strings.Join(s.VariantNames(), ", "))
	}
	se, err := SeriesOf(s, variant, seriesName)
	if err != nil {
		return pt, err
	}
	axis, x := cpuAxis(s, se)
	if cores > 0 {
		x = float64(cores)
	}
	return scenarios.Point{Series: se, Variant: variant, Axis: axis, X: x}, nil
}

// SeriesOf returns the series asked for, or the first that runs variant.
func SeriesOf(s *scenarios.Scenario, variant, name string) (*scenarios.Series, error) {
	all := sweep.DefaultSeries(s)
	var names []string
	for _, se := range all {
		names = append(names, se.Name)
		if name == se.Name || name == "" && slices.Contains(se.Variants, variant) {
			return se, nil
		}
	}
	if name == "" {
		return all[0], nil
	}
	return nil, fmt.Errorf("--series %q: %s has no such series; use one of %s", name, s.Name, strings.Join(names, ", "))
}

// cpuAxis is the axis that sets the flood's CPUs for se, and its default
// value: the series' largest point, the most contended it measured.
func cpuAxis(s *scenarios.Scenario, se *scenarios.Series) (string, float64) {
	x := float64(s.Workload.Cores)
	if s.AxisDrives(se.Axis) != scenarios.DrivesCPUs {
		return "cores", x
	}
	for _, p := range se.Points {
		x = max(x, p)
	}
	return se.Axis, x
}
