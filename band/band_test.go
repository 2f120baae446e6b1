package band

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"contend/scenarios"
)

// generate runs every built-in scenario's references through today's
// model, as contend validate --corpus does, and learns the bands.
func generate(t *testing.T) *File {
	t.Helper()
	var c Corpus
	for _, name := range scenarios.BuiltinNames() {
		s, err := scenarios.LoadBuiltin(name)
		if err != nil {
			t.Fatal(err)
		}
		cl := NewClassifier(s)
		for _, se := range s.Series {
			rows, err := s.Predict(se, s.Run.Seed, nil, s.Serial)
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := c.Add(cl, s, se, rows); err != nil {
				t.Fatal(err)
			}
		}
	}
	return c.File()
}

// The committed bands are the ones today's model earns: after a change
// to the model, its errors change and band.json must be regenerated.
func TestCommittedIsCurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates every built-in reference")
	}
	got, err := generate(t).Encode()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, committed) {
		t.Fatalf("band/band.json is stale: today's model predicts the published points differently; run %s (from the repository's root) and review its diff", Regenerate)
	}
}

// Bands learned from one half of the cases hold at least 80% of the
// other half's published points at the 90% level, and the converse: the
// bands hold out of sample, not only on the points they came from. With
// 14 cases one halving is luck (a machine with large errors falls on one
// side or the other), so the coverage is averaged over 64 halvings, each
// judged both ways.
func TestHalvesCoverEachOther(t *testing.T) {
	f := Committed()
	var cases []string
	for _, p := range f.Corpus {
		if !slices.Contains(cases, p.Case) {
			cases = append(cases, p.Case)
		}
	}
	slices.Sort(cases)
	if len(cases) < 6 {
		t.Fatalf("%d cases in the corpus; the halves need at least 3 each", len(cases))
	}
	const halvings = 64
	var mean [2]float64
	worst := [2]float64{1, 1}
	for trial := range uint64(halvings) {
		rng := rand.New(rand.NewPCG(trial, 27))
		rng.Shuffle(len(cases), func(i, j int) { cases[i], cases[j] = cases[j], cases[i] })
		half := map[string]int{}
		for i, c := range cases {
			half[c] = i % 2
		}
		var parts [2][]Point
		for _, p := range f.Corpus {
			parts[half[p.Case]] = append(parts[half[p.Case]], p)
		}
		for from := range 2 {
			c := coverage(Learn(parts[from]), parts[1-from])
			mean[from] += c / halvings
			worst[from] = min(worst[from], c)
		}
	}
	t.Logf("held-out coverage over %d halvings: first half's bands %.0f%% (worst %.0f%%), second half's %.0f%% (worst %.0f%%)",
		halvings, 100*mean[0], 100*worst[0], 100*mean[1], 100*worst[1])
	for from := range 2 {
		if mean[from] < 0.8 {
			t.Errorf("bands of half %d hold %.0f%% of the other half's points on average; want at least 80%%", from, 100*mean[from])
		}
	}
}

// coverage is the share of points within the band set gives their kind;
// a point set has no band for (a change, from a half without) is left out.
func coverage(set Set, points []Point) float64 {
	within, n := 0, 0
	for _, p := range points {
		if b, ok := set.For(p.Kind); ok {
			n++
			if b.Contains(p.Error) {
				within++
			}
		}
	}
	return float64(within) / float64(max(n, 1))
}

// With one point a case, Quantile is the classic split-conformal quantile,
// computed naively: the smallest error that at least ⌈(n+1)·0.9⌉ of the n
// errors do not exceed, or the largest.
func TestQuantileIsConformal(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 1; n < 60; n++ {
		pts := make([]Point, n)
		for i := range pts {
			pts[i] = Point{Case: fmt.Sprint(i), Error: math.Round(100 * rng.ExpFloat64())} // ties too
		}
		need := min(n, int(math.Ceil(0.9*float64(n+1)-1e-9)))
		want := math.Inf(1)
		for _, q := range pts {
			below := 0
			for _, e := range pts {
				if e.Error <= q.Error {
					below++
				}
			}
			if below >= need && q.Error < want {
				want = q.Error
			}
		}
		if got := Quantile(pts); got != want {
			t.Errorf("n=%d: Quantile = %v, want %v", n, got, want)
		}
	}
}

