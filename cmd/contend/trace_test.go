package main

import (
	"encoding/json"
	"slices"
	"strings"

	"testing"

	"contend/models"
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

// ticketTrace is explain --trace's whole listing of host-microbench's
// 2-CPU ticket lock, with the extra flags.
func ticketTrace(t *testing.T, extra ...string) []models.Transfer {
	t.Helper()
	args := append([]string{"explain", "host-microbench", "--variant", "ticket", "--cores", "2", "--format", "json", "--trace", "100000"}, extra...)
	var out struct {
		Trace []models.Transfer `json:"trace"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, args...)), &out); err != nil {
		t.Fatal(err)
	}
	return out.Trace
}

// filterFlag checks that a flag lists exactly the records of the whole
// listing that keep says, in order, and that keep drops some but not all.
func filterFlag(t *testing.T, flag, value string, keep func(models.Transfer) bool) {
	t.Helper()
	all := ticketTrace(t)
	want := slices.DeleteFunc(slices.Clone(all), func(tr models.Transfer) bool { return !keep(tr) })
	if len(want) == 0 || len(want) == len(all) {
		t.Fatalf("%s %s keeps %d of %d transfers: want some, not all", flag, value, len(want), len(all))
	}
	if got := ticketTrace(t, flag, value); !slices.Equal(got, want) {
		t.Fatalf("%s %s listed %d transfers; want those %d of the whole listing", flag, value, len(got), len(want))
	}
}

// --trace-from starts the listing later in the interval: its transfers are
// the whole interval's from that time on, the same records.
func TestTraceFromSkipsTheStart(t *testing.T) {
	filterFlag(t, "--trace-from", "100us", func(tr models.Transfer) bool { return tr.AskedNs >= 100e3 })
}

// --trace-line lists the transfers of the named lines only: the whole
// listing's, in the same order, without the others.
func TestTraceLineKeepsOnlyItsLines(t *testing.T) {
	filterFlag(t, "--trace-line", "protected", func(tr models.Transfer) bool { return tr.Line == "protected" })
}

// explain names the grace-period kthread's CPU where it held grace periods
// to a second scan (6.9's timer pull model), and not once rcu_gp_init
// reports it (the patch of gp-kthread-qs-after).
func TestExplainNamesKthreadHoldout(t *testing.T) {
	before := mustRun(t, "explain", "gp-kthread-qs-before", "--variant", "sync")
	if !strings.Contains(before, "In 100 of them the first scan found the kthread's own CPU (the last) still owed") {
		t.Errorf("explain gp-kthread-qs-before says nothing of the kthread's CPU:\n%s", before)
	}
	if after := mustRun(t, "explain", "gp-kthread-qs-after", "--variant", "sync"); strings.Contains(after, "still owed") {
		t.Errorf("explain gp-kthread-qs-after names a holdout:\n%s", after)
	}
}
