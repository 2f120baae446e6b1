package scenarios_test

import (
	"bytes"
	"encoding/csv"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"contend/scenarios"
)

// published.csv is the table of published numbers the seeds quote. CI clones
// only the repository, so the test reads a copy in testdata and, where the
// shared original is at hand, checks that the copy is current.
const (
	publishedCopy     = "testdata/published.csv"
	publishedOriginal = "../../shared/reference/published.csv"
)

// notPredicted lists the rows of published.csv that no scenario predicts,
// keyed scenario/variant/metric, with the reason.
var notPredicted = map[string]string{
	// A statement, not a number: matchall shows no regression between 5.1
	// and 5.2. flower-insert has a matchall variant, but "no regression"
	// has no value to compare a prediction with.
	"flower-insert/matchall/regression": "value none: a qualitative statement",
	// The cost of enabling RPS without using it: no scenario models the
	// RPS mechanism (get_rps_cpu, the rps_map lookup), so there is nothing
	// to predict it with.
	"microbench/rps_enabled_unused/cost": "no RPS mechanism in any scenario",
}

// predictable says whether contend predicts a metric of this kind.
func predictable(metric string) bool {
	switch metric {
	case "throughput", "throughput_per_core", "duration", "cost":
		return true
	}
	return strings.HasPrefix(metric, "offcpu_in_") || strings.HasPrefix(metric, "share_of_cycles_")
}

func TestPublishedCopyIsCurrent(t *testing.T) {
	orig, err := os.ReadFile(publishedOriginal)
	if err != nil {
		t.Skipf("no shared reference table here (%v); CI checks the copy only", err)
	}
	cp, err := os.ReadFile(publishedCopy)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(orig, cp) {
		t.Errorf("%s differs from %s; copy it again", publishedCopy, publishedOriginal)
	}
}

type refAt struct {
	scenario, series string
	ref              scenarios.Reference
}

// Every published number of a kind contend predicts is a reference point of
// exactly one built-in scenario, with the same value.
func TestPublishedRowsAreReferences(t *testing.T) {
	rows := readTable(t, publishedCopy)
	if len(rows) < 2 || strings.Join(rows[0], ",") != "scenario,variant,axis,x,metric,value,unit,seed,note" {
		t.Fatalf("%s: unexpected header %q", publishedCopy, rows[0])
	}
	var refs []refAt
	for _, name := range scenarios.BuiltinNames() {
		s, err := scenarios.LoadBuiltin(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, se := range s.Series {
			for _, r := range se.Refs {
				refs = append(refs, refAt{name, se.Name, r})
			}
		}
	}
	skipped := map[string]bool{}
	for i, row := range rows[1:] {
		id, variant, axis, xs, metric, vs, unit := row[0], row[1], row[2], row[3], row[4], row[5], row[6]
		line := i + 2
		key := id + "/" + variant + "/" + metric
		if _, ok := notPredicted[key]; ok {
			skipped[key] = true
			continue
		}
		x, errX := strconv.ParseFloat(xs, 64)
		value, errV := strconv.ParseFloat(vs, 64)
		if errX != nil || errV != nil || !predictable(metric) {
			t.Errorf("line %d (%s): not a number contend predicts (x %q, value %q, metric %s); model it or list it in notPredicted with the reason", line, key, xs, vs, metric)
			continue
		}
		var found []refAt
		for _, r := range refs {
			if r.ref.Scenario == id && r.ref.Variant == variant && r.ref.X == x && r.ref.Metric == metric &&
				math.Abs(r.ref.Value-value) <= 1e-6*math.Abs(value) {
				found = append(found, r)
			}
		}
		if len(found) != 1 {
			t.Errorf("line %d (%s at %s=%v = %v %s): %d reference points in the built-ins; want exactly 1", line, key, axis, x, value, unit, len(found))
			continue
		}
		if r := found[0].ref; r.Axis != axis || r.Unit != unit {
			t.Errorf("line %d (%s): %s/%s gives it on axis %s in %s; the table says %s in %s", line, key, found[0].scenario, found[0].series, r.Axis, r.Unit, axis, unit)
		}
	}
	for key := range notPredicted {
		if !skipped[key] {
			t.Errorf("notPredicted lists %s, which is not in %s; remove it", key, publishedCopy)
		}
	}
}

// readTable reads a CSV table of reference numbers.
func readTable(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}
