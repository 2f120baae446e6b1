package scenarios

import (
	"bytes"
	"fmt"
	"strings"
)

// CheckNesting refuses TOML text whose tables, arrays and dotted keys nest
// more than MaxNesting levels deep, before a decoder sees it: the TOML
// decoder's time and memory grow with the square of the depth (a 40 KB file
// of nested inline tables takes seconds and gigabytes, far under
// MaxFileBytes). The web server checks request bodies with it too.
//
// It reads the text once, skipping strings and comments, and counts levels
// as the decoded tree holds them: a key of n dotted parts puts its value n
// levels below its table, [a.b] is a table two levels down and [[a.b]] one
// more (the array, then its table), and each array or inline table is a
// level below the value that holds it. A header that extends an array of
// tables lies deeper than it counts; its cost is its length, which the count
// bounds. Text it cannot parse it reads on, counting every bracket outside
// strings and comments: the decoder refuses such text, and must not meet
// deep nesting on the way.
func CheckNesting(name string, src []byte) error {
	n := nestScan{src: src}
	at, ok := n.scan()
	if ok {
		return nil
	}
	line := 1 + bytes.Count(src[:at], []byte("\n"))
	col := at - (bytes.LastIndexByte(src[:at], '\n') + 1) + 1
	field := n.key
	if n.header != "" {
		field = strings.Trim(n.header+"."+n.key, ".")
	}
	return &Error{File: name, Line: line, Column: col, Field: field,
		Msg: fmt.Sprintf("tables, arrays and dotted keys nest more than %d levels deep here (MaxNesting); write it with fewer levels: a scenario needs far fewer", MaxNesting)}
}

// nestScan is CheckNesting's reader.
type nestScan struct {
	src []byte
	// header and key are the last header and top-level key read, for the
	// error's field.
	header, key string
}

// What the reader expects next.
const (
	nestLineStart = iota // a header, a key, a comment or a blank line
	nestHeader           // the key of a header, up to its ']'
	nestKey              // a key, up to its '='
	nestValue            // a value, with the arrays and inline tables in it
)

// nestFrame is an open array or inline table, at its level.
type nestFrame struct {
	table bool
	level int
}

// scan reads the text, and returns where it first nests too deep and
// false, or true.
func (n *nestScan) scan() (int, bool) {
	src := n.src
	var stack []nestFrame
	mode := nestLineStart
	table := 0             // the level of the table the last header opened
	keyBase, segs := 0, 1  // the level of the table a key is in; its dotted parts
	start, aot := 0, false // where the key or header starts (-1: not yet); [[header]]
	expect := 0            // the level of the next value
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '"' || c == '\'':
			if mode == nestLineStart {
				mode, keyBase, segs, start = nestKey, table, 1, i
			}
			if mode == nestKey && start < 0 {
				start = i
			}
			i = skipTOMLString(src, i)
			continue
		case c == '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
			continue
		case c == '\n':
			if len(stack) == 0 {
				mode = nestLineStart
			}
			i++
			continue
		case c == ' ' || c == '\t' || c == '\r':
			i++
			continue
		}
		switch mode {
		case nestLineStart:
			if c != '[' {
				mode, keyBase, segs, start = nestKey, table, 1, i
				continue
			}
			start, aot = i, i+1 < len(src) && src[i+1] == '['
			i++
			if aot {
				i++
			}
			mode, segs = nestHeader, 1
			n.header, n.key = "", ""
			continue
		case nestHeader:
			switch c {
			case '.':
				segs++
			case ']':
				n.header = strings.TrimSpace(strings.Trim(string(src[start:i]), "["))
				table = segs
				if aot {
					table++
				}
				if table > MaxNesting {
					return start, false
				}
				mode, expect = nestValue, table+1 // what follows is junk: count it anyway
				if aot && i+1 < len(src) && src[i+1] == ']' {
					i++
				}
			}
			i++
			continue
		case nestKey:
			if start < 0 {
				start = i
			}
			switch c {
			case '.':
				segs++
				i++
				continue
			case '=':
				if len(stack) == 0 {
					n.key = strings.TrimSpace(string(src[start:i]))
				}
				if keyBase+segs-1 > MaxNesting {
					return start, false
				}
				mode, expect = nestValue, keyBase+segs
				i++
				continue
			case '[', '{', ']', '}', ',':
				// No key holds these: read on as a value.
				mode, expect = nestValue, keyBase+segs
			default:
				i++
				continue
			}
		}
		// nestValue
		switch c {
		case '[', '{':
			if expect > MaxNesting {
				return i, false
			}
			stack = append(stack, nestFrame{table: c == '{', level: expect})
			if c == '{' {
				mode, keyBase, segs, start = nestKey, expect, 1, -1
			}
			expect++
		case ']', '}':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		case ',':
			switch {
			case len(stack) == 0:
			case stack[len(stack)-1].table:
				top := stack[len(stack)-1]
				mode, keyBase, segs, start = nestKey, top.level, 1, -1
			default:
				expect = stack[len(stack)-1].level + 1
			}
		}
		i++
	}
	return 0, true
}

// skipTOMLString returns the index just past the string that starts at
// src[i]: basic ("...", with escapes), literal ('...'), or either
// multi-line (three quotes, which may end with up to two more). A
// single-line string ends at a newline, where the decoder refuses it.
func skipTOMLString(src []byte, i int) int {
	q := src[i]
	multi := i+2 < len(src) && src[i+1] == q && src[i+2] == q
	j := i + 1
	if multi {
		j = i + 3
	}
	for j < len(src) {
		switch c := src[j]; {
		case c == '\\' && q == '"':
			j += 2
			continue
		case c == '\n' && !multi:
			return j
		case c == q && !multi:
			return j + 1
		case c == q && j+2 < len(src) && src[j+1] == q && src[j+2] == q:
			for j < len(src) && src[j] == q {
				j++
			}
			return j
		}
		j++
	}
	return len(src)
}
