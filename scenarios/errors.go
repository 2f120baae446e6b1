package scenarios

import (
	"errors"
	"fmt"
	"strings"

	"github.com/BurntSushi/toml"
)

// Error is a problem in a scenario file, located for the user.
type Error struct {
	File   string
	Line   int // 1-based; 0 when unknown
	Column int
	Field  string
	Msg    string // what is wrong and how to fix it
}

func (e *Error) Error() string {
	loc := e.File
	if e.Line > 0 {
		loc = fmt.Sprintf("%s:%d:%d", e.File, e.Line, e.Column)
	}
	if e.Field != "" {
		return fmt.Sprintf("%s: %s: %s", loc, e.Field, e.Msg)
	}
	return fmt.Sprintf("%s: %s", loc, e.Msg)
}

// locator finds where things are in a file's source, for errors.
type locator struct {
	file  string
	lines []string
}

func newLocator(file string, src []byte) *locator {
	return &locator{file: file, lines: strings.Split(string(src), "\n")}
}

// errAt builds an Error for field, placed at the first line (at or after the
// line of the first anchor that is found) containing every needle in turn.
func (l *locator) errAt(field string, anchors []string, format string, args ...any) *Error {
	e := &Error{File: l.file, Field: field, Msg: fmt.Sprintf(format, args...)}
	e.Line, e.Column = l.find(anchors...)
	return e
}

// find returns the 1-based line and column of the last needle, each needle
// searched from where the previous one was found.
func (l *locator) find(needles ...string) (int, int) {
	line, col := 0, 0
	from := 0
	for _, n := range needles {
		if n == "" {
			continue
		}
		found := false
		for i := from; i < len(l.lines); i++ {
			if c := strings.Index(l.lines[i], n); c >= 0 {
				line, col, from, found = i+1, c+1, i, true
				break
			}
		}
		if !found {
			break
		}
	}
	return line, col
}

// fromTOML turns a decoding error into an Error with the parser's position.
func (l *locator) fromTOML(err error) *Error {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		msg := pe.Message
		if pe.Usage != "" {
			msg += "; " + strings.TrimSpace(pe.Usage)
		}
		return &Error{File: l.file, Line: pe.Position.Line, Column: pe.Position.Col, Field: pe.LastKey, Msg: msg}
	}
	return &Error{File: l.file, Msg: err.Error()}
}
