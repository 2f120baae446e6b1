package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"strings"
	"unicode"

	"contend/figures"
)

// termText returns s as a terminal shows it without acting on it: every
// control character but newline and tab (ESC, BEL, NUL, CR...) and every
// bidirectional control (U+202E...) becomes its \x or \u escape, so that a
// name such as "\033[2J" prints as written instead of clearing the screen.
// All text output and every error go through it.
func termText(s string) string { return escapeUnsafe(s, false) }

// jsonText escapes, in JSON that encoding/json wrote, what it leaves raw
// that a terminal would obey: DEL, the C1 controls (0x9b starts a control
// sequence) and the bidirectional controls (U+202E turns the text after it
// around). They can stand only inside strings, where \uXXXX is the same
// string, so the JSON reads back as it was.
func jsonText(s string) string { return escapeUnsafe(s, true) }

// escapeUnsafe writes every rune of s a terminal would act on as an escape:
// \uXXXX always for JSON, \xXX for a byte-sized one in text.
func escapeUnsafe(s string, json bool) string {
	if !strings.ContainsFunc(s, termUnsafe) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case !termUnsafe(r):
			b.WriteRune(r)
		case r < 0x100 && !json:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

func termUnsafe(r rune) bool {
	if r == '\n' || r == '\t' {
		return false
	}
	return unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) || r == '\u2028' || r == '\u2029'
}

// csvWriter is a csv.Writer whose every cell goes through figures.CSVCell.
type csvWriter struct{ *csv.Writer }

func newCSV(w io.Writer) csvWriter { return csvWriter{csv.NewWriter(w)} }

func (w csvWriter) Write(rec []string) error {
	safe := make([]string, len(rec))
	for i, c := range rec {
		safe[i] = figures.CSVCell(c)
	}
	return w.Writer.Write(safe)
}
