package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

const (
	readmeBegin = "<!-- validate: begin (go test ./cmd/contend/ -update rewrites this) -->\n"
	readmeEnd   = "<!-- validate: end -->"
)

// TestReadmeValidateTable keeps the README's validate table equal to what
// `contend validate` prints today.
func TestReadmeValidateTable(t *testing.T) {
	var out, errb bytes.Buffer
	if code := Main([]string{"validate"}, &out, &errb); code != 0 {
		t.Fatalf("validate: status %d: %s", code, errb.String())
	}
	want := "```\n$ go run ./cmd/contend validate\n" + out.String() + "```\n"
	src, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(src)
	i, j := strings.Index(text, readmeBegin), strings.Index(text, readmeEnd)
	if i < 0 || j < i {
		t.Fatalf("README.md has no validate block between %q and %q", readmeBegin, readmeEnd)
	}
	got := text[i+len(readmeBegin) : j]
	if got == want {
		return
	}
	if !*update {
		t.Fatalf("README.md's validate table is stale; run go test ./cmd/contend/ -update\n--- README\n%s\n--- validate\n%s", got, want)
	}
	text = text[:i+len(readmeBegin)] + want + text[j:]
	if err := os.WriteFile("../../README.md", []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
