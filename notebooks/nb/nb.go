package nb

import (
	"bytes"
	"fmt"
	"io/fs"
	"log"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"contend/figures"
	"contend/internal/atomicfile"
	"contend/scenarios"
)

// dir is where figures go: notebooks/figures, from notebooks/ (where go
// generate runs) or from the repository's root (go run ./notebooks/NAME),
// unless CONTEND_FIGURES_DIR names another folder.
func dir() string {
	if d := os.Getenv("CONTEND_FIGURES_DIR"); d != "" {
		return d // the staleness test writes its figures aside
	}
	for _, d := range []string{"figures", filepath.Join("notebooks", "figures")} {
		if st, err := os.Stat(filepath.Join(d, "..", "nb")); err == nil && st.IsDir() {
			return d
		}
	}
	log.Fatal("no notebooks/figures here: run go generate ./notebooks from the repository")
	return ""
}

// Builtin loads a built-in scenario.
func Builtin(name string) *scenarios.Scenario {
	s, err := scenarios.LoadBuiltin(name)
	if err != nil {
		log.Fatal(err)
	}
	return s
}

// Load loads a scenario file of the notebook's own (embedded).
func Load(fsys fs.FS, name string) *scenarios.Scenario {
	s, err := scenarios.Load(fsys, name)
	if err != nil {
		log.Fatal(err)
	}
	return s
}

// Make draws a figure of s.
func Make(s *scenarios.Scenario, o figures.Options) *figures.Figure {
	f, err := figures.Make(s, o)
	if err != nil {
		log.Fatal(err)
	}
	return f
}

// Value reads column col of the one row of f's table where every
// "column=value" of where holds; x=2 matches 2 and 2.0, and
// kind=calibrate|validate either.
func Value(f *figures.Figure, col string, where ...string) float64 {
	var found []float64
	for _, row := range f.Rows {
		if matches(f.Header, row, where) {
			v, err := strconv.ParseFloat(row[slices.Index(f.Header, col)], 64)
			if err != nil {
				log.Fatalf("%s figure: column %s of %v: %v", f.Kind, col, where, err)
			}
			found = append(found, v)
		}
	}
	if len(found) != 1 {
		log.Fatalf("%s figure: %d rows match %v; want one", f.Kind, len(found), where)
	}
	return found[0]
}

// Column reads a numeric column of f's table.
func Column(f *figures.Figure, col string) []float64 {
	i := slices.Index(f.Header, col)
	if i < 0 {
		log.Fatalf("%s figure: no column %q; the columns are %v", f.Kind, col, f.Header)
	}
	out := make([]float64, len(f.Rows))
	for j, row := range f.Rows {
		v, err := strconv.ParseFloat(row[i], 64)
		if err != nil {
			log.Fatalf("%s figure: column %s, row %d: %v", f.Kind, col, j+1, err)
		}
		out[j] = v
	}
	return out
}

func matches(header, row, where []string) bool {
	for _, w := range where {
		k, v, _ := strings.Cut(w, "=")
		i := slices.Index(header, k)
		if i < 0 {
			log.Fatalf("no column %q; the columns are %v", k, header)
		}
		a, errA := strconv.ParseFloat(row[i], 64)
		b, errB := strconv.ParseFloat(v, 64)
		same := errA == nil && errB == nil && a == b
		if !same && !slices.Contains(strings.Split(v, "|"), row[i]) {
			return false
		}
	}
	return true
}

// Save writes name.svg, name.png (300 dpi), name.csv and name.md (the
// title, the figure and the caption) into notebooks/figures.
func Save(name, title string, f *figures.Figure, caption string) {
	var table bytes.Buffer
	if err := f.WriteCSV(&table); err != nil {
		log.Fatal(err)
	}
	md := fmt.Sprintf("# %s\n\n![%s](%s.png)\n\n%s\n\nData: [%s.csv](%s.csv). Vector: [%s.svg](%s.svg). Regenerate with `go generate ./notebooks`.\n",
		title, title, name, strings.TrimSpace(caption), name, name, name, name)
	out := map[string][]byte{".csv": table.Bytes(), ".md": []byte(md)}
	for _, format := range []string{"svg", "png"} {
		data, err := f.Render(figures.Width, format)
		if err != nil {
			log.Fatal(err)
		}
		out["."+format] = data
	}
	d := dir()
	for _, ext := range []string{".csv", ".md", ".png", ".svg"} {
		if err := atomicfile.Write(filepath.Join(d, name+ext), out[ext]); err != nil {
			log.Fatal(err)
		}
	}
	log.Printf("wrote %s/%s.{svg,png,csv,md}", d, name)
}

// Pct is the relative difference of b from a, in percent rounded to 0.1,
// so that a calibrated point prints +0.0, never -0.0.
func Pct(a, b float64) float64 { return math.Round(1000*(b-a)/a)/10 + 0 }