// Each case weighs one: a case that published every figure three times
// over moves no band.
func TestQuantileWeighsCasesOnce(t *testing.T) {
	f := Committed()
	var triple []Point
	for _, p := range f.Corpus {
		triple = append(triple, p)
		if p.Case == f.Corpus[0].Case {
			triple = append(triple, p, p)
		}
	}
	if a, b := Learn(f.Corpus), Learn(triple); !slices.EqualFunc(a, b, func(x, y Band) bool { return x.Width == y.Width && x.Pool == y.Pool }) {
		t.Errorf("tripling case %s's points moved the bands", f.Corpus[0].Case)
	}
}

// A case's held-out band does not depend on its own points: making them
// wildly wrong changes the bands of every other case, never its own.
func TestHeldOutIgnoresOwnCase(t *testing.T) {
	f := Committed()
	victim := f.Corpus[0].Case
	worse := slices.Clone(f.Corpus)
	for i := range worse {
		if worse[i].Case == victim {
			worse[i].Error *= 100
		}
	}
	before, after := HeldOut(f.Corpus), HeldOut(worse)
	if !slices.Equal(before[victim], after[victim]) {
		t.Errorf("case %s's held-out bands moved with its own points", victim)
	}
	changed := false
	for c := range before {
		changed = changed || !slices.Equal(before[c], after[c])
	}
	if !changed {
		t.Errorf("no other case's band moved when %s's points grew 100-fold", victim)
	}
}

// A kind with too few points pools with its figure, then with every
// figure; a change pools only with changes.
func TestPooling(t *testing.T) {
	var pts []Point
	add := func(k Kind, n int, err float64) {
		for i := range n {
			pts = append(pts, Point{Case: fmt.Sprint(i), Kind: k, Error: err})
		}
	}
	add(Kind{Contended, OtherCPUs}, 9, 10)
	add(Kind{Contended, AcrossSocket}, 3, 50)
	add(Kind{Duration, SameCPUs}, 2, 200)
	add(Kind{Change, OtherCPUs}, 2, 5)
	set := Learn(pts)
	for _, c := range []struct {
		k     Kind
		pool  Kind
		width float64
	}{
		{Kind{Contended, OtherCPUs}, Kind{Contended, OtherCPUs}, 10},
		{Kind{Contended, AcrossSocket}, Kind{Figure: Contended}, 50},
		{Kind{Duration, SameCPUs}, Kind{Figure: Any}, 200},
		{Kind{Change, OtherCPUs}, Kind{Figure: Change}, 5},
		{Kind{RCU, Unfitted}, Kind{Figure: Any}, 200}, // a kind the corpus lacks
	} {
		b, ok := set.For(c.k)
		if !ok || b.Pool != c.pool || b.Width != c.width {
			t.Errorf("%s: band %+v (found %v), want pool %s width %v", c.k, b, ok, c.pool, c.width)
		}
	}
	if _, ok := Learn(pts[:9]).For(Kind{Change, SameCPUs}); ok {
		t.Error("a change got a band from a corpus with no change")
	}
}

// A spread's interval widened by a band: a figure's ends each scaled by
// the band's percent (never below zero), a change's moved by its points.
func TestWiden(t *testing.T) {
	for _, c := range []struct {
		b         Band
		low, high float64
		want      Range
	}{
		{Band{Kind: Kind{Figure: Contended}, Width: 20}, 4, 6, Range{3.2, 7.2}},
		{Band{Kind: Kind{Figure: Contended}, Width: 150}, 4, 6, Range{0, 15}},
		{Band{Kind: Kind{Figure: Change, Reach: SameCPUs}, Width: 30}, -10, 25, Range{-40, 55}},
		{Band{Kind: Kind{Figure: Uncontended}, Width: 0}, 4, 6, Range{4, 6}},
	} {
		got := c.b.Widen(c.low, c.high)
		if math.Abs(got.Low-c.want.Low) > 1e-12 || math.Abs(got.High-c.want.High) > 1e-12 {
			t.Errorf("%s ±%v around %v..%v: %+v, want %+v", c.b.Kind, c.b.Width, c.low, c.high, got, c.want)
		}
		if !got.Contains(c.low) || !got.Contains(c.high) || got.Contains(c.want.High+1) {
			t.Errorf("%+v: contains the wrong figures", got)
		}
	}
}
