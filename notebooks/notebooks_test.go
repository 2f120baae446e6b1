package notebooks_test

import (
	"image/png"
	"os"
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
