package scenarios

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
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

// errAt builds an Error for field, placed by find at the last of anchors
// found in the file.
func (l *locator) errAt(field string, anchors []string, format string, args ...any) *Error {
	e := &Error{File: l.file, Field: field, Msg: fmt.Sprintf(format, args...)}
	e.Line, e.Column = l.find(anchors...)
	return e
}

// sameLine makes a needle that matches the first line holding every word, in
// any order: a step is told apart from its neighbours by its key and operand
// together.
func sameLine(words ...string) string {
	var set []string
	for _, w := range words {
		if w != "" {
			set = append(set, w)
		}
	}
	return strings.Join(set, "\x00")
}

// keyNeedle makes a needle that matches k only as a key, followed by "=":
// not "work" in free = ["params.work"].
func keyNeedle(k string) string { return "\x01" + k }

// find returns the 1-based line and column of the last needle found, each
// needle searched after the end of the previous match. Needles match whole
// words, so "lock" finds neither "unlock" nor "locked". A needle that is not
// found is skipped; when none is (a missing top-level key), the place is the
// top of the file, where top-level keys go.
func (l *locator) find(needles ...string) (int, int) {
	line, col := 1, 1
	row, from := 0, 0 // where the next search starts
	for _, n := range needles {
		if n == "" {
			continue
		}
		words := strings.Split(n, "\x00")
		for i := row; i < len(l.lines); i++ {
			start := 0
			if i == row {
				start = from
			}
			c, end := matchAll(l.lines[i], start, words)
			if c >= 0 {
				line, col, row, from = i+1, c+1, i, end
				break
			}
		}
	}
	return line, col
}

// matchAll returns where the first of words starts in s[start:] and where the
// last match ends, when every word is found as a whole word; -1 otherwise.
func matchAll(s string, start int, words []string) (int, int) {
	first, end := -1, 0
	for _, w := range words {
		c := -1
		if k, isKey := strings.CutPrefix(w, "\x01"); isKey {
			c = indexKey(s, k, start)
			w = k
		} else {
			c = indexWord(s, w, start)
		}
		if c < 0 {
			return -1, 0
		}
		if first < 0 || c < first {
			first = c
		}
		end = max(end, c+len(w))
	}
	return first, end
}

// indexWord returns the index of the first occurrence of w in s at or after
// from that is not part of a longer bare key, or -1.
func indexWord(s, w string, from int) int {
	for from <= len(s) {
		c := strings.Index(s[from:], w)
		if c < 0 {
			return -1
		}
		c += from
		end := c + len(w)
		before := c == 0 || !isKeyByte(s[c-1]) || !isKeyByte(w[0])
		after := end == len(s) || !isKeyByte(s[end]) || !isKeyByte(w[len(w)-1])
		if before && after {
			return c
		}
		from = c + 1
	}
	return -1
}

// indexKey returns the index of the first whole word k at or after from
// that is followed by "=", or -1.
func indexKey(s, k string, from int) int {
	for {
		c := indexWord(s, k, from)
		if c < 0 || strings.HasPrefix(strings.TrimLeft(s[c+len(k):], " \t"), "=") {
			return c
		}
		from = c + 1
	}
}

// isKeyByte reports whether b may appear in a TOML bare key.
func isKeyByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_' || b == '-'
}

// fromTOML turns a decoding error into an Error with the parser's position.
// Syntax errors come as toml.ParseError; a value of the wrong type comes as
// plain text, "toml: line N (last key K): incompatible types: ...", which is
// taken apart here.
func (l *locator) fromTOML(err error) *Error {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		msg := pe.Message
		if pe.Usage != "" {
			msg += "; " + strings.TrimSpace(pe.Usage)
		}
		return &Error{File: l.file, Line: pe.Position.Line, Column: pe.Position.Col, Field: pe.LastKey, Msg: msg}
	}
	rest, ok := strings.CutPrefix(err.Error(), "toml: ")
	if !ok {
		return &Error{File: l.file, Msg: err.Error()}
	}
	line := 0
	if n, _ := fmt.Sscanf(rest, "line %d ", &line); n == 1 {
		rest = rest[strings.IndexByte(rest, '('):]
	}
	key := ""
	if r, ok := strings.CutPrefix(rest, "(last key "); ok {
		if q, err := strconv.QuotedPrefix(r); err == nil {
			key, _ = strconv.Unquote(q)
			rest = strings.TrimPrefix(r[len(q):], "): ")
		}
	}
	e := &Error{File: l.file, Field: key, Msg: typeHint(rest)}
	segs := strings.Split(key, ".")
	if line > 0 && line <= len(l.lines) {
		e.Line, e.Column = line, 1
		if c := indexWord(l.lines[line-1], segs[len(segs)-1], 0); c >= 0 {
			e.Column = c + 1
		}
	} else {
		e.Line, e.Column = l.find(segs...)
	}
	return e
}

