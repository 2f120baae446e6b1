package main

import (
	"encoding/json"
	"slices"

	"contend/models"
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
		Trace []models.Transfer `json:"trace"`
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

// --trace-from starts the listing later in the interval: its transfers are
// the whole interval's from that time on, the same records.
func TestTraceFromSkipsTheStart(t *testing.T) {
	args := []string{"explain", "host-microbench", "--variant", "ticket", "--cores", "2", "--format", "json", "--trace", "100000"}
	var all, late struct {
		Trace []models.Transfer `json:"trace"`
	}
	for _, x := range []struct {
		extra []string
		into  any
	}{{nil, &all}, {[]string{"--trace-from", "100us"}, &late}} {
		if err := json.Unmarshal([]byte(mustRun(t, append(args, x.extra...)...)), x.into); err != nil {
			t.Fatal(err)
		}
	}
	var want []models.Transfer
	for _, tr := range all.Trace {
		if tr.AskedNs >= 100e3 {
			want = append(want, tr)
		}
	}
	if len(want) == 0 || len(want) == len(all.Trace) {
		t.Fatalf("%d of %d transfers asked from 100us on: want some, not all", len(want), len(all.Trace))
	}
	if !slices.Equal(late.Trace, want) {
		t.Fatalf("--trace-from 100us listed %d transfers; want the %d of the whole listing from then on", len(late.Trace), len(want))
	}
}

// --trace-line lists the transfers of the named lines only: the whole
// listing's, in the same order, without the others.
func TestTraceLineKeepsOnlyItsLines(t *testing.T) {
	args := []string{"explain", "host-microbench", "--variant", "ticket", "--cores", "2", "--format", "json", "--trace", "100000"}
	var all, one struct {
		Trace []models.Transfer `json:"trace"`
	}
	for _, x := range []struct {
		extra []string
		into  any
	}{{nil, &all}, {[]string{"--trace-line", "protected"}, &one}} {
		if err := json.Unmarshal([]byte(mustRun(t, append(args, x.extra...)...)), x.into); err != nil {
			t.Fatal(err)
		}
	}
	var want []models.Transfer
	for _, tr := range all.Trace {
		if tr.Line == "protected" {
			want = append(want, tr)
		}
	}
	if len(want) == 0 || len(want) == len(all.Trace) {
		t.Fatalf("%d of %d transfers are of line protected: want some, not all", len(want), len(all.Trace))
	}
	if !slices.Equal(one.Trace, want) {
		t.Fatalf("--trace-line protected listed %d transfers; want the %d of the whole listing on that line", len(one.Trace), len(want))
	}
}
