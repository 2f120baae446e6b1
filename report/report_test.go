package report

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"contend/cpu"
	"contend/models"
	"contend/scenarios"
	"contend/sim"
	"contend/sweep"
)

// A value that rounds to zero prints as +0 whatever its sign, so that a
// calibrated point never reads as a miss; others keep their sign.
func TestSigned(t *testing.T) {
	for _, c := range []struct {
		v    float64
		prec int
		want string
	}{{-0.04, 1, "+0.0"}, {math.Copysign(0, -1), 0, "+0"}, {0.04, 1, "+0.0"}, {-0.06, 1, "-0.1"}, {12.345, 1, "+12.3"}, {-250, 0, "-250"}} {
		if got := Signed(c.v, c.prec); got != c.want {
			t.Errorf("Signed(%v, %d) = %q, want %q", c.v, c.prec, got, c.want)
		}
	}
}

// Fixed keeps three or four significant figures at every magnitude.
func TestFixed(t *testing.T) {
	for v, want := range map[float64]string{12345.6: "12346", 123.45: "123.5", 12.345: "12.35", 0.012345: "0.0123", -4.5: "-4.50"} {
		if got := Fixed(v); got != want {
			t.Errorf("Fixed(%v) = %q, want %q", v, got, want)
		}
	}
}

// Every character a terminal acts on comes out as its escape; JSON escaped
// by JSONText decodes back to the string that went in.
func TestEscapes(t *testing.T) {
	name := "a\x1b[2Jb\u202ec\u009bd\u2028e\tf"
	if got, want := TermText(name), `a\x1b[2Jb\u202ec\x9bd\u2028e`+"\tf"; got != want {
		t.Errorf("TermText = %q, want %q", got, want)
	}
	var buf bytes.Buffer
	if err := WriteJSON(&buf, map[string]string{"name": name}); err != nil {
		t.Fatal(err)
	}
	if strings.ContainsFunc(buf.String(), termUnsafe) {
		t.Errorf("JSON keeps a raw control: %q", buf.String())
	}
	var back map[string]string
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil || back["name"] != name {
		t.Errorf("JSON %q decodes to %q (%v), want %q", buf.String(), back["name"], err, name)
	}
}

// A table lays out as seed 004's commit message does: axis values down,
// variants across, then each variant's change against the first; a zero
// base prints "-", and a note names its cell.
func TestRenderTablesText(t *testing.T) {
	tb := sweep.Table{Series: "s", Profile: "p", Metric: "throughput", Unit: "Mpps", Axis: "cores",
		Variants: []string{"before", "after"}, X: []float64{1, 2}, Values: [][]float64{{10, 15}, {0, 1}},
		Notes: [][]string{{"", ""}, {"no packet completed", ""}}, Unmeasured: []string{"after"}}
	var buf bytes.Buffer
	if err := RenderTables(&buf, "text", []sweep.Table{tb}, nil); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(buf.String(), "\n")
	want := [][]string{{"s", "(profile", "p):", "throughput,", "Mpps"}, {"cores", "before", "after", "after", "Δ%", "vs", "before"},
		{"1", "10.00", "15.00", "+50"}, {"2", "0", "1.00", "-"},
		{"cores=2", "before:", "no", "packet", "completed"}, {"no", "published", "throughput", "for", "after:", "predictions", "only"}, {}}
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(want), buf.String())
	}
	for i, w := range want {
		if got := strings.Fields(lines[i]); strings.Join(got, " ") != strings.Join(w, " ") {
			t.Errorf("line %d: %q, want the fields %q", i, lines[i], w)
		}
	}
	// Right-aligned: every row of the table ends where its header does.
	for _, l := range lines[2:4] {
		if n, h := utf8.RuneCountInString(l), utf8.RuneCountInString(lines[1]); n != h {
			t.Errorf("row %q is %d wide, its header %d", l, n, h)
		}
	}
	buf.Reset()
	if err := RenderTables(&buf, "csv", []sweep.Table{tb}, nil); err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(buf.String()), "\n"); len(lines) != 5 || lines[3] != "s,p,before,cores,2,throughput,Mpps,0,no packet completed" {
		t.Errorf("csv:\n%s", buf.String())
	}
}

// A percentage's change is in points: a utilisation from 0.8% to 99.5% is
// +98.7 points, not +12,000%.
func TestRenderTablesPercentChangesInPoints(t *testing.T) {
	tb := sweep.Table{Series: "s", Profile: "p", Metric: "cpu_util", Unit: "%", Axis: "filters",
		Variants: []string{"sync", "deferred"}, X: []float64{200}, Values: [][]float64{{0.8, 99.5}}}
	var buf bytes.Buffer
	if err := RenderTables(&buf, "text", []sweep.Table{tb}, nil); err != nil {
		t.Fatal(err)
	}
	if out := buf.String(); !strings.Contains(out, "deferred Δpt vs sync") || !strings.Contains(out, "+98.7") {
		t.Errorf("a percentage's change:\n%s\nwant a Δpt column of +98.7", out)
	}
}

