package scenarios

import (
	"fmt"
	"slices"
	"strings"

	"contend/models"
)

// Metric extracts a reference metric, in unit, from a result.
func Metric(r *models.Result, metric, unit string) (float64, error) {
	scale, known := map[string]float64{"Mpps": 1e-6, "kpps": 1e-3, "pps": 1, "s": 1, "ms": 1e3, "us": 1e6, "ns": 1, "%": 1}[unit]
	if !known && strings.HasSuffix(unit, "/s") {
		// A rate in a scenario's own unit of work: Mops/s, kcalls/s, ops/s.
		scale = map[byte]float64{'M': 1e-6, 'k': 1e-3}[unit[0]]
		if scale == 0 {
			scale = 1
		}
	}
	switch metric {
	case "cycles_per_packet":
		// perf stat's cycles over the packets: on-CPU time, the clock.
		var ns float64
		for _, l := range r.Profile {
			ns += l.NsPerPacket
		}
		return ns * r.GHz, nil
	case "transfers_per_packet":
		// What cache-references per packet measure: lines that moved.
		var n float64
		for _, l := range r.Lines {
			n += l.TransfersPerPacket
		}
		return n, nil
	case "throughput_per_core":
		return r.PPSPerCore * scale, nil
	case "throughput":
		return r.PPS * scale, nil
	case "cost":
		if r.PPSPerCore == 0 {
			// An infinite cost would print as +Inf% and break JSON.
			return 0, fmt.Errorf("cost: no packet completed in the measured interval, so there is no cost per packet; lengthen [run] duration or check the steps' durations")
		}
		return 1e9 / r.PPSPerCore, nil
	case "duration":
		if r.Batch == nil {
			return 0, fmt.Errorf("duration needs a batch workload")
		}
		return r.Batch.Seconds * scale, nil
	case "drops":
		if r.Offered == 0 {
			return 0, nil
		}
		return 100 * float64(r.Dropped) / float64(r.Offered), nil
	case "grace_period":
		return r.RCU.MeanGPMs * scale / 1e3, nil
	case "grace_periods":
		// rcuperf's "batches": grace periods completed during the run.
		return float64(r.RCU.GracePeriods), nil
	case "cpu_util":
		if r.Batch == nil {
			return 0, fmt.Errorf("cpu_util needs a batch workload")
		}
		return 100 * r.Batch.CPUUtil, nil
	}
	if prefix, name, ok := objectMetric(metric); ok {
		if prefix == MeanWait { // seconds, in a time unit
			return objectValue(r, prefix, name) * map[string]float64{"ms": 1e3, "us": 1e6, "ns": 1e9}[unit], nil
		}
		return objectValue(r, prefix, name), nil
	}
	if label, ok := strings.CutPrefix(metric, "share_of_cycles_"); ok {
		return cyclesShare(r, label), nil
	}
	if label, ok := strings.CutPrefix(metric, "offcpu_in_"); ok {
		if r.Batch == nil {
			return 0, fmt.Errorf("offcpu needs a batch workload")
		}
		for _, o := range r.Batch.OffCPU {
			if o.Label == label {
				return o.Seconds, nil
			}
		}
		return 0, nil
	}
	if stat, call, ok := latencyMetric(metric); ok {
		l := &r.RCU.GPLatency
		if call != "" {
			l = nil
			for i := range r.RCU.Calls {
				if r.RCU.Calls[i].Call == call {
					l = &r.RCU.Calls[i].Latency
				}
			}
		}
		if l == nil || l.Count == 0 {
			return 0, fmt.Errorf("%s: no %s completed in the measured interval; lengthen [run] duration or check that the variant calls it", metric, map[bool]string{true: "grace period", false: call}[call == ""])
		}
		v, _ := l.Stat(stat)
		return v / 1e6 * scale, nil
	}
	return 0, fmt.Errorf("unknown metric %q", metric)
}

// latencyMetric parses <stat>_grace_period and <stat>_latency_<call>: a
// statistic of the grace periods' distribution (call is empty) or of one
// kind of RCU call's.
func latencyMetric(metric string) (stat, call string, ok bool) {
	stat, rest, found := strings.Cut(metric, "_")
	if !found || !slices.Contains(models.LatencyStats, stat) {
		return "", "", false
	}
	if rest == "grace_period" {
		return stat, "", true
	}
	call, ok = strings.CutPrefix(rest, "latency_")
	return stat, call, ok && slices.Contains(models.CallNames(), call)
}

// Replicate expands each point into the scenario's replications, with seeds
// seed, seed+1, ...; Mean folds the results back.
func (s *Scenario) Replicate(pts []Point) []Point {
	n := max(s.Run.Replications, 1)
	out := make([]Point, 0, len(pts)*n)
	for _, p := range pts {
		for i := range n {
			q := p
			q.Seed = p.Seed + int64(i)
			out = append(out, q)
		}
	}
	return out
}

// MeanMetric is the mean of a metric over the replications of point i of a
// replicated run.
func (s *Scenario) MeanMetric(results []*models.Result, i int, metric, unit string) (float64, error) {
	n := max(s.Run.Replications, 1)
	var sum float64
	for _, r := range results[i*n : (i+1)*n] {
		v, err := Metric(r, metric, unit)
		if err != nil {
			return 0, err
		}
		sum += v
	}
	return sum / float64(n), nil
}

// What a point that completed no packet is noted with.
const (
	NoteTooShort = "no packet completed: the run is shorter than one packet; lengthen [run] duration"
	NoteWaiting  = "no packet completed: the CPUs spent most of the run waiting on a lock or asleep, a deadlock or starvation; see contend explain"
)

