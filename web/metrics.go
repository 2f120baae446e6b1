package web

import (
	"strings"

	"contend/scenarios"
)

// metricUnit is a figure a point is judged by and the unit it is given in.
type metricUnit struct{ metric, unit string }

// headlineMetric says whether a reference's metric is one a run or a sweep
// is drawn in: the shares of cycles belong to the explain tables.
func headlineMetric(metric string) bool {
	return !strings.HasPrefix(metric, "share_of_cycles_")
}

// naturalMetrics are the figures of a workload with no references, in the
// units contend run gives them: rates in the scenario's unit of work per
// second (Mpps, Mlocks/s), times in s and ms.
func naturalMetrics(sc *scenarios.Scenario) []metricUnit {
	rate := sc.RateUnit()
	switch sc.Workload.Kind {
	case scenarios.WorkloadBatch:
		return []metricUnit{{"duration", "s"}, {"cpu_util", "%"}}
	case scenarios.WorkloadBoth:
		return []metricUnit{{"duration", "s"}, {"cpu_util", "%"}, {"grace_period", "ms"}, {"throughput_per_core", rate}}
	}
	if sc.Workload.Rate > 0 {
		return []metricUnit{{"throughput_per_core", rate}, {"throughput", rate}, {"drops", "%"}}
	}
	return []metricUnit{{"throughput_per_core", rate}, {"throughput", rate}}
}

// pointMetrics are the figures a run of variant on se shows, the first its
// headline: the metrics the series measures for that variant, in the units
// of its references (a cost in ns, a duration in s, a rate in kpps), then
// those it measures for other variants, then the workload's own. A metric
// comes once, in the unit it first comes with.
func pointMetrics(sc *scenarios.Scenario, se *scenarios.Series, variant string) []metricUnit {
	var out []metricUnit
	seen := map[string]bool{}
	add := func(m metricUnit) {
		if !seen[m.metric] && headlineMetric(m.metric) {
			seen[m.metric] = true
			out = append(out, m)
		}
	}
	if se != nil {
		for _, own := range []bool{true, false} {
			for _, r := range se.Refs {
				if (r.Variant == variant) == own {
					add(metricUnit{r.Metric, r.Unit})
				}
			}
		}
	}
	for _, m := range naturalMetrics(sc) {
		add(m)
	}
	return out
}

// sweepMetric is what a sweep of se draws over its axis: the first metric
// its references measure, so that they fall on the chart in their own unit,
// else the workload's first figure.
func sweepMetric(sc *scenarios.Scenario, se *scenarios.Series) metricUnit {
	return pointMetrics(sc, se, "")[0]
}

// countingAxis says whether an axis counts things (CPUs, operations), whose
// ticks are whole numbers.
func countingAxis(sc *scenarios.Scenario, axis string) bool {
	return sc.AxisDrives(axis) != scenarios.DrivesParam
}
