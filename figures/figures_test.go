package figures_test

import (
	"bytes"
	"encoding/csv"
	"encoding/xml"
	"flag"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"

	"contend/band"
	"contend/figures"
	"contend/scenarios"
	"contend/sim"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// supported lists, for every built-in scenario, the kinds it can draw; every
// other kind must be refused with a reason. A new scenario or kind fails
// here until someone decides.
var supported = map[string][]string{
	"cna-locktorture":         {"scaling", "breakdown", "heatmap", "changes", "transfers"},
	"dst-use":                 {"scaling", "breakdown", "heatmap", "changes", "transfers"},
	"flower-insert":           {"breakdown", "timeline", "insertion", "changes"},
	"flower-under-load":       {"breakdown", "timeline", "insertion"}, // its references are of one variant: no change to draw
	"host-microbench":         {},                                     // no series until contend calibrate measures one
	"ingress":                 {"scaling", "breakdown", "heatmap", "changes", "transfers"},
	"kfree-bulk":              {"breakdown", "timeline", "changes"},
	"lockref-relax":           {"scaling", "breakdown", "heatmap", "changes", "transfers"},
	"srcu-refperf":            {"scaling", "breakdown"}, // no base, and no reader moves a shared line: no change, heat map or transfers to draw
	"netdev-refcnt":           {"scaling", "breakdown", "heatmap", "changes", "transfers"},
	"perfbook-cas-8176":       {"scaling", "breakdown", "heatmap", "transfers"}, // no base: no change to draw
	"perfbook-cas-small":      {"scaling", "breakdown", "heatmap", "transfers"},
	"qspinlock":               {"scaling", "breakdown", "heatmap", "changes", "transfers"},
	"rwsem-count-scheme":      {"scaling", "breakdown", "heatmap", "changes", "transfers"},
	"rwsem-wlock":             {"scaling", "breakdown", "heatmap", "changes", "transfers"},
	"paulmck-idle-gp":         {"breakdown", "timeline"},
	"gp-kthread-qs-before":    {"breakdown", "timeline"},
	"gp-kthread-qs-after":     {"breakdown", "timeline"},
	"rcuscale-512":            {}, // the short runs flood 8 CPUs, and its writer sits on CPU 1
	"rezki-sync-default":      {"breakdown", "timeline"},
	"rezki-sync-wake-from-gp": {"breakdown", "timeline"},
}

// short loads a built-in with short runs, so that the tests take seconds;
// the figures keep their shape.
func short(t testing.TB, name string) (*scenarios.Scenario, figures.Options) {
	t.Helper()
	s, err := scenarios.LoadBuiltin(name)
	if err != nil {
		t.Fatal(err)
	}
	s.Run.Warmup = scenarios.Dur{PS: 10e6}
	s.Run.Duration = scenarios.Dur{PS: 150e6}
	o := figures.Options{Replications: 2, Window: 30 * sim.Millisecond, Bands: band.Committed()}
	if name == "cna-locktorture" {
		// Its largest point is 142 CPUs, each with an MCS node line: a
		// single-point figure there is 142 x 142 cells, megabytes of
		// golden file. 16 writers show the same shapes.
		o.X = 16
	}
	switch s.Workload.Kind {
	case scenarios.WorkloadBatch:
		o.Xs = []float64{20, 60, 180}
		o.X = 300 // a few grace periods long, for the timeline
		s.Run.Warmup = scenarios.Dur{}
	case scenarios.WorkloadBoth: // every operation simulates CPUs flooded with packets
		o.Xs = []float64{2, 4, 8}
		o.X = 8
		s.Run.Warmup = scenarios.Dur{}
	}
	return s, o
}

func make1(t testing.TB, name, kind string) (*figures.Figure, error) {
	s, o := short(t, name)
	o.Kind = kind
	return figures.Make(s, o)
}

func TestEveryKindOnEveryBuiltin(t *testing.T) {
	for _, name := range scenarios.BuiltinNames() {
		kinds, ok := supported[name]
		if !ok {
			t.Errorf("built-in %s: say which kinds it supports in the table of this test", name)
			continue
		}
		for _, kind := range figures.Kinds {
			t.Run(name+"/"+kind, func(t *testing.T) {
				f, err := make1(t, name, kind)
				if !slices.Contains(kinds, kind) {
					if err == nil || !strings.Contains(err.Error(), name) {
						t.Fatalf("want an error naming %s, got %v", name, err)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				golden(t, name+"-"+kind, f)
			})
		}
	}
}

// The breakdown by symbol draws the same table as the one by state.
func TestBreakdownBySymbol(t *testing.T) {
	s, o := short(t, "flower-insert")
	o.Kind, o.By = "breakdown", "symbol"
	f, err := figures.Make(s, o)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "flower-insert-breakdown-symbol", f)
	o.By = "stack"
	if _, err := figures.Make(s, o); err == nil || !strings.Contains(err.Error(), "use state or symbol") {
		t.Errorf("--by stack: %v", err)
	}
}

// golden compares the CSV and the SVG with testdata/; -update rewrites them
// (review the diff: predictions move when the model does).
func golden(t *testing.T, base string, f *figures.Figure) {
	t.Helper()
	var table bytes.Buffer
	if err := f.WriteCSV(&table); err != nil {
		t.Fatal(err)
	}
	svg, err := f.Render(figures.Width, "svg")
	if err != nil {
		t.Fatal(err)
	}
	for ext, got := range map[string][]byte{".csv": table.Bytes(), ".svg": svg} {
		path := filepath.Join("testdata", base+ext)
		if *update {
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test ./figures -update to create it)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from the figure drawn now; if the change is intended, go test ./figures -update and review the diff", path)
		}
	}
}

// Drawing the same figure twice gives the same bytes: no map order, no
// clock reaches the SVG.
func TestSameInputSameSVG(t *testing.T) {
	var first []byte
	for i := range 2 {
		f, err := make1(t, "dst-use", "breakdown")
		if err != nil {
			t.Fatal(err)
		}
		svg, err := f.Render(figures.Width, "svg")
		if err != nil {
			t.Fatal(err)
		}
		if i == 1 && !bytes.Equal(svg, first) {
			t.Fatal("two renderings of the same figure differ")
		}
		first = svg
	}
}

// PNG, PDF and EPS are not compared byte for byte (PDF carries its creation
// date); their structure and size are.
func TestRasterAndPrintFormats(t *testing.T) {
	f, err := make1(t, "ingress", "scaling")
	if err != nil {
		t.Fatal(err)
	}
	width := figures.Width
	h := f.Height(width)
	img, err := f.Render(width, "png")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(img))
	if err != nil {
		t.Fatal(err)
	}
	// 300 dpi: 3.4 in is 1020 pixels.
	if cfg.Width != 1020 || math.Abs(float64(cfg.Height)-float64(h/vg.Inch)*300) > 1 {
		t.Errorf("PNG is %dx%d, want 1020x%.0f", cfg.Width, cfg.Height, float64(h/vg.Inch)*300)
	}
	if len(img) < 20e3 || len(img) > 1e6 {
		t.Errorf("PNG of %d bytes: a figure is tens to hundreds of kB", len(img))
	}
	pdf, err := f.Render(width, "pdf")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(pdf, []byte("%PDF-")) || !bytes.Contains(pdf[len(pdf)-32:], []byte("%%EOF")) {
		t.Errorf("PDF lacks its header or trailer")
	}
	box := "/MediaBox [0 0 244.80 " + strconv.FormatFloat(h.Points(), 'f', 2, 64) + "]"
	if !bytes.Contains(pdf, []byte(box)) {
		t.Errorf("PDF has no page of 3.4 in by %.2f in (%s)", float64(h/vg.Inch), box)
	}
	if len(pdf) < 5e3 || len(pdf) > 2e6 {
		t.Errorf("PDF of %d bytes", len(pdf))
	}
	eps, err := f.Render(width, "eps")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(eps[:40], []byte("PS-Adobe-3.0 EPSF-3.0")) || !bytes.Contains(eps, []byte("%%BoundingBox: 0 0 244.8 ")) {
		t.Errorf("EPS lacks its header or bounding box: %q", eps[:min(len(eps), 120)])
	}
	svg, err := f.Render(width, "svg")
	if err != nil {
		t.Fatal(err)
	}
	d := xml.NewDecoder(bytes.NewReader(svg))
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "svg" {
			for _, a := range se.Attr {
				if a.Name.Local == "width" && a.Value != "244.8pt" {
					t.Errorf("SVG width %s, want 244.8pt (3.4 in)", a.Value)
				}
			}
		}
	}
	if _, err := f.Render(width, "gif"); err == nil {
		t.Error("gif rendered; want an error naming the formats")
	}
	if _, err := f.Render(0.5*figures.Width/3.4, "svg"); err == nil {
		t.Error("a figure half an inch wide rendered; want an error")
	}
	// NaN and infinite widths wrote width="NaNpt"; a width of 1e9 in
	// panicked in the PNG encoder.
	for _, w := range []vg.Length{vg.Length(math.NaN()), vg.Length(math.Inf(1)), 1e9 * vg.Inch, figures.MaxWidth + 1} {
		for _, format := range figures.Formats {
			if _, err := f.Render(w, format); err == nil {
				t.Errorf("a %v pt wide %s rendered; want an error", float64(w), format)
			}
		}
	}
	// The PNG bound is on the pixels: 4 bytes each at 300 dpi. The widest
	// that fits is found here from the figure's height, and one inch more
	// is refused. (That wide, the machine's caption line no longer wraps:
	// the height is the same at any width near it.)
	wide := f.Height(50 * vg.Inch)
	fits := math.Floor(float64(figures.MaxRasterBytes) / (4 * 300 * 300 * float64(wide/vg.Inch)))
	if _, err := f.Render(vg.Length(fits-1)*vg.Inch, "png"); err != nil {
		t.Errorf("a PNG %g in wide, within the budget: %v", fits-1, err)
	}
	if _, err := f.Render(vg.Length(fits+1)*vg.Inch, "png"); err == nil || !strings.Contains(err.Error(), "give a width of at most") {
		t.Errorf("a PNG %g in wide, past the budget: %v; want a refusal with the width that fits", fits+1, err)
	}
}

