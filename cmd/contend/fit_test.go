package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fit --write never overwrites the scenario it read, however the path is
// spelled.
func TestFitWriteRefusesItsInput(t *testing.T) {
	src, err := os.ReadFile("../../scenarios/ingress.toml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "ingress.toml")
	if err := os.WriteFile(path, src, 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := Main([]string{"fit", path, "--write", filepath.Join(dir, ".", "ingress.toml")}, &out, &errb)
	if code != 1 || !strings.Contains(errb.String(), "an input, and would be replaced") {
		t.Errorf("exit %d, stderr %q; want a refusal", code, errb.String())
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, src) {
		t.Errorf("the input changed")
	}
}