// A word's cmpxchg loops are explained by their own counts: tries per
// operation, failures, tries a success, and the fallbacks when there are.
func TestCmpxchgWhy(t *testing.T) {
	res := &models.Result{Packets: 100, Cmpxchg: []models.WordResult{
		{Name: "d_lock", Attempts: 400, Failures: 200, Fallbacks: 3},
		{Name: "quiet", Attempts: 0},
	}}
	var buf bytes.Buffer
	writeCmpxchgWhy(&buf, res, "packet")
	got := buf.String()
	for _, want := range []string{
		"why: the cmpxchg loops on d_lock try 4.00 times per packet; 200 of 400 tries failed",
		"2.00 tries a success",
		"3 loops gave up for their fallback",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("explain says\n%s\nwant it to say %q", got, want)
		}
	}
	if strings.Contains(got, "quiet") {
		t.Errorf("a word no loop tried is explained:\n%s", got)
	}
}

// A line whose spinners their siblings' writes threw back says how often,
// at what cost, and that a PAUSE avoids it; a line without says nothing.
func TestClearWhy(t *testing.T) {
	res := &models.Result{Packets: 50, Lines: []models.LineResult{{Name: "ctr", SiblingClears: 100}, {Name: "calm"}}}
	var buf bytes.Buffer
	writeClearWhy(&buf, cpu.Profile{SpinClear: 9 * sim.Nanosecond}, res, "pass")
	got := buf.String()
	for _, want := range []string{"why: a spinner on ctr was thrown back 2.00 times per pass", "9.00 ns each, spin_clear", "cpu_relax()"} {
		if !strings.Contains(got, want) {
			t.Errorf("explain says\n%s\nwant it to say %q", got, want)
		}
	}
	if strings.Contains(got, "calm") {
		t.Errorf("a line no write threw a spinner back from is explained:\n%s", got)
	}
}

// A sequence counter's readers are explained by their retries.
func TestSeqWhy(t *testing.T) {
	res := &models.Result{Seqcounts: []models.SeqResult{{Name: "seq", Reads: 200, Retries: 50, Writes: 7}, {Name: "idle"}}}
	var buf bytes.Buffer
	writeSeqWhy(&buf, res)
	got := buf.String()
	if !strings.Contains(got, "why: the readers of seq returned 200 sections and went round again 50 times (0.25 a section)") || !strings.Contains(got, "7 writes") {
		t.Errorf("explain says\n%s", got)
	}
	if strings.Contains(got, "idle") {
		t.Errorf("a counter nobody read is explained:\n%s", got)
	}
}

// fit prints a reference point's note under it: a parameter fitted to a
// point whose interval had not settled says so.
func TestWriteFitNotes(t *testing.T) {
	s := &scenarios.Scenario{Name: "s"}
	se := &scenarios.Series{Name: "se"}
	rows := []scenarios.Row{
		{Variant: "v", Axis: "cores", X: 1, Metric: "throughput", Measured: 1, Predicted: 1, Role: "calibrate"},
		{Variant: "v", Axis: "cores", X: 48, Metric: "throughput", Measured: 1, Predicted: 2, ErrorPct: 100, Role: "validate", Note: "only 43 packets"},
	}
	var buf bytes.Buffer
	WriteFit(&buf, s, se, nil, rows)
	out := buf.String()
	if strings.Count(out, "note:") != 1 || !strings.Contains(out, "cores=48 throughput") || !strings.Contains(out, "note: only 43 packets") {
		t.Errorf("fit output:\n%s\nwant the cores=48 point's note under it, and no other", out)
	}
	if i, j := strings.Index(out, "cores=48"), strings.Index(out, "note:"); j < i {
		t.Errorf("the note comes before its point:\n%s", out)
	}
}

// explain names the flood CPUs that completed nothing while the others
// completed enough for a rate, and says nothing when every CPU completed
// some, or when none completed enough (the interval is short, which
// Result.Unsteady reports).
func TestStarved(t *testing.T) {
	cores := func(packets ...uint64) []models.CoreResult {
		var out []models.CoreResult
		for i, p := range packets {
			out = append(out, models.CoreResult{CPU: i, Role: "flood", Packets: p})
		}
		return append(out, models.CoreResult{CPU: len(packets), Role: "batch"})
	}
	for _, c := range []struct {
		res  models.Result
		want string
	}{
		{models.Result{Cores: cores(900, 0, 902, 0)}, "starved: cpu 1, cpu 3 completed no op in the measured interval, where the other flood CPUs completed 901 each"},
		{models.Result{Cores: cores(900, 1, 902)}, ""},
		{models.Result{Cores: cores(5, 0)}, ""},
	} {
		var buf bytes.Buffer
		writeStarved(&buf, &c.res, "op")
		if got := buf.String(); c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("cores %v: %q, want %q", c.res.Cores, got, c.want)
		}
	}
}
