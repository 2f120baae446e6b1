package report

import (
	"bytes"
	"strings"
	"testing"

	"contend/scenarios"
)

// list names every built-in scenario that run accepts, those without a
// series (host-microbench) too.
func TestListShowsEveryScenario(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteList(&buf); err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, line := range strings.Split(buf.String(), "\n")[1:] {
		if f := strings.Fields(line); len(f) > 0 {
			listed[f[0]] = true
		}
	}
	for _, name := range scenarios.BuiltinNames() {
		if !listed[name] {
			t.Errorf("contend list leaves out %s", name)
		}
	}
}
