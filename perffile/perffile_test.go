package perffile

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"contend/scenarios"
)

const seed000 = "000_a9414ada84b768ad.txt"

var update = flag.Bool("update", false, "rewrite the golden files in testdata/ with the current output")

// The seed copied into testdata is the one in the shared folder, where that
// folder is at hand (CI clones only the repository).
func TestSeedCopyIsCurrent(t *testing.T) {
	for _, seed := range []string{seed000, "002_45deaede6f0d2a8e.txt"} {
		orig, err := os.ReadFile("../../shared/seeds/" + seed)
		if err != nil {
			t.Skipf("no shared seeds here (%v); CI checks the copy only", err)
		}
		cp, err := os.ReadFile("testdata/seeds/" + seed)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(orig, cp) {
			t.Errorf("testdata/seeds/%s differs from the shared seed; copy it again", seed)
		}
	}
}

// Seed 000's own perf reports and time_bench line become reference points
// (golden file), and those points load as part of the ingress scenario,
// whose series quote the same figures (12.23% in _raw_spin_lock, 11.070 ns).
func TestImportSeed(t *testing.T) {
	src, err := os.ReadFile("testdata/seeds/" + seed000)
	if err != nil {
		t.Fatal(err)
	}
	// contend import's defaults.
	imported, err := Import(seed000, src, Options{Variants: []string{"locked", "lockless"}, X: 1, MinShare: 1, Role: "validate"})
	if err != nil {
		t.Fatal(err)
	}
	out := bytes.NewBufferString(imported)
	golden(t, "import-seed000.golden", out.String())
	for _, want := range []string{"share_of_cycles__raw_spin_lock\"\nvalue = 12.23\n", "metric = \"cost\"\nvalue = 11.07\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the import lacks the seed's figure %q", want)
		}
	}
	base, err := os.ReadFile("../scenarios/ingress.toml")
	if err != nil {
		t.Fatal(err)
	}
	// A symbol that no step of the variant is labelled with would be
	// predicted 0: the scenario refuses it, and takes the others.
	if _, err := scenarios.Parse(nil, "ingress.toml", append(append(base, '\n'), out.Bytes()...)); err == nil || !strings.Contains(err.Error(), `"kfree_skb"`) {
		t.Errorf("the import loaded with symbols ingress does not model (%v); want kfree_skb refused", err)
	}
	modelled := map[string]bool{"spin_lock_unlock cost": true,
		"locked share_of_cycles___netif_receive_skb_core": true, "locked share_of_cycles__raw_spin_lock": true,
		"locked share_of_cycles_ingress_enqueue": true, "locked share_of_cycles_tc_classify": true,
		"lockless share_of_cycles___netif_receive_skb_core": true, "lockless share_of_cycles_ingress_enqueue": true,
		"lockless share_of_cycles_tc_classify": true}
	blocks := strings.Split(out.String(), "[[series.reference]]\n")
	kept := blocks[:1]
	for _, b := range blocks[1:] {
		var ref struct{ Variant, Metric string }
		if _, err := toml.Decode(b[:strings.Index(b, "source =")], &ref); err != nil {
			t.Fatal(err)
		}
		if modelled[ref.Variant+" "+ref.Metric] {
			kept = append(kept, b)
		}
	}
	s, err := scenarios.Parse(nil, "ingress.toml", append(append(base, '\n'), strings.Join(kept, "[[series.reference]]\n")...))
	if err != nil {
		t.Fatalf("the imported points of modelled symbols do not load into the scenario: %v", err)
	}
	last := s.Series[len(s.Series)-1]
	if n := len(kept) - 1; n < 6 || len(last.Refs) < n {
		t.Errorf("the series has %d references after importing %d of modelled symbols", len(last.Refs), n)
	}
}