func rows(t *testing.T, f *figures.Figure) []map[string]string {
	t.Helper()
	var buf bytes.Buffer
	if err := f.WriteCSV(&buf); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]string
	for _, r := range recs[1:] {
		m := map[string]string{}
		for i, h := range recs[0] {
			m[h] = r[i]
		}
		out = append(out, m)
	}
	return out
}

func float(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// The scaling figure's predictions are the ones validate prints: the same
// points, seeds and metric, reached through another path.
func TestScalingAgreesWithValidate(t *testing.T) {
	s, o := short(t, "ingress")
	o.Kind, o.Replications = "scaling", 1
	f, err := figures.Make(s, o)
	if err != nil {
		t.Fatal(err)
	}
	table := rows(t, f)
	checked := 0
	for _, se := range s.Series {
		pred, err := s.Predict(se, s.Run.Seed, nil, s.Serial)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range pred {
			for _, r := range table {
				if r["kind"] == "prediction" && r["series"] == se.Name && r["variant"] == p.Variant && r["metric"] == p.Metric && float(t, r["x"]) == p.X {
					if got := float(t, r["value"]); math.Abs(got-p.Predicted) > 1e-5*math.Abs(p.Predicted) {
						t.Errorf("%s %s x=%v: figure %v, validate %v", se.Name, p.Variant, p.X, got, p.Predicted)
					}
					checked++
				}
			}
		}
	}
	if checked < 5 {
		t.Fatalf("only %d points compared", checked)
	}
}

// Each bar of the breakdown accounts for all of its CPUs' time. A core is
// charged a step's whole duration when the step starts, so a step running
// over the end of the measured interval may add a fraction of a percent.
func TestBreakdownAddsUpTo100(t *testing.T) {
	for _, name := range []string{"ingress", "flower-insert"} {
		f, err := make1(t, name, "breakdown")
		if err != nil {
			t.Fatal(err)
		}
		sum := map[string]float64{}
		for _, r := range rows(t, f) {
			sum[r["series"]+"/"+r["variant"]] += float(t, r["pct_of_cpu_time"])
		}
		for k, v := range sum {
			if math.Abs(v-100) > 0.5 {
				t.Errorf("%s: %s adds up to %.4f%%", name, k, v)
			}
		}
	}
}

// heatmapSums draws the heat map of variant at x of the scenario's series
// se, checks that its cells of each line add up to that line's transfers in
// the simulated perf c2c of the same run, and returns the sums by line.
func heatmapSums(t *testing.T, name string, se int, variant string, x float64) map[string]float64 {
	t.Helper()
	s, o := short(t, name)
	o.Kind, o.Series, o.Variant, o.X = "heatmap", s.Series[se].Name, variant, x
	f, err := figures.Make(s, o)
	if err != nil {
		t.Fatal(err)
	}
	sum := map[string]float64{}
	for _, r := range rows(t, f) {
		if r["variant"] != variant {
			t.Fatalf("row %v: want variant %s", r, variant)
		}
		sum[r["line"]] += float(t, r["transfers"])
	}
	res, err := s.Simulate(scenarios.Point{Series: s.Series[se], Variant: variant, Axis: s.Series[se].Axis, X: x, Seed: s.Run.Seed})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range res.Lines {
		if !l.PerCPU && float64(l.Transfers) != sum[l.Name] {
			t.Errorf("line %s: cells add to %v, the %s run's perf c2c says %d", l.Name, sum[l.Name], variant, l.Transfers)
		}
	}
	return sum
}

// The heat map's cells of a line add up to the line's transfers in the
// simulated perf c2c of the same run.
func TestHeatmapCellsAddUpToLineTransfers(t *testing.T) {
	if sum := heatmapSums(t, "ingress", 0, "locked", 4); sum["qdisc_lock"] == 0 {
		t.Error("the lock word of 4 CPUs never moved")
	}
}

// A heat map of a variant other than the first, in a scenario that runs
// replications (netdev-refcnt runs 3), draws that variant's run.
func TestHeatmapOfALaterVariant(t *testing.T) {
	heatmapSums(t, "netdev-refcnt", 0, "percpu-refcnt", 4)
}

// Grace periods only accumulate, and the memory waiting for one is never
// more than the batch has queued (1 KiB per filter in flower-insert).
func TestTimelineInvariants(t *testing.T) {
	f, err := make1(t, "flower-insert", "timeline")
	if err != nil {
		t.Fatal(err)
	}
	last := 0.0
	for _, r := range rows(t, f) {
		gp, pending := float(t, r["grace_periods"]), float(t, r["pending_bytes"])
		if gp < last || pending < 0 || pending > 1024*float(t, r["x"]) {
			t.Fatalf("sample %v: grace periods %v after %v, %v bytes pending", r["time_ms"], gp, last, pending)
		}
		last = gp
	}
	if last == 0 {
		t.Fatal("no grace period ended in the timeline")
	}
}

// BenchmarkRender draws the two-panel scaling figure of ingress; the
// figure is simulated once, outside the timing.
func BenchmarkRender(b *testing.B) {
	f, err := make1(b, "ingress", "scaling")
	if err != nil {
		b.Fatal(err)
	}
	for _, format := range []string{"svg", "png"} {
		b.Run(format, func(b *testing.B) {
			var size int
			for b.Loop() {
				out, err := f.Render(figures.Width, format)
				if err != nil {
					b.Fatal(err)
				}
				size = len(out)
			}
			b.ReportMetric(float64(size), "bytes/figure")
		})
	}
}

// The changes figure draws what validate's changes are: its table holds, in
// order, scenarios.Changes of every series' predictions.
func TestChangesFigureIsValidatesChanges(t *testing.T) {
	s, err := scenarios.LoadBuiltin("qspinlock")
	if err != nil {
		t.Fatal(err)
	}
	f, err := figures.Make(s, figures.Options{Kind: "changes"})
	if err != nil {
		t.Fatal(err)
	}
	var want []scenarios.Change
	for _, se := range s.Series {
		rows, err := s.Predict(se, s.Run.Seed, nil, s.Serial)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, scenarios.Changes(se, rows)...)
	}
	if len(f.Rows) != len(want) || len(want) != 8 {
		t.Fatalf("%d rows in the figure, %d changes; want 8 of each", len(f.Rows), len(want))
	}
	for i, c := range want {
		r := f.Rows[i]
		if r[0] != c.Series || r[1] != c.Variant || r[2] != c.Base || math.Abs(float(t, r[6])-c.MeasuredPct) > 1e-3 || math.Abs(float(t, r[7])-c.PredictedPct) > 1e-3 {
			t.Errorf("row %d %v; want %+v", i, r, c)
		}
	}
}

