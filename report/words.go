package report

import (
	"fmt"
	"strings"
)

// OrList joins words as "a, b or c".
func OrList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// SeriesNamed says which series was asked for, if one was: " named \"x\"".
func SeriesNamed(name string) string {
	if name == "" {
		return ""
	}
	return fmt.Sprintf(" named %q", name)
}
