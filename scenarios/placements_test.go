package scenarios_test

import (
	"strings"
	"testing"
	"testing/fstest"

	"contend/scenarios"
)

// twoSockets is good on a box of two sockets, where where the threads run
// matters.
func twoSockets(t *testing.T, sweep, placement string) *scenarios.Scenario {
	t.Helper()
	src := edit(t, good, "sockets = 1", "sockets = 2")
	if placement != "" {
		src = edit(t, src, "profile = \"box\"\nfree", "profile = \"box\"\nplacement = \""+placement+"\"\nfree")
	}
	src = edit(t, src, "duration = \"10us\"\n", "duration = \"40us\"\n\n"+sweep)
	s, err := scenarios.Parse(fstest.MapFS{}, "t.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// [sweep] placement gives every series a what-if copy per placement that is
// not its own: the series as measured keeps its references, the copy has
// none and nothing free, and it runs what the series would run with that
// placement written in by hand.
func TestSweptPlacementAddsWhatIfSeries(t *testing.T) {
	s := twoSockets(t, "[sweep]\ncores = [2]\nplacement = [\"smt-last\", \"spread\"]\n", "")
	var names []string
	for _, se := range s.Series {
		names = append(names, se.Name)
	}
	if got := strings.Join(names, " "); got != "box box-spread" {
		t.Fatalf("series %q; want the measured box (smt-last, the workload's) and its copy box-spread", got)
	}
	box, spread := s.Series[0], s.Series[1]
	if len(box.Refs) != 1 || len(box.Free) != 1 {
		t.Errorf("the measured series has %d references and %d free parameters; want its own 1 and 1", len(box.Refs), len(box.Free))
	}
	if len(spread.Refs) != 0 || len(spread.Free) != 0 || spread.Placement == nil || spread.Placement.String() != "spread" {
		t.Errorf("the copy has %d references, %d free parameters, placement %v; want none, none, spread", len(spread.Refs), len(spread.Free), spread.Placement)
	}
	at := func(s *scenarios.Scenario, se *scenarios.Series) float64 {
		r, err := s.Simulate(scenarios.Point{Series: se, Variant: "locked", Axis: "cores", X: 2, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		return r.PPS
	}
	byHand := twoSockets(t, "", "spread")
	local, remote, want := at(s, box), at(s, spread), at(byHand, byHand.Series[0])
	if remote != want {
		t.Errorf("box-spread runs at %.6g/s; the series with placement = \"spread\" at %.6g/s", remote, want)
	}
	if remote >= local {
		t.Errorf("2 CPUs on two sockets run at %.4g/s, on one at %.4g/s; a lock handed across sockets should be slower", remote, local)
	}
}

// A scenario without series gets one per swept placement, where it would get
// one default series.
func TestSweptPlacementWithoutSeries(t *testing.T) {
	src := good[:strings.Index(good, "\n[[series]]")] + "\n[sweep]\nplacement = [\"compact\", \"spread\"]\n"
	s, err := scenarios.Parse(fstest.MapFS{}, "t.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, se := range s.Series {
		names = append(names, se.Name+" "+se.Placement.String()+" "+se.Profile)
	}
	if got := strings.Join(names, ", "); got != "t-compact compact box, t-spread spread box" {
		t.Errorf("series %q; want t-compact and t-spread on profile box", got)
	}
}
