package web

import (
	"contend/models"
	"contend/scenarios"
)

// Version is the protocol version, sent in the hello message. It changes when
// a message loses a field or a field changes meaning; new fields do not
// change it.
const Version = 1

// Request is any message from the page. Type says which: "start" (a run of
// one point), "sweep" (every point of a series), "watch" (join a run another
// page started), "stop" (leave the run being watched) or "ack" (a sample
// frame has been taken in; the next is sent only then).
type Request struct {
	Type     string `json:"type"`
	Scenario string `json:"scenario"`
	// Text, if set, is the scenario's TOML as edited in the page; it is
	// loaded instead of the named scenario's file (includes still resolve).
	Text    string `json:"text,omitempty"`
	Series  string `json:"series,omitempty"`
	Variant string `json:"variant,omitempty"`
	// Axis and X pick the point, or Cores alone (axis "cores"); none of
	// them runs the scenario's own. Absent and 0 differ, hence pointers.
	Axis     string   `json:"axis,omitempty"`
	X        *float64 `json:"x,omitempty"`
	Cores    *int     `json:"cores,omitempty"`
	Duration string   `json:"duration,omitempty"` // measured interval of a flood, e.g. "2ms"
	Seed     int64    `json:"seed,omitempty"`     // 0: the scenario's
	Run      string   `json:"run,omitempty"`      // watch: the run's id
}

// Hello is the first message on a connection.
type Hello struct {
	Type    string  `json:"type"` // "hello"
	Version int     `json:"version"`
	MaxFPS  float64 `json:"max_fps"`
}

// Started tells the page what a run simulates and how to read its samples.
type Started struct {
	Type     string  `json:"type"` // "started"
	Run      string  `json:"run"`
	Scenario string  `json:"scenario"`
	Series   string  `json:"series"`
	Variant  string  `json:"variant"`
	Axis     string  `json:"axis"`
	X        float64 `json:"x"`
	Seed     int64   `json:"seed"`
	WarmupNs float64 `json:"warmup_ns"`
	// DurationNs is the measured interval of a flood; 0 for a batch, which
	// runs until it is done.
	DurationNs float64 `json:"duration_ns"`
	// CPUs and Lines name the columns of a sample's per-CPU and per-line
	// fields; States names the columns of a CPU's state fractions.
	CPUs []int `json:"cpus"`
	// FloodCPUs is how many of CPUs, the first, run the flood; the batch's
	// CPU, if any, is the last.
	FloodCPUs int      `json:"flood_cpus"`
	Lines     []string `json:"lines"`
	States    []string `json:"states"`
	// Replications is how many runs the final figure averages; the first
	// is streamed.
	Replications int `json:"replications"`
	// Metrics are the figures done will carry, in their order and units:
	// the first is the run's headline (the series' own metric for the
	// variant: a cost in ns, a duration in s, a rate in kpps).
	Metrics []MetricUnit `json:"metrics"`
	// RateUnit is the unit of the throughput charts: the scenario's unit
	// of work per second, in millions ("Mpps", "Mlocks/s").
	RateUnit string `json:"rate_unit"`
	// WorkUnit names one run of the flood's program ("packet", "lock");
	// BatchUnit one operation of the batch ("filter", "op").
	WorkUnit  string `json:"work_unit"`
	BatchUnit string `json:"batch_unit"`
	// EndNs is when the run is expected to end (warm-up included): a
	// flood's warm-up and duration, a batch's end as a probe of its first
	// events estimates it; 0 when no estimate could be made.
	EndNs float64 `json:"end_ns"`
	// AxisCounts says the axis counts things (CPUs, operations): its
	// values are whole numbers.
	AxisCounts bool `json:"axis_counts"`
}

// MetricUnit names a figure and the unit it is given in.
type MetricUnit struct {
	Metric string `json:"metric"`
	Unit   string `json:"unit"`
}

// Frame carries the samples taken since the previous frame. The server sends
// at most MaxFPS frames a second to a page; samples a page could not take in
// time are dropped, never waited for, and counted in Dropped.
type Frame struct {
	Type    string   `json:"type"` // "sample"
	Run     string   `json:"run"`
	Samples []Sample `json:"samples"`
	Dropped uint64   `json:"dropped"` // samples this page has missed so far
	// AgeMs is how long the oldest sample waited in the server; the server
	// drops samples older than half a second rather than deliver them.
	AgeMs float64 `json:"age_ms"`
	// SentUnixMs is when the frame left the server (Unix time, ms).
	SentUnixMs float64 `json:"sent_unix_ms"`
}

// Sample is one point of the live charts. Rates and state fractions are over
// the interval since the previous sample; counts are cumulative over the
// measured interval.
type Sample struct {
	NowNs float64 `json:"now_ns"` // simulated time since the start, warm-up included
	// Measuring is false during warm-up, whose counts are discarded.
	Measuring bool      `json:"measuring"`
	PPS       []float64 `json:"pps"` // per flood CPU
	TotalPPS  float64   `json:"total_pps"`
	// Packets counts each flood CPU's runs of its program (packets,
	// locks) over the measured interval so far, the divisor of a per
	// packet figure.
	Packets []uint64 `json:"packets"`
	// States[i] is how CPUs[i] spent the interval: fractions in the order of
	// Started.States.
	States    [][]float64 `json:"states"`
	Transfers [][]uint64  `json:"transfers"` // [line][cpu], cumulative
	// LockWait counts spinning-lock waits by length, bucket i holding
	// [2^i, 2^(i+1)) ns; cumulative.
	LockWait     []uint64 `json:"lock_wait"`
	BatchOps     int64    `json:"batch_ops"`
	GracePeriods uint64   `json:"grace_periods"`
	GPActive     bool     `json:"gp_active"`
	GPStartNs    float64  `json:"gp_start_ns"`
	PendingBytes float64  `json:"pending_bytes"`
}

