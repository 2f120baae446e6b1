package web

import (
	"fmt"
	"strings"

	"contend/scenarios"
)

// maxNesting bounds the brackets ([ and {) open at once in TOML text from a
// page. The loader's cost grows with the square of the depth of inline
// tables (24 KB of them took 1.5 GB), and no scenario nests past a few.
const maxNesting = 64

// nesting refuses text that opens more than maxNesting brackets at once,
// at the bracket past the bound. It reads TOML only as far as strings and
// comments, whose brackets do not count; the loader judges the rest.
func nesting(file, text string) error {
	depth, line, col := 0, 1, 1
	for i := 0; i < len(text); i++ {
		switch ch := text[i]; ch {
		case '\n':
			line, col = line+1, 0
		case '#':
			for i+1 < len(text) && text[i+1] != '\n' {
				i++
			}
		case '"', '\'':
			end := stringEnd(text, i)
			line += strings.Count(text[i:end], "\n")
			if nl := strings.LastIndexByte(text[i:end], '\n'); nl >= 0 {
				col = end - (i + nl) - 1
			} else {
				col += end - i - 1
			}
			i = end - 1
		case '[', '{':
			if depth++; depth > maxNesting {
				return &scenarios.Error{File: file, Line: line, Column: col,
					Msg: fmt.Sprintf("brackets nested deeper than %d; write the inner tables as [table] sections, or flatten the arrays", maxNesting)}
			}
		case ']', '}':
			depth = max(depth-1, 0)
		}
		col++
	}
	return nil
}

// stringEnd returns the index just past the TOML string that starts at
// text[i]: basic ("...", with escapes) or literal ('...'), on one line or,
// tripled, on many. An unterminated one-line string ends at its line's end.
func stringEnd(text string, i int) int {
	q := text[i : i+1]
	multi := strings.HasPrefix(text[i:], q+q+q)
	j := i + 1
	if multi {
		j = i + 3
	}
	for ; j < len(text); j++ {
		switch {
		case text[j] == '\\' && q == `"`:
			j++
		case text[j] == '\n' && !multi:
			return j
		case multi && strings.HasPrefix(text[j:], q+q+q):
			// Up to two more quotes belong to the string.
			j += 3
			for k := 0; k < 2 && j < len(text) && text[j] == q[0]; k++ {
				j++
			}
			return j
		case !multi && text[j] == q[0]:
			return j + 1
		}
	}
	return len(text)
}
