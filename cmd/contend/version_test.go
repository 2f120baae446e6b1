package main

import (
	"bytes"
	"runtime"
	"strings"
	"testing"
)

// contend version and --version name the build and the Go that built it;
// version takes no arguments.
func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		var out, errb bytes.Buffer
		if code := Main(args, &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d, stderr %q", args, code, errb.String())
		}
		line := strings.TrimSpace(out.String())
		if !strings.HasPrefix(line, "contend ") || !strings.HasSuffix(line, runtime.Version()) || strings.Count(out.String(), "\n") != 1 {
			t.Errorf("%v printed %q, want one line: contend <build>, %s", args, out.String(), runtime.Version())
		}
	}
	var out, errb bytes.Buffer
	if code := Main([]string{"version", "now"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "takes no arguments") {
		t.Errorf("version now: exit %d, stderr %q; want 2 and a refusal", code, errb.String())
	}
}