// pointNote says why point i of a replicated run completed no packet in a
// replication, or else why a replication's rate had not settled
// (models.Result.Unsteady), or is "".
func (s *Scenario) pointNote(results []*models.Result, i int) string {
	n := max(s.Run.Replications, 1)
	for _, r := range results[i*n : (i+1)*n] {
		switch idle, waiting := r.Idle(); {
		case waiting:
			return NoteWaiting
		case idle:
			return NoteTooShort
		}
	}
	for _, r := range results[i*n : (i+1)*n] {
		if why := r.Unsteady(); why != "" {
			return why
		}
	}
	return ""
}

// Row is one reference point with its prediction.
type Row struct {
	Scenario  string  `json:"scenario"`
	Series    string  `json:"series"`
	Variant   string  `json:"variant"`
	Axis      string  `json:"axis"`
	X         float64 `json:"x"`
	Metric    string  `json:"metric"`
	Unit      string  `json:"unit"`
	Measured  float64 `json:"measured"`
	Predicted float64 `json:"predicted"`
	ErrorPct  float64 `json:"error_pct"`
	Role      string  `json:"role"`
	Source    string  `json:"source"`
	// Note says why the prediction is not a figure (no packet completed
	// in the simulated interval of its point: NoteTooShort, NoteWaiting),
	// or why it is not a settled one (models.Result.Unsteady).
	Note string `json:"note,omitempty"`
}

// RefPoint returns the simulation point of a reference.
func (s *Scenario) RefPoint(se *Series, ref Reference, seed int64, over map[string]float64) Point {
	return Point{Series: se, Variant: ref.Variant, Axis: ref.Axis, X: ref.X, Seed: seed, Overrides: over}
}

// Predict simulates every reference of a series (with optional overrides)
// and returns one row per reference. Points shared by several references are
// simulated once.
func (s *Scenario) Predict(se *Series, seed int64, over map[string]float64, run func([]Point) ([]*models.Result, error)) ([]Row, error) {
	var pts []Point
	index := map[string]int{}
	keyOf := func(r Reference) string { return fmt.Sprintf("%s|%s|%v", r.Variant, r.Axis, r.X) }
	for _, r := range se.Refs {
		k := keyOf(r)
		if _, ok := index[k]; !ok {
			index[k] = len(pts)
			pts = append(pts, s.RefPoint(se, r, seed, over))
		}
	}
	results, err := run(s.Replicate(pts))
	if err != nil {
		return nil, err
	}
	rows := make([]Row, 0, len(se.Refs))
	for _, r := range se.Refs {
		pred, err := s.MeanMetric(results, index[keyOf(r)], r.Metric, r.Unit)
		if err != nil {
			return nil, fmt.Errorf("%s: series %s: %s: %w", s.Name, se.Name, r.Metric, err)
		}
		rows = append(rows, Row{Scenario: r.Scenario, Series: se.Name, Variant: r.Variant, Axis: r.Axis, X: r.X,
			Metric: r.Metric, Unit: r.Unit, Measured: r.Value, Predicted: pred,
			ErrorPct: 100 * (pred - r.Value) / r.Value, Role: r.Role, Source: r.Source,
			Note: s.pointNote(results, index[keyOf(r)])})
	}
	return rows, nil
}

// Change is what one variant changes against its series' base at one point
// of one metric: the change measured (the two references) and predicted
// (the two predictions), in percent of the base.
type Change struct {
	Scenario     string  `json:"scenario"`
	Series       string  `json:"series"`
	Variant      string  `json:"variant"`
	Base         string  `json:"base"`
	Axis         string  `json:"axis"`
	X            float64 `json:"x"`
	Metric       string  `json:"metric"`
	MeasuredPct  float64 `json:"measured_pct"`
	PredictedPct float64 `json:"predicted_pct"`
}

// Changes pairs each row of series se that is not its base with the base's
// row at the same point and metric. Rows of other series are ignored; a
// series without a base has none.
func Changes(se *Series, rows []Row) []Change {
	if se.Base == "" {
		return nil
	}
	type key struct {
		axis, metric string
		x            float64
	}
	base := map[key]Row{}
	for _, r := range rows {
		if r.Series == se.Name && r.Variant == se.Base {
			base[key{r.Axis, r.Metric, r.X}] = r
		}
	}
	var out []Change
	for _, r := range rows {
		b, ok := base[key{r.Axis, r.Metric, r.X}]
		if r.Series != se.Name || r.Variant == se.Base || !ok || b.Measured == 0 || b.Predicted == 0 {
			continue
		}
		out = append(out, Change{Scenario: r.Scenario, Series: r.Series, Variant: r.Variant, Base: se.Base,
			Axis: r.Axis, X: r.X, Metric: r.Metric,
			MeasuredPct: 100 * (r.Measured/b.Measured - 1), PredictedPct: 100 * (r.Predicted/b.Predicted - 1)})
	}
	return out
}

// cyclesShare is label's share of the cycles a system-wide perf record
// counts: every CPU's on-CPU time, the flood's and the batch CPU's together
// when both run (Result.Profile is then the flood's and Batch.Profile the
// batch CPU's, each per its own operations).
func cyclesShare(r *models.Result, label string) float64 {
	if r.Batch == nil || r.Batch.Profile == nil {
		for _, l := range r.Profile {
			if l.Label == label {
				return l.CyclesPct
			}
		}
		return 0
	}
	var all, mine float64
	add := func(prof []models.LabelResult, ops float64) {
		for _, l := range prof {
			all += l.NsPerPacket * ops
			if l.Label == label {
				mine += l.NsPerPacket * ops
			}
		}
	}
	add(r.Profile, float64(r.Packets))
	add(r.Batch.Profile, float64(r.Batch.Ops))
	if all == 0 {
		return 0
	}
	return 100 * mine / all
}