// A perf stat run in perf's own format, with the packets it covered: the
// per-packet figures are its counts over the packets.
func TestImportPerfStat(t *testing.T) {
	_, refs := imported(t, "perf-stat.txt", Options{Variants: []string{"locked"}, X: 1, Packets: 170e6, MinShare: 1, Role: "validate"})
	got := map[string]float64{}
	for _, r := range refs {
		got[r.Metric] = r.Value
	}
	want := map[string]float64{"cycles_per_packet": 28012345678 / 170e6, "transfers_per_packet": 512345678 / 170e6, "throughput": 170e6 / 10.001234567 / 1e6}
	for m, v := range want {
		if g, ok := got[m]; !ok || g < v*(1-1e-7) || g > v*(1+1e-7) {
			t.Errorf("%s = %v, want %v", m, got[m], v)
		}
	}
	if _, err := Import("perf-stat.txt", []byte("Performance counter stats for 'system wide':\n 1 cycles\n"), Options{Variants: []string{"locked"}}); err == nil || !strings.Contains(err.Error(), "--packets") {
		t.Errorf("a perf stat run without --Packets: %v, want an error asking for it", err)
	}
}

func TestImportTable(t *testing.T) {
	good := "variant,axis,x,metric,value,unit,role\nlocked,cores,2,throughput_per_core,4.5,Mpps,calibrate\nlockless,cores,2,throughput_per_core,23.5,Mpps,\n"
	out, err := Import("t.csv", []byte(good), Options{Role: "validate"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"variant = \"locked\"\naxis = \"cores\"\nx = 2\n", "role = \"calibrate\"", "value = 23.5\nunit = \"Mpps\"\nrole = \"validate\"\nsource = \"t.csv:3\""} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, tc := range []struct{ src, want string }{
		{"variant,axis,x,metric,value\n", "t.csv:1: no column \"unit\""},
		{"variant,axis,x,metric,value,unit\nv,cores,1,throughput,fast,Mpps\n", "t.csv:2: value: \"fast\" is not a number"},
		{"variant,axis,x,metric,value,unit\nv,cores,1,speed,1,Mpps\n", "t.csv:2: \"speed\" is not a metric"},
		{"variant,axis,x,metric,value,unit\nv,cores,1,throughput,1,Gbps\n", "t.csv:2: \"Gbps\" is not a unit of throughput"},
		{"variant,axis,x,metric,value,unit\n,cores,1,throughput,1,Mpps\n", "t.csv:2: variant is empty"},
		{"variant,axis,x,metric,value,unit\n0\"0\n", "t.csv:2: column 2: bare \" in non-quoted-field; a field with a quote"},
		{"variant,\"axis,x,metric,value,unit\n", "t.csv:1: column 35: extraneous or missing \" in quoted-field"},
	} {
		if _, err := Import("t.csv", []byte(tc.src), Options{Role: "validate"}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.src, err, tc.want)
		}
	}
}

// FuzzImport: any input gives TOML or an error naming the file, never a
// panic.
func FuzzImport(f *testing.F) {
	for _, name := range []string{"testdata/seeds/" + seed000, "testdata/seeds/002_45deaede6f0d2a8e.txt", "testdata/perf-stat.txt",
		"testdata/perf-report-stdio.txt", "testdata/perf-report-children.txt", "testdata/perf-c2c-report.txt", "testdata/lock_stat.txt"} {
		src, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
	}
	f.Add([]byte("variant,axis,x,metric,value,unit\nv,cores,1,throughput,1,Mpps\n"))
	ingress := scenario(f, "ingress")
	f.Fuzz(func(t *testing.T, src []byte) {
		// With the scenario, perf c2c and lock_stat blocks are matched
		// to its lines and locks too.
		out, err := Import("f.txt", src, Options{Variants: []string{"locked"}, Packets: 1e6, MinShare: 1, Role: "validate", Scenario: ingress})
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.txt") {
				t.Errorf("error does not name the file: %v", err)
			}
			return
		}
		var doc map[string]any
		if _, err := toml.Decode(out, &doc); err != nil {
			t.Errorf("output is not TOML: %v\n%s", err, out)
		}
	})
}

// golden compares got with testdata/file, or rewrites the file under -update.
func golden(t *testing.T, file, got string) {
	t.Helper()
	path := filepath.Join("testdata", file)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./perffile -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (review the change, then go test ./perffile -update)", path)
	}
}
