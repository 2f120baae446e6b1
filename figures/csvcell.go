package figures

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// CSVCell returns s as a CSV cell that a spreadsheet opens as text and a
// terminal shows as written: a control or bidirectional-override character
// (ESC, BEL, NUL, U+202E...) becomes its \x or \u escape, and a cell that is
// not a number but starts with = + - @ (a formula: =HYPERLINK(...)) or a
// tab or carriage return gets a leading quote, as OWASP advises. Numbers,
// negative ones too, are left as they are.
func CSVCell(s string) string {
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if unsafeRune(r) {
			b.WriteString(runeEscape(r))
			continue
		}
		b.WriteRune(r)
	}
	out := b.String()
	if strings.ContainsAny(s[:min(1, len(s))], "=+-@\t\r") {
		out = "'" + out
	}
	return out
}

// unsafeRune says whether r would act on a terminal or reorder the text
// around it rather than show: a C0 or C1 control, DEL, or a bidirectional
// control (Trojan Source, CVE-2021-42574).
func unsafeRune(r rune) bool {
	return unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) || r == '\u2028' || r == '\u2029'
}

// runeEscape writes r as Go would in a string literal: \x1b, \u202e.
func runeEscape(r rune) string {
	if r < 0x100 {
		return fmt.Sprintf(`\x%02x`, r)
	}
	return fmt.Sprintf(`\u%04x`, r)
}
