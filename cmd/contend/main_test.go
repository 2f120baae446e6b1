package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/ with the current output")

// contend runs the CLI as a shell would and returns what it printed and its
// exit status. A panic fails the test with the command line.
func contend(t testing.TB, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("contend %s panicked: %v", strings.Join(args, " "), r)
		}
	}()
	code = Main(args, &out, &errOut)
	return out.String(), errOut.String(), code
}

// mustRun runs the CLI and fails the test unless it succeeds silently on
// stderr.
func mustRun(t testing.TB, args ...string) string {
	t.Helper()
	out, errOut, code := contend(t, args...)
	if code != 0 || errOut != "" {
		t.Fatalf("contend %s: status %d, stderr:\n%s", strings.Join(args, " "), code, errOut)
	}
	return out
}

// The golden files are what a user pastes into a commit message or an issue;
// each was read by eye (numbers against the references, columns aligned)
// before it was committed. dst-use's numbers are left out while its model is
// reworked; list shows only its names.
func TestGolden(t *testing.T) {
	for _, tc := range []struct {
		file string
		args []string
	}{
		{"list.golden", []string{"list"}},
		{"validate-ingress.golden", []string{"validate", "ingress"}},
		{"validate-flower-insert.golden", []string{"validate", "flower-insert"}},
		{"run-ingress.golden", []string{"run", "ingress"}},
		{"run-flower-insert.golden", []string{"run", "flower-insert"}},
		{"explain-ingress-locked-bare.golden", []string{"explain", "ingress", "--variant", "locked", "--series", "ingress-bare"}},
		{"explain-flower-insert-sync-rcu.golden", []string{"explain", "flower-insert", "--variant", "sync-rcu"}},
		{"explain-flower-under-load-sync-rcu.golden", []string{"explain", "flower-under-load", "--variant", "sync-rcu"}},
		{"explain-ingress-locked-2cores.golden", []string{"explain", "ingress", "--variant", "locked", "--series", "ingress-u32", "--cores", "2", "--trace", "12"}},
	} {
		t.Run(strings.TrimSuffix(tc.file, ".golden"), func(t *testing.T) {
			golden(t, tc.file, mustRun(t, tc.args...))
		})
	}
}

// golden compares got with testdata/file, or rewrites the file under -update.
func golden(t *testing.T, file, got string) {
	t.Helper()
	path := filepath.Join("testdata", file)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd/contend/ -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (review the change, then go test ./cmd/contend/ -update):\n%s", path, lineDiff(string(want), got))
	}
}

// lineDiff shows the first differing line of two texts, with its number.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	line := func(ls []string, i int) string {
		if i >= len(ls) {
			return "(end of output)"
		}
		return "|" + ls[i] + "|"
	}
	for i := range max(len(w), len(g)) {
		if i >= len(w) || i >= len(g) || w[i] != g[i] {
			return fmt.Sprintf("line %d:\n  want %s\n  got  %s", i+1, line(w, i), line(g, i))
		}
	}
	return "(same lines)"
}
