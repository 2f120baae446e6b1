package scenarios

import (
	"math"
	"os"
	"reflect"
	"strings"
	"testing"

	"contend/models"
)

// The metrics of a line and a lock, on a result whose counts are given:
// each is a ratio of two of them.
func TestObjectMetrics(t *testing.T) {
	r := &models.Result{
		Lines: []models.LineResult{{Name: "a", Accesses: 400, HITM: 30}, {Name: "b", Accesses: 50, HITM: 10}},
		Locks: []models.LockResult{{Name: "l", Acquisitions: 200, Contended: 50, WaitedNs: 15000}},
	}
	for metric, want := range map[string]float64{"hitm_share_a": 75, "hitm_share_b": 25, "hitm_of_loads_a": 7.5, "hitm_of_loads_b": 20, "contended_l": 25, "contended_m": 0} {
		if got, err := Metric(r, metric, "%"); err != nil || math.Abs(got-want) > 1e-12 {
			t.Errorf("%s = %v, %v; want %v", metric, got, err, want)
		}
	}
	// 15 us of waiting over 50 contended acquisitions: 300 ns each.
	for unit, want := range map[string]float64{"us": 0.3, "ns": 300, "ms": 0.0003} {
		if got, err := Metric(r, "mean_wait_l", unit); err != nil || math.Abs(got-want) > 1e-12*want {
			t.Errorf("mean_wait_l in %s = %v, %v; want %v", unit, got, err, want)
		}
	}
}

// A reference on a line or lock loads when the scenario has it, and is
// refused, with the names it has, when it does not.
func TestObjectMetricNames(t *testing.T) {
	base, err := os.ReadFile("ingress.toml")
	if err != nil {
		t.Fatal(err)
	}
	ref := func(metric string) []byte {
		return append(append([]byte{}, base...), "\n[[series.reference]]\nvariant = \"locked\"\nx = 2\nmetric = \""+metric+"\"\nvalue = 50\nunit = \"%\"\nrole = \"validate\"\nsource = \"t\"\n"...)
	}
	for _, m := range []string{"hitm_share_qdisc_lock", "hitm_of_loads_qdisc_bstats", "contended_qdisc_lock"} {
		if _, err := Parse(nil, "ingress.toml", ref(m)); err != nil {
			t.Errorf("%s: %v", m, err)
		}
	}
	for m, want := range map[string]string{
		"hitm_share_qdisc_bstats_cpu": `ingress has no shared line "qdisc_bstats_cpu", so it would be predicted 0; name one of qdisc_bstats, qdisc_lock or qdisc_state`,
		"contended_qdisc":             `ingress has no lock "qdisc", so it would be predicted 0; name one of qdisc_lock`,
	} {
		if _, err := Parse(nil, "ingress.toml", ref(m)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", m, err, want)
		}
	}
}

// The labels of the steps that touch each shared line: a lock's line has
// the lock's acquire and release labels; a per-cpu line is not shared.
func TestLineLabels(t *testing.T) {
	s, err := Load(os.DirFS("."), "ingress.toml")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{"qdisc_bstats": {"ingress_enqueue"}, "qdisc_lock": {"_raw_spin_lock", "_raw_spin_unlock"}, "qdisc_state": {"__netif_receive_skb_core"}}
	if got := s.LineLabels("locked"); !reflect.DeepEqual(got, want) {
		t.Errorf("LineLabels(locked) = %v, want %v", got, want)
	}
	if got := s.LineLabels("lockless"); !reflect.DeepEqual(got, map[string][]string{"qdisc_state": {"__netif_receive_skb_core"}}) {
		t.Errorf("LineLabels(lockless) = %v, want qdisc_state's alone", got)
	}
}