// Changes over several scenarios is their changes figures' tables, one after
// the other.
func TestChangesOfSeveralScenarios(t *testing.T) {
	var scens []*scenarios.Scenario
	var want [][]string
	for _, name := range []string{"ingress", "qspinlock"} {
		s, err := scenarios.LoadBuiltin(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := figures.Make(s, figures.Options{Kind: "changes"})
		if err != nil {
			t.Fatal(err)
		}
		scens, want = append(scens, s), append(want, f.Rows...)
	}
	f, err := figures.Changes(scens, figures.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(f.Rows, want) {
		t.Errorf("rows %v, want %v", f.Rows, want)
	}
}

// A transfers figure draws the first line transfers of its point, the ones
// explain --trace lists: same records, same order, at the default point
// (the smallest with two CPUs) and the busiest variant.
func TestTransfersFigureIsTheTrace(t *testing.T) {
	s, o := short(t, "ingress")
	o.Kind, o.Series = "transfers", "ingress-u32"
	f, err := figures.Make(s, o)
	if err != nil {
		t.Fatal(err)
	}
	w, spec, err := s.Build(scenarios.Point{Series: s.Series[1], Variant: "locked", Axis: "cores", X: 2, Seed: s.Run.Seed})
	if err != nil {
		t.Fatal(err)
	}
	got := w.RecordTransfers(spec, 0, 1000)
	if _, err := w.Run(spec); err != nil {
		t.Fatal(err)
	}
	want := got()
	rs := rows(t, f)
	if len(rs) == 0 || len(rs) > len(want) {
		t.Fatalf("figure has %d transfers, the run %d", len(rs), len(want))
	}
	for i, r := range rs {
		tr := want[i]
		near := func(col string, v float64) bool { return math.Abs(float(t, r[col])-v) <= 1e-5*max(1, math.Abs(v)) } // the CSV keeps 6 digits
		if r["variant"] != "locked" || r["x"] != "2" || r["line"] != tr.Line || r["cpu"] != strconv.Itoa(tr.CPU) || !near("asked_ns", tr.AskedNs) || !near("transfer_ns", tr.TransferNs) {
			t.Fatalf("row %d %v, want transfer %+v of locked at 2 cores", i, r, tr)
		}
	}
}
