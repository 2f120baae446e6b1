package scenarios_test

import (
	"io/fs"
	"math"
	"strings"
	"testing"

	"contend/scenarios"
)

// Fit recovers known parameters from data the simulator made with them: the
// calibrate points of a series are simulated with a hidden profile, then the
// fit starts from the file's values and must land within 2% of the hidden
// ones.
func TestFitRecoversKnownParameters(t *testing.T) {
	s, err := scenarios.LoadBuiltin("host-microbench")
	if err != nil {
		t.Fatal(err)
	}
	s.Run.Duration = scenarios.Dur{PS: 100e6}
	truth := map[string]float64{"profile.atomic": 8.5, "profile.atomic_overlap": 0.35, "profile.store_drain": 2.5, "profile.same_socket": 90}
	se := &scenarios.Series{Name: "synthetic", Profile: "host", Axis: "threads",
		Free: []string{"profile.atomic", "profile.atomic_overlap", "profile.store_drain", "profile.same_socket"}}
	for _, p := range []struct {
		variant string
		threads float64
	}{{"add", 1}, {"add-work10", 1}, {"store-add", 1}, {"pingpong", 2}} {
		se.Refs = append(se.Refs, scenarios.Reference{Variant: p.variant, Axis: "threads", X: p.threads, Metric: "cost", Unit: "ns", Value: 1, Role: "calibrate"})
	}
	rows, err := s.Predict(se, 1, truth, s.Serial)
	if err != nil {
		t.Fatal(err)
	}
	for i := range se.Refs {
		se.Refs[i].Value = rows[i].Predicted
	}
	start, _ := s.Current(se)
	best, _, err := s.Fit(se, 1, s.Serial)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range se.Free {
		if math.Abs(best[f]-truth[f]) > 0.02*truth[f] {
			t.Errorf("%s: fitted %.4g from %.4g, hidden value %.4g (more than 2%% off)", f, best[f], start[f], truth[f])
		}
	}
}

// Bounds keep an overlap a fraction and a latency below memory's, unless
// the file already gives more.
func TestBounds(t *testing.T) {
	s, err := scenarios.LoadBuiltin("ingress")
	if err != nil {
		t.Fatal(err)
	}
	se := s.Series[0]
	if lo, hi := s.Bounds(se, "profile.atomic_overlap"); lo != 0 || hi != 1 {
		t.Errorf("atomic_overlap bounds [%v, %v], want [0, 1]", lo, hi)
	}
	mem := s.Profiles[se.Profile].Memory.Nanoseconds()
	if lo, hi := s.Bounds(se, "profile.atomic"); !(lo > 0) || hi != mem {
		t.Errorf("atomic bounds [%v, %v], want (0, %v]", lo, hi, mem)
	}
}

// WriteFitted puts each fitted value where the file sets it, the profile's
// in the series' profile table and a param the series overrides in its own
// [series.params], and the copy loads with exactly those values; also when
// [sweep] placement puts what-if copies of series between the file's own.
func TestWriteFitted(t *testing.T) {
	builtin, err := fs.ReadFile(scenarios.Builtin(), "ingress.toml")
	if err != nil {
		t.Fatal(err)
	}
	byName := func(s *scenarios.Scenario, name string) *scenarios.Series {
		for _, se := range s.Series {
			if se.Name == name {
				return se
			}
		}
		t.Fatalf("no series %s", name)
		return nil
	}
	swept := strings.Replace(string(builtin), "[sweep]\n", "[sweep]\nplacement = [\"spread\"]\n", 1)
	for _, src := range [][]byte{builtin, []byte(swept)} {
		s, err := scenarios.Parse(nil, "ingress.toml", src)
		if err != nil {
			t.Fatal(err)
		}
		se := byName(s, "ingress-u32") // stack is its own param
		best := map[string]float64{"params.stack": 17.25, "profile.atomic": 3.125}
		rows := []scenarios.Row{{Variant: "locked", Axis: "cores", X: 2, Metric: "throughput_per_core", ErrorPct: 0.5, Role: "calibrate"}}
		out, err := s.WriteFitted(src, se, best, rows)
		if err != nil {
			t.Fatalf("%d series: %v", len(s.Series), err)
		}
		s2, err := scenarios.Parse(nil, "fitted.toml", out)
		if err != nil {
			t.Fatalf("the fitted copy does not load: %v", err)
		}
		got, err := s2.Current(byName(s2, "ingress-u32"))
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range best {
			if math.Abs(got[k]-v) > 1e-9 {
				t.Errorf("%d series: %s = %v in the copy, want %v", len(s.Series), k, got[k], v)
			}
		}
		if other, _ := s2.Current(byName(s2, "ingress-bare")); other["params.stack"] != 39.37 {
			t.Errorf("%d series: the other series' stack moved to %v", len(s.Series), other["params.stack"])
		}
		if !strings.Contains(string(out), `atomic = "3.125ns"  # was "4.349ns"; fitted by contend fit; calibrate residuals: locked cores=2 throughput_per_core +0.50%`) {
			t.Errorf("no residual comment on the fitted atomic:\n%s", out)
		}
	}
}

// A lock that the loop around it saturates or not meets one measured cost
// twice: with qspinlock's 3-task point as the only calibrate point and the
// loop free, a loop of about 243 ns (the lock just saturated) and one of
// about 392 ns (3 tasks rarely meet) both give 449.6 ns. Whichever the fit
// finds, OtherFits names the other as a second fit.
func TestOtherFitsFindsBothRegimes(t *testing.T) {
	s, err := scenarios.LoadBuiltin("qspinlock")
	if err != nil {
		t.Fatal(err)
	}
	se := *s.Series[0]
	se.Free = []string{"params.loop"}
	se.Refs = []scenarios.Reference{se.Refs[0]}
	se.Refs[0].Role = "calibrate"
	if se.Refs[0].X != 3 || se.Refs[0].Value != 449.6 {
		t.Fatalf("the first reference is %+v; want 3 tasks at 449.6 ns", se.Refs[0])
	}
	best, _, err := s.Fit(&se, s.Run.Seed, s.Serial)
	if err != nil {
		t.Fatal(err)
	}
	others, err := s.OtherFits(&se, s.Run.Seed, best, 129, s.Serial)
	if err != nil {
		t.Fatal(err)
	}
	found := []float64{best["params.loop"]}
	for _, o := range others {
		if !o.Root {
			t.Errorf("loop %.4g: a jump from %+.1f%% to %+.1f%%, want a second fit", o.Value, o.From, o.To)
		}
		found = append(found, o.Value)
	}
	for _, want := range []float64{243.4, 391.7} {
		near := false
		for _, v := range found {
			near = near || math.Abs(v/want-1) < 0.03
		}
		if !near {
			t.Errorf("fits at %v ns; want one within 3%% of %v", found, want)
		}
	}
}
