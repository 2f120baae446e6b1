package advise

import (
	"fmt"

	"contend/band"

	"contend/models"
	"contend/report"
	"contend/scenarios"
	"contend/sweep"
)

// Advice is what advise found at one point: the ranking as report prints
// it, and the rows behind it and the series they ran on, which
// WriteScenarios needs.
type Advice struct {
	report.Advice
	Ranked []Row
	On     *scenarios.Series // the series simulated
}

// Env is how At simulates and loads, given by its caller.
type Env struct {
	// Run returns the runner that simulates points of a scenario.
	Run func(*scenarios.Scenario) scenarios.Runner
	// Load loads the advised scenario again with extra TOML appended to
	// it: the declarations of the candidates.
	Load func(extra []byte) (*scenarios.Scenario, error)
	// Bands holds the error bands the gains are widened by (nil: none).
	Bands *band.File
}

// At simulates the base variant at pt, derives the candidates from it,
// simulates them in a copy of the scenario that declares them, and ranks
// them; with samples, by the lower bound of their gain over as many draws
// of the profile's spread.
func At(s *scenarios.Scenario, pt scenarios.Point, samples int, env Env) (*Advice, error) {
	base, err := env.Run(s)(s.Replicate([]scenarios.Point{pt}))
	if err != nil {
		return nil, err
	}
	sub, err := NewSubject(s, pt.Variant, base)
	if err != nil {
		return nil, err
	}
	cands := Derive(sub)
	a := &Advice{Advice: report.Advice{Scenario: s.Name, Series: pt.Series.Name, Profile: pt.Series.Profile, Variant: pt.Variant,
		Axis: pt.Axis, X: pt.X, Unit: s.RateUnit(), Samples: samples}, On: pt.Series}
	scale, work := 1e-6, s.Workload.Unit
	if ByBatch(s) {
		work = s.BatchUnit()
		a.Unit, scale = work+"s/s", 1 // a batch's operations are slow: per second
	}
	baseRate := meanRate(s, base)
	a.Rate = baseRate * scale
	if len(cands) == 0 {
		return a, nil
	}
	ext, err := env.Load(Render(cands))
	if err != nil {
		return nil, fmt.Errorf("the derived variants do not load (a fault of contend advise; please report it): %w", err)
	}
	pt.Series = seriesIn(ext, s, pt.Series)
	var pts []scenarios.Point
	for _, c := range cands {
		pts = append(pts, withVariant(pt, c.Variant))
	}
	results, err := env.Run(ext)(ext.Replicate(pts))
	if err != nil {
		return nil, err
	}
	n := max(s.Run.Replications, 1)
	for i, c := range cands {
		got := results[i*n : (i+1)*n]
		r := Row{Candidate: c, Rate: meanRate(s, got)}
		r.Gain = 100 * (r.Rate - baseRate) / baseRate
		r.Low, r.High = r.Gain, r.Gain
		r.Explain = Explain(c, base, got, work)
		a.Ranked = append(a.Ranked, r)
	}
	if samples > 0 {
		gains, err := gainBounds(ext, pt, cands, samples, env.Run(ext))
		if err != nil {
			return nil, err
		}
		for i := range a.Ranked {
			a.Ranked[i].Low, a.Ranked[i].High = gains[i].Low, gains[i].High
		}
	}
	if err := widen(a, s, pt, env.Bands); err != nil {
		return nil, err
	}
	Rank(a.Ranked)
	for _, r := range a.Ranked {
		a.Rows = append(a.Rows, report.AdviceRow{Rule: r.Rule, Change: r.What, Variant: r.Variant, Rate: r.Rate * scale,
			GainPct: r.Gain, LowPct: r.Low, HighPct: r.High, BandLowPct: r.BandLow, BandHighPct: r.BandHigh, Explain: r.Explain})
	}
	return a, nil
}

// widen sets each row's gain bounds with the error band of a change at
// pt: its interval (or the gain itself) widened by the band's points either
// side, the band of changes published at the same reach from what the
// series was fitted to.
func widen(a *Advice, s *scenarios.Scenario, pt scenarios.Point, bands *band.File) error {
	for i := range a.Ranked {
		a.Ranked[i].BandLow, a.Ranked[i].BandHigh = a.Ranked[i].Low, a.Ranked[i].High
	}
	if bands == nil {
		return nil
	}
	k, err := band.NewClassifier(s).Kind(pt.Series, pt.Axis, pt.X, "throughput")
	if err != nil {
		return err
	}
	b, ok := bands.Set().For(band.Kind{Figure: band.Change, Reach: k.Reach})
	if !ok {
		return nil
	}
	a.Band = bands.Describe(b)
	a.BandKind = b.Kind.String()
	for i := range a.Ranked {
		r := &a.Ranked[i]
		w := b.Widen(r.Low, r.High)
		r.BandLow, r.BandHigh = w.Low, w.High
	}
	return nil
}

func withVariant(pt scenarios.Point, v string) scenarios.Point {
	pt.Variant = v
	return pt
}

// seriesIn is the series of ext, a copy of s with more declared, that
// stands where se stands in s; se itself when it is the stand-in of a
// scenario without series.
func seriesIn(ext, s *scenarios.Scenario, se *scenarios.Series) *scenarios.Series {
	for i, x := range s.Series {
		if x == se {
			return ext.Series[i]
		}
	}
	return se
}

// gainBounds simulates the base variant and every candidate at pt once per
// draw of the profile's spread (see sweep.Draws), base and candidates on the same
// draw, and returns the median and 90% interval of each candidate's gain in
// percent.
func gainBounds(s *scenarios.Scenario, pt scenarios.Point, cands []Candidate, n int, run scenarios.Runner) ([]sweep.Bounds, error) {
	var pts []scenarios.Point
	for _, d := range sweep.Draws(s, pt.Series, pt.Seed, n) {
		q := pt
		q.Overrides, q.Seed = d.Over, d.Seed
		pts = append(pts, q)
		for _, c := range cands {
			pts = append(pts, withVariant(q, c.Variant))
		}
	}
	rs, err := run(s.Replicate(pts))
	if err != nil {
		return nil, err
	}
	reps, per := max(s.Run.Replications, 1), len(cands)+1
	rate := func(k, i int) float64 {
		at := (k*per + i) * reps
		return meanRate(s, rs[at:at+reps])
	}
	out := make([]sweep.Bounds, len(cands))
	for i := range cands {
		gains := make([]float64, n)
		for k := range gains {
			gains[k] = 100 * (rate(k, i+1) - rate(k, 0)) / rate(k, 0)
		}
		out[i] = sweep.Summarize(gains)
	}
	return out, nil
}

func meanRate(s *scenarios.Scenario, rs []*models.Result) float64 {
	var sum float64
	for _, r := range rs {
		sum += Rate(s, r)
	}
	return sum / float64(len(rs))
}
