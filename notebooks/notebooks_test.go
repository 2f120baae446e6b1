package notebooks_test

import (
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Every committed figure comes whole: its caption, the PNG at 300 dpi and
// 3.4 in wide, the SVG and the CSV behind it, and the caption shows the PNG.
// (go generate ./notebooks rewrites them all.)
func TestCommittedFiguresAreComplete(t *testing.T) {
	captions, err := filepath.Glob(filepath.Join("figures", "*.md"))
	if err != nil || len(captions) < 6 {
		t.Fatalf("%d captions in notebooks/figures (%v); want one per figure", len(captions), err)
	}
	for _, md := range captions {
		base := strings.TrimSuffix(md, ".md")
		text, err := os.ReadFile(md)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(text), "]("+filepath.Base(base)+".png)") {
			t.Errorf("%s does not show %s.png", md, filepath.Base(base))
		}
		for _, ext := range []string{".svg", ".csv"} {
			if st, err := os.Stat(base + ext); err != nil || st.Size() == 0 {
				t.Errorf("%s%s: %v", base, ext, err)
			}
		}
		f, err := os.Open(base + ".png")
		if err != nil {
			t.Error(err)
			continue
		}
		cfg, err := png.DecodeConfig(f)
		f.Close()
		if err != nil || cfg.Width != 1020 {
			t.Errorf("%s.png: %d px wide (%v), want 1020 (3.4 in at 300 dpi)", base, cfg.Width, err)
		}
	}
}

// The committed figures are the model's: each program, run again, writes
// the same CSV and caption. A change to the model that moves a figure must
// regenerate it (go generate ./notebooks).
func TestCommittedFiguresAreCurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every notebook program")
	}
	progs, err := filepath.Glob(filepath.Join("*", "main.go"))
	if err != nil || len(progs) < 5 {
		t.Fatalf("%d notebook programs (%v)", len(progs), err)
	}
	for _, p := range progs {
		prog := filepath.Dir(p)
		t.Run(prog, func(t *testing.T) {
			out := t.TempDir()
			cmd := exec.Command("go", "run", "./"+prog)
			cmd.Env = append(os.Environ(), "CONTEND_FIGURES_DIR="+out)
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("go run ./%s: %v\n%s", prog, err, b)
			}
			fresh, err := filepath.Glob(filepath.Join(out, "*.csv"))
			if err != nil || len(fresh) == 0 {
				t.Fatalf("go run ./%s wrote no figure (%v)", prog, err)
			}
			for _, csv := range fresh {
				for _, ext := range []string{".csv", ".md"} {
					name := strings.TrimSuffix(filepath.Base(csv), ".csv") + ext
					got, err := os.ReadFile(filepath.Join(out, name))
					if err != nil {
						t.Fatal(err)
					}
					want, err := os.ReadFile(filepath.Join("figures", name))
					if err != nil {
						t.Fatal(err)
					}
					if string(got) != string(want) {
						t.Errorf("figures/%s is stale: go run ./%s writes another; run go generate ./notebooks", name, prog)
					}
				}
			}
		})
	}
}
