package figures_test

import (
	"html"
	"regexp"
	"strings"
	"testing"
)

var svgText = regexp.MustCompile(`>([^<]*)</text>`)

// A figure names the machines of its series: each profile's description,
// as the scenario gives it, is in the figure's text (read line after line,
// as the caption line wraps).
func TestFigureNamesItsMachine(t *testing.T) {
	s, _ := short(t, "ingress")
	for _, kind := range []string{"scaling", "breakdown", "heatmap"} {
		f, err := make1(t, "ingress", kind)
		if err != nil {
			t.Fatal(err)
		}
		svg, err := f.Render(3.4*72, "svg")
		if err != nil {
			t.Fatal(err)
		}
		var lines []string
		for _, m := range svgText.FindAllStringSubmatch(string(svg), -1) {
			lines = append(lines, m[1])
		}
		text := strings.Join(lines, " ")
		for _, name := range []string{"e5-2695", "author-box"} {
			if d := html.EscapeString(s.Profiles[name].Description); !strings.Contains(text, d) {
				t.Errorf("ingress %s: the description of %s (%q) is not in the figure", kind, name, d)
			}
		}
	}
}
