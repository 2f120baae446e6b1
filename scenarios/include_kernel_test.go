package scenarios_test

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"contend/scenarios"
)

// An include is a library, not an override: a [kernel] in both files is an
// error at the included file's table, not a silent choice.
func TestKernelInBothFilesIsAnError(t *testing.T) {
	fsys := fstest.MapFS{
		"lib.toml": {Data: []byte("[kernel]\nhz = 1000\n")},
		"main.toml": {Data: []byte(`name = "k"
include = ["lib.toml"]
[kernel]
hz = 250
[profile.p]
ghz = 1
sockets = 1
cores_per_socket = 1
l1_hit = "1ns"
smt_sibling = "1ns"
same_socket = "1ns"
other_socket = "1ns"
memory = "1ns"
atomic = "1ns"
wakeup = "1us"
[[variant]]
name = "v"
steps = [ { compute = "1ns" } ]
[workload]
kind = "flood"
`)},
	}
	_, err := scenarios.Load(fsys, "main.toml")
	var se *scenarios.Error
	if !errors.As(err, &se) || se.File != "lib.toml" || se.Line != 1 || !strings.Contains(se.Msg, "keep one") {
		t.Fatalf("got %v, want an error at lib.toml:1 saying to keep one [kernel]", err)
	}
}