// Metric is one figure of a finished point, in the unit the CLI prints it,
// with its error band.
type Metric struct {
	Metric string  `json:"metric"`
	Unit   string  `json:"unit"`
	Value  float64 `json:"value"`
	Band   Band    `json:"band"`
}

// Band is a prediction's 90% error band (package band): how far, over the
// published cases, the measured figure has lain from a prediction of its
// kind. Kind is empty, and the rest zero, for a prediction of a kind no
// published case has (or a calibrate point, which is a fit).
type Band struct {
	Kind string `json:"kind"`
	// Width is the half-width: in percent of the prediction, in points
	// for a change. Low and High bound the band around the prediction.
	Width float64 `json:"width"`
	Low   float64 `json:"low"`
	High  float64 `json:"high"`
	// Text is what the CLI prints of it: "±77% (90%: 23 of 24 published
	// predictions of this kind fell within it)".
	Text string `json:"text"`
}

// RefRow is a reference point against its prediction, as contend
// validate gives it, with its error band.
type RefRow struct {
	scenarios.Row
	Band Band `json:"band"`
}

// ChangeRow is a change against the series' base, as contend validate
// --changes gives it, with its error band in points.
type ChangeRow struct {
	scenarios.Change
	Band Band `json:"band"`
}

// Done is the end of a run: the figures `contend run` prints for the point
// (the mean over the scenario's replications) and the first replication's
// full result, whose profile and lines are the explain tables.
type Done struct {
	Type    string         `json:"type"` // "done"
	Run     string         `json:"run"`
	Metrics []Metric       `json:"metrics"`
	Result  *models.Result `json:"result"`
	// Trace is the first line transfers of the first replication's
	// measured interval (contend explain --trace).
	Trace []models.Transfer `json:"trace"`
	// Explain is the rest of contend explain for the point: its "why:"
	// paragraphs, the kernel and where the CPUs sit.
	Explain Explain `json:"explain"`
}

// traceLen is how many line transfers a done message lists.
const traceLen = 40

// Stopped says the page no longer watches the run.
type Stopped struct {
	Type string `json:"type"` // "stopped"
	Run  string `json:"run"`
}

// SweepDone is a series simulated at every point of its axis, with its
// reference points and the errors of their predictions.
type SweepDone struct {
	Type     string `json:"type"` // "sweep_done"
	Scenario string `json:"scenario"`
	Series   string `json:"series"`
	Axis     string `json:"axis"`
	Metric   string `json:"metric"`
	Unit     string `json:"unit"`
	// AxisCounts says the axis counts things (CPUs, operations).
	AxisCounts bool        `json:"axis_counts"`
	X          []float64   `json:"x"`
	Variants   []string    `json:"variants"`
	Values     [][]float64 `json:"values"` // [variant][x]
	// Bands holds each value's error band ([variant][x]).
	Bands [][]Band `json:"bands"`
	Refs  []RefRow `json:"refs"`
	// Changes pairs the refs with the series' base (scenarios.Changes);
	// empty when the series names no base.
	Changes []ChangeRow `json:"changes"`
}

// Queued says a run waits for a slot (serve --max-runs are going): Position
// 1 is the next to start; 0 says it starts now. Going is how many run.
type Queued struct {
	Type     string `json:"type"` // "queued"
	Run      string `json:"run"`
	Position int    `json:"position"`
	Going    int    `json:"going"`
}

// Progress counts the points of a sweep done so far.
type Progress struct {
	Type  string `json:"type"` // "progress"
	Done  int    `json:"done"`
	Total int    `json:"total"`
}

// Error reports a bad request or a failed run. A scenario error carries its
// place in the file.
type Error struct {
	Type    string `json:"type"` // "error"
	Run     string `json:"run,omitempty"`
	Message string `json:"message"`
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
	Field   string `json:"field,omitempty"`
}

// ScenarioInfo is one entry of GET /api/scenarios.
type ScenarioInfo struct {
	Name        string       `json:"name"`
	Description string       `json:"description"`
	Source      string       `json:"source"` // "builtin" or "dir"
	Workload    string       `json:"workload"`
	Variants    []string     `json:"variants"`
	Series      []SeriesInfo `json:"series"`
	Axes        []AxisInfo   `json:"axes"`
	DurationNs  float64      `json:"duration_ns"` // the run's measured interval; 0 for a batch
	Seed        int64        `json:"seed"`
}

// SeriesInfo is a measured machine of a scenario.
type SeriesInfo struct {
	Name        string    `json:"name"`
	Description string    `json:"description"`
	Profile     string    `json:"profile"`
	Variants    []string  `json:"variants"`
	Axis        string    `json:"axis"`
	AxisCounts  bool      `json:"axis_counts"` // the axis counts CPUs or operations
	Points      []float64 `json:"points"`
}

// AxisInfo is a sweep axis.
type AxisInfo struct {
	Name   string    `json:"name"`
	Values []float64 `json:"values"`
}

// CheckResult answers POST /api/check: no errors means the text loads.
type CheckResult struct {
	OK     bool    `json:"ok"`
	Errors []Error `json:"errors"`
}