// typeHint rewrites the decoder's "incompatible types" message as what to
// write instead.
func typeHint(msg string) string {
	var got, want string
	if n, _ := fmt.Sscanf(msg, "incompatible types: TOML value has type %s destination has type %s", &got, &want); n != 2 {
		return msg
	}
	return wrongType(strings.TrimSuffix(got, ";"), want, msg)
}

// typeNames names with TOML's words the Go types of decoded values (as %T
// and the decoder, which writes any for interface {}, print them) and the
// kinds of destination the decoder names.
var typeNames = map[string]string{
	"[]interface {}": "an array", "[]any": "an array", "slice": "an array",
	"[]map[string]interface {}": "an array of tables", "[]map[string]any": "an array of tables",
	"map[string]interface {}": "a table", "map[string]any": "a table", "map": "a table",
	"time.Time": "a date", "toml.LocalDate": "a date", "toml.LocalDateTime": "a date", "toml.LocalTime": "a time",
	"string": "a string", "int64": "an integer", "integer": "an integer", "float64": "a float", "float": "a float",
	"bool": "a boolean", "boolean": "a boolean",
}

var typeFixes = map[string]string{
	"a string":   `put it in quotes, e.g. "25ns"`,
	"an integer": "write a whole number without quotes, e.g. 4",
	"a float":    "write a number without quotes, e.g. 2.8",
	"a boolean":  "write true or false without quotes",
	"an array":   `write an array in brackets, e.g. ["a", "b"]`,
	"a table":    "write a table: [name] with keys under it, or { key = value }",
}

// valueType names a decoded TOML value's type with TOML's words.
func valueType(v any) string {
	if n, ok := typeNames[fmt.Sprintf("%T", v)]; ok {
		return n
	}
	return "a value of no TOML type"
}

// wrongType says that a value of type have is where want is needed, and how
// to write it; msg when want is not a type it knows.
func wrongType(have, want, msg string) string {
	h, need := typeNames[have], typeNames[want]
	if h == "" || need == "" {
		return msg
	}
	return fmt.Sprintf("%s where %s is expected; %s", h, need, typeFixes[need])
}

// typeError returns the first value, in file order, whose type the schema
// cannot hold, or nil. The decoder reports whichever it meets first while
// ranging over a map, which changes from run to run, and places a key of an
// array of tables at its last appearance, not at the bad one.
func (l *locator) typeError(md toml.MetaData, src string) *Error {
	var doc map[string]any
	if _, err := toml.Decode(src, &doc); err != nil {
		return nil
	}
	seen := map[string]int{}
	for _, k := range md.Keys() {
		seen[k.String()]++
		n := seen[k.String()]
		want, ok := schemaKind(reflect.TypeFor[fileRaw](), k)
		vals := valuesAt(doc, k)
		if !ok || n > len(vals) || fits(want, vals[n-1]) {
			continue
		}
		// The nth appearance of a key is, in an array of tables, its nth
		// match in the text: arrays keep the order of the file.
		anchors := append([]string{}, k[:len(k)-1]...)
		for range n {
			anchors = append(anchors, k[len(k)-1])
		}
		have := valueType(vals[n-1])
		return l.errAt(k.String(), anchors, "%s", wrongType(fmt.Sprintf("%T", vals[n-1]), kindNames[want], have+" where this key takes another type"))
	}
	return nil
}

