package main

import (
	"encoding/json"
	"testing"
)

// explain --trace over a whole measured interval lists every transfer the
// c2c table counts, line by line, and nothing from the warm-up: the two are
// counted on different paths (the trace hook, the lines' statistics reset
// at the end of the warm-up).
func TestTraceListsEveryTransferOfTheInterval(t *testing.T) {
	out := mustRun(t, "explain", "host-microbench", "--variant", "ticket", "--cores", "2", "--trace", "100000", "--format", "json")
	var res struct {
		Lines []struct {
			Name      string `json:"name"`
			Transfers uint64 `json:"transfers"`
		} `json:"lines"`
		Trace []traced `json:"trace"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Trace) == 0 || len(res.Trace) == maxTrace {
		t.Fatalf("trace has %d transfers; want the whole interval's, fewer than %d", len(res.Trace), maxTrace)
	}
	byLine := map[string]uint64{}
	for _, tr := range res.Trace {
		if tr.AskedNs < 0 || tr.QueuedNs < 0 || tr.TransferNs <= 0 {
			t.Fatalf("transfer %+v: asked before the interval, or a negative wait or transfer", tr)
		}
		byLine[tr.Line]++
	}
	for _, l := range res.Lines {
		if byLine[l.Name] != l.Transfers {
			t.Errorf("line %s: trace lists %d transfers, c2c counts %d", l.Name, byLine[l.Name], l.Transfers)
		}
		delete(byLine, l.Name)
	}
	if len(byLine) > 0 {
		t.Errorf("trace lists lines the result does not: %v", byLine)
	}
}
