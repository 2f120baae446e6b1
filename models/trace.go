package models

import (
	"slices"

	"contend/cpu"
	"contend/sim"
)

// Transfer is one line transfer of a run as explain --trace and the
// browser list it, its times in ns from the start of the measured interval.
type Transfer struct {
	AskedNs    float64 `json:"asked_ns"`
	QueuedNs   float64 `json:"queued_ns"`   // waiting for the line's home to take the request up
	TransferNs float64 `json:"transfer_ns"` // from then until the line came
	CPU        int     `json:"cpu"`
	Symbol     string  `json:"symbol"` // the step that asked; empty for a spinning CPU's re-read
	Line       string  `json:"line"`
	Op         string  `json:"op"`
	From       string  `json:"from"` // who served it: a distance (socket, remote, ...), llc or memory
	HITM       bool    `json:"hitm"` // the line was modified in another CPU's cache
}

// RecordTransfers keeps the first n line transfers that the run of spec
// asks for, from the time from into its measured interval on, of the named
// lines only if any are named. Call the returned function after the run to
// get them.
func (w *World) RecordTransfers(spec RunSpec, from sim.Time, n int, lines ...string) func() []Transfer {
	var out []Transfer
	start := spec.Warmup
	w.M.TraceTransfers(start+from, func(t cpu.Traced) {
		if len(out) < n && (len(lines) == 0 || slices.Contains(lines, t.Line.Name)) {
			out = append(out, Transfer{
				AskedNs:    (t.Asked - start).Nanoseconds(),
				QueuedNs:   (t.Start - t.Asked).Nanoseconds(),
				TransferNs: (t.End - t.Start).Nanoseconds(),
				CPU:        t.Core,
				Symbol:     t.Label,
				Line:       t.Line.Name,
				Op:         t.Op.String(),
				From:       t.From.String(),
				HITM:       t.HITM,
			})
		}
	})
	return func() []Transfer { return out }
}