// valuesAt returns every value at key k in doc, arrays walked in order.
func valuesAt(doc any, k toml.Key) []any {
	if len(k) == 0 {
		return []any{doc}
	}
	switch d := doc.(type) {
	case map[string]any:
		if v, ok := d[k[0]]; ok {
			return valuesAt(v, k[1:])
		}
	case []map[string]any:
		var out []any
		for _, e := range d {
			out = append(out, valuesAt(e, k)...)
		}
		return out
	case []any:
		var out []any
		for _, e := range d {
			out = append(out, valuesAt(e, k)...)
		}
		return out
	}
	return nil
}

// kindNames names Go kinds as the decoder names destinations.
var kindNames = map[reflect.Kind]string{
	reflect.String: "string", reflect.Int: "integer", reflect.Int64: "integer", reflect.Float64: "float",
	reflect.Bool: "boolean", reflect.Slice: "slice", reflect.Struct: "map", reflect.Map: "map",
}

// schemaKind returns the kind of value the schema t holds at key k; false
// where the schema takes anything (params) or does not know the key.
func schemaKind(t reflect.Type, k toml.Key) (reflect.Kind, bool) {
	t, ok := schemaAt(t, k)
	if !ok {
		return 0, false
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() == reflect.Interface {
		return 0, false
	}
	return t.Kind(), true
}

// schemaAt returns the schema type that the keys of path lead to from t;
// false where a key is not the schema's.
func schemaAt(t reflect.Type, path toml.Key) (reflect.Type, bool) {
	for _, seg := range path {
		t = tableOf(t)
		switch t.Kind() {
		case reflect.Map:
			t = t.Elem()
		case reflect.Struct:
			f, ok := fieldOf(t, seg)
			if !ok {
				return nil, false
			}
			t = f
		default:
			return nil, false
		}
	}
	return t, true
}

// tableOf looks through pointers and slices (a table of an array of
// tables) to the table type.
func tableOf(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	return t
}

func fieldOf(t reflect.Type, key string) (reflect.Type, bool) {
	for i := 0; i < t.NumField(); i++ {
		if f := t.Field(i); f.IsExported() && strings.Split(f.Tag.Get("toml"), ",")[0] == key {
			return f.Type, true
		}
	}
	return nil, false
}

// fits reports whether a decoded value v goes into a destination of kind.
func fits(kind reflect.Kind, v any) bool {
	switch v.(type) {
	case string:
		return kind == reflect.String
	case int64:
		return kind == reflect.Int || kind == reflect.Int64 || kind == reflect.Float64
	case float64:
		return kind == reflect.Float64
	case bool:
		return kind == reflect.Bool
	case []any, []map[string]any:
		return kind == reflect.Slice
	case map[string]any:
		return kind == reflect.Struct || kind == reflect.Map
	}
	return false
}

// knownKeysHint says which keys the table holding k takes, nearest spelling
// first: the user of the binary has no schema file to look in.
func knownKeysHint(k toml.Key) string {
	t, ok := schemaAt(reflect.TypeFor[fileRaw](), k[:len(k)-1])
	if !ok {
		return "check the spelling"
	}
	if t = tableOf(t); t.Kind() != reflect.Struct {
		return "check the spelling"
	}
	var keys []string
	for i := 0; i < t.NumField(); i++ {
		if f := t.Field(i); f.IsExported() {
			keys = append(keys, strings.Split(f.Tag.Get("toml"), ",")[0])
		}
	}
	last := k[len(k)-1]
	best := slices.MinFunc(keys, func(a, b string) int { return EditDistance(last, a) - EditDistance(last, b) })
	hint := "check the spelling"
	if EditDistance(last, best) <= max(2, len(last)/3) {
		hint = fmt.Sprintf("check the spelling: did you mean %q?", best)
	}
	return fmt.Sprintf("%s (here the keys are %s)", hint, strings.Join(keys, ", "))
}

// EditDistance is the edit distance between a and b with two neighbours
// swapped counting as one edit (optimal string alignment): the commonest
// typo, "lokc" for "lock", is one edit from it and two from "load".
func EditDistance(a, b string) int {
	var prev2 []int
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev = prev, cur
	}
	return prev[len(b)]
}
