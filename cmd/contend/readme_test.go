package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// TestReadmeValidateTable keeps the README's validate table equal to what
// `contend validate` prints today.
func TestReadmeValidateTable(t *testing.T) { readmeBlock(t, "validate", "validate") }

// TestReadmeAdvise keeps the README's advise example equal to what it
// prints today.
func TestReadmeAdvise(t *testing.T) {
	readmeBlock(t, "advise", "advise", "ingress", "--variant", "locked", "--cores", "2")
}

// TestReadmeImport keeps the README's import example, a perf c2c report
// matched to ingress's lines, equal to what it prints today.
func TestReadmeImport(t *testing.T) {
	readmeBlock(t, "import", "import", "perffile/testdata/perf-c2c-report.txt", "--scenario", "ingress", "--variant", "locked", "--x", "2")
}

// readmeBlock checks the README's block named name (between its begin and
// end markers) against the output of contend args, run from the top of the
// repository as the README says, or rewrites it with -update.
func readmeBlock(t *testing.T, name string, args ...string) {
	t.Helper()
	t.Chdir("../..")
	begin := "<!-- " + name + ": begin (go test ./cmd/contend/ -update rewrites this) -->\n"
	end := "<!-- " + name + ": end -->"
	var out, errb bytes.Buffer
	if code := Main(args, &out, &errb); code != 0 {
		t.Fatalf("%s: status %d: %s", strings.Join(args, " "), code, errb.String())
	}
	want := "```\n$ go run ./cmd/contend " + strings.Join(args, " ") + "\n" + out.String() + "```\n"
	src, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(src)
	i, j := strings.Index(text, begin), strings.Index(text, end)
	if i < 0 || j < i {
		t.Fatalf("README.md has no %s block between %q and %q", name, begin, end)
	}
	got := text[i+len(begin) : j]
	if got == want {
		return
	}
	if !*update {
		t.Fatalf("README.md's %s block is stale; run go test ./cmd/contend/ -update\n--- README\n%s\n--- %s\n%s", name, got, name, want)
	}
	text = text[:i+len(begin)] + want + text[j:]
	if err := os.WriteFile("README.md", []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
