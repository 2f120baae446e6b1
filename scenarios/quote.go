package scenarios

import (
	"fmt"
	"strings"
)

// Quote writes s as a TOML basic string, for the tools that write scenario
// text (contend import, contend advise). Go's %q is not one: it writes \x0e
// and \a, which TOML does not have. Quote escapes what TOML requires (the
// quote, the backslash and the control characters) and nothing else.
func Quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
