package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// plot writes the figure and its table where it is told, atomically (no
// temporary file is left), and the same command gives the same SVG bytes.
func TestPlotWritesFigureAndTable(t *testing.T) {
	dir := t.TempDir()
	fig, table := filepath.Join(dir, "fig.svg"), filepath.Join(dir, "fig.csv")
	var first []byte
	for i := range 2 {
		out, errOut, code := contend(t, "plot", "ingress", "--kind", "breakdown", "--series", "ingress-u32", "--x", "2", "-o", fig, "--csv", table)
		if code != 0 || out != "" || !strings.HasPrefix(errOut, "plot: wrote "+fig+" (svg, ") {
			t.Fatalf("status %d, stdout %q, stderr %q; want 0, nothing, and what it wrote", code, out, errOut)
		}
		svg, err := os.ReadFile(fig)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(svg, []byte("<?xml")) || !bytes.Contains(svg, []byte("<svg")) {
			t.Fatalf("%s is not an SVG: %.80q", fig, svg)
		}
		if i == 1 && !bytes.Equal(svg, first) {
			t.Fatal("the same plot command wrote different SVG bytes")
		}
		first = svg
	}
	csv, err := os.ReadFile(table)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(csv), "series,variant,axis,x,symbol,state,pct_of_cpu_time\n") || !strings.Contains(string(csv), "ingress-u32,locked,cores,2,_raw_spin_lock,spin,") {
		t.Fatalf("table:\n%s", csv)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Fatalf("files left in the output directory: %v", entries)
	}
	// Without -o the SVG goes to stdout.
	if out := mustRun(t, "plot", "ingress", "--kind", "heatmap", "--series", "ingress-u32", "--x", "2"); !strings.HasPrefix(out, "<?xml") {
		t.Fatalf("stdout is not an SVG: %.80q", out)
	}
}
