package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode"

	"contend/figures"
)

// TermText returns s as a terminal shows it without acting on it: every
// control character but newline and tab (ESC, BEL, NUL, CR...) and every
// bidirectional control (U+202E...) becomes its \x or \u escape, so that a
// name such as "\033[2J" prints as written instead of clearing the screen.
// All text output and every error go through it.
func TermText(s string) string { return escapeUnsafe(s, false) }

// JSONText escapes, in JSON that encoding/json wrote, what it leaves raw
// that a terminal would obey: DEL, the C1 controls (0x9b starts a control
// sequence) and the bidirectional controls (U+202E turns the text after it
// around). They can stand only inside strings, where \uXXXX is the same
// string, so the JSON reads back as it was.
func JSONText(s string) string { return escapeUnsafe(s, true) }

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

// CSVWriter is a csv.Writer whose every cell goes through figures.CSVCell.
type CSVWriter struct{ *csv.Writer }

// NewCSV returns a CSVWriter to w.
func NewCSV(w io.Writer) CSVWriter { return CSVWriter{csv.NewWriter(w)} }

// Write writes one record, every cell made safe by figures.CSVCell.
func (w CSVWriter) Write(rec []string) error {
	safe := make([]string, len(rec))
	for i, c := range rec {
		safe[i] = figures.CSVCell(c)
	}
	return w.Writer.Write(safe)
}

// WriteJSON writes v as indented JSON, escaped by JSONText.
func WriteJSON(buf *bytes.Buffer, v any) error {
	var raw bytes.Buffer
	enc := json.NewEncoder(&raw)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	buf.WriteString(JSONText(raw.String()))
	return nil
}

// Num prints v with six significant digits, as the tables' axes do.
func Num(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }

// Signed prints v with a sign and prec decimals; a value that rounds to zero
// prints as +0, never -0, so a calibrated point does not look like a miss.
func Signed(v float64, prec int) string {
	s := strconv.FormatFloat(v, 'f', prec, 64)
	if strings.Trim(s, "-0.") == "" {
		s = strings.TrimPrefix(s, "-")
	}
	if !strings.HasPrefix(s, "-") {
		s = "+" + s
	}
	return s
}

// Fixed prints with precision that suits the magnitude.
func Fixed(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1000:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// CommentText is s as a TOML comment may hold it: a control character other
// than a tab (which a comment may not contain) becomes U+FFFD.
func CommentText(s string) string {
	return strings.Map(func(r rune) rune {
		if r != '\t' && unicode.IsControl(r) {
			return unicode.ReplacementChar
		}
		return r
	}, s)
}
