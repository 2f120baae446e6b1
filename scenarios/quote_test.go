package scenarios_test

import (
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"contend/scenarios"
)

// Quote's strings decode, with BurntSushi/toml, to the string written;
// invalid UTF-8 comes back as U+FFFD.
func TestQuote(t *testing.T) {
	for _, s := range []string{"plain", `a "quoted" word`, `back\slash`, "tab\tand\nnewline\r", "\x00\x0e\x1f\x7f", "é → ∞", "bad \xff byte"} {
		var doc struct{ V string }
		if _, err := toml.Decode("v = "+scenarios.Quote(s), &doc); err != nil {
			t.Errorf("%q: %s is not TOML: %v", s, scenarios.Quote(s), err)
			continue
		}
		if want := strings.ToValidUTF8(s, "\uFFFD"); doc.V != want {
			t.Errorf("%q written as %s decodes to %q", s, scenarios.Quote(s), doc.V)
		}
	}
}
