package figures

import (
	"image/color"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"contend/scenarios"
)

// noteSize is the caption line's font: a size under the legend's, as a
// paper's caption is under its text.
const noteSize = 6.5

// noteGrey sets the note apart from the data without fading it in print.
var noteGrey = color.Gray{Y: 0x40}

// machineNote names the machines series run on, from their profiles'
// descriptions: "Machine: DESC" for one, "Machines: PROFILE: DESC; ..."
// for several, in the order the series first name them.
func machineNote(s *scenarios.Scenario, series []*scenarios.Series) string {
	var names, descs []string
	for _, se := range series {
		if slices.Contains(names, se.Profile) {
			continue
		}
		names = append(names, se.Profile)
		descs = append(descs, profileDescription(s, se.Profile))
	}
	switch len(names) {
	case 0:
		return ""
	case 1:
		return "Machine: " + descs[0]
	}
	parts := make([]string, len(names))
	for i := range names {
		parts[i] = names[i] + ": " + descs[i]
	}
	return "Machines: " + strings.Join(parts, "; ")
}

// profileDescription is a profile's description, or its name when it
// has none.
func profileDescription(s *scenarios.Scenario, name string) string {
	if p := s.Profiles[name]; p != nil && p.Description != "" {
		return p.Description
	}
	return name
}

func noteStyle() text.Style {
	sty := text.Style{Color: noteGrey, Font: font.From(sans, noteSize), Handler: plot.DefaultTextHandler}
	sty.XAlign, sty.YAlign = draw.XLeft, draw.YTop
	return sty
}

// noteLines breaks the note into lines at most width wide, at spaces.
func (f *Figure) noteLines(width vg.Length) []string {
	if f.note == "" {
		return nil
	}
	sty := noteStyle()
	width -= 2 * notePad
	var lines []string
	line := ""
	for _, w := range strings.Fields(f.note) {
		if line != "" && sty.Width(line+" "+w) > width {
			lines = append(lines, line)
			line = w
			continue
		}
		line = strings.TrimPrefix(line+" "+w, " ")
	}
	return append(lines, line)
}

const notePad = vg.Length(4)

// noteHeight is the strip under the legend the note takes, where a
// caption's first line would be.
func (f *Figure) noteHeight(width vg.Length) vg.Length {
	n := len(f.noteLines(width))
	if n == 0 {
		return 0
	}
	return vg.Points(noteSize*1.25*float64(n) + 4)
}

// drawNote writes the note's lines from the top left of c.
func (f *Figure) drawNote(c draw.Canvas) {
	sty := noteStyle()
	y := c.Max.Y - vg.Points(2)
	for _, l := range f.noteLines(c.Max.X - c.Min.X) {
		c.FillText(sty, vg.Point{X: c.Min.X + notePad, Y: y}, l)
		y -= vg.Points(noteSize * 1.25)
	}
}
