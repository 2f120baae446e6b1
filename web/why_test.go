package web

import (
	"os"
	"slices"
	"strings"
	"testing"

	"contend/scenarios"
)

// cliWhy reads the paragraphs contend explain wrote into a golden file
// (testdata/explain-*.txt, its output for the point): each "why:" or
// "deferred frees:" line with the indented lines after it, joined.
func cliWhy(t *testing.T, file string) (why []string, text string) {
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	in := false
	for _, l := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(l, "why: ") || strings.HasPrefix(l, "deferred frees: "):
			why = append(why, l)
			in = true
		case in && strings.HasPrefix(l, "  "):
			why[len(why)-1] += " " + strings.TrimSpace(l)
		default:
			in = false
		}
	}
	return why, string(b)
}

// TestExplainAsCLI: the explain of a run carries contend explain's "why:"
// paragraphs for the point, word for word, its phases' reasons and where
// its CPUs sit (golden files: `contend explain ingress --series ingress-u32
// --variant locked --cores 2` and `contend explain flower-insert --variant
// sync-rcu`).
func TestExplainAsCLI(t *testing.T) {
	_, ts := newTestServer(t, Options{})
	for _, tc := range []struct {
		req  Request
		file string
	}{
		{Request{Type: "start", Scenario: "ingress", Series: "ingress-u32", Variant: "locked", Cores: new(2)}, "testdata/explain-ingress-u32-locked-2.txt"},
		{Request{Type: "start", Scenario: "flower-insert", Variant: "sync-rcu"}, "testdata/explain-flower-insert-sync-rcu.txt"},
	} {
		c := dial(t, ts)
		c.WriteJSON(tc.req)
		var done Done
		until(t, c, "done", &done)
		want, text := cliWhy(t, tc.file)
		if !slices.Equal(done.Explain.Why, want) || len(want) == 0 {
			t.Errorf("%s: why\n%s\nwant\n%s", tc.file, strings.Join(done.Explain.Why, "\n"), strings.Join(want, "\n"))
		}
		for _, s := range append(done.Explain.PhaseWhy, done.Explain.CPUs...) {
			if !strings.Contains(text, s) {
				t.Errorf("%s: %q is not in contend explain's text", tc.file, s)
			}
		}
		if sc, _ := scenarios.LoadBuiltin(tc.req.Scenario); tc.req.Scenario == "flower-insert" && (len(done.Explain.PhaseWhy) != 4 || done.Explain.Unit != sc.Workload.Unit) {
			t.Errorf("%s: %d phases, per %s", tc.file, len(done.Explain.PhaseWhy), done.Explain.Unit)
		}
	}
}
