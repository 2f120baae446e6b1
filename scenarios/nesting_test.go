package scenarios_test

import (
	"errors"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/BurntSushi/toml"

	"contend/scenarios"
)

// nested returns n inline tables, one in another, as deep = {a = {a = ...}}.
func nested(n int) string {
	return "deep = " + strings.Repeat("{a = ", n) + "1" + strings.Repeat("}", n) + "\n"
}

// nestCase is text for CheckNesting and, when it nests too deep, where the
// error points.
type nestCase struct {
	name, src, field string
	line, col        int
}

// Each case gives the text and, when it nests too deep, where the error
// points: the bracket, key or header that goes one level past the bound.
// The levels are counted here by hand: the root table is level 0, deep =
// {...} is 1, a table in it 2.
func TestCheckNesting(t *testing.T) {
	ok := func(name, src string) nestCase { return nestCase{name: name, src: src} }
	bad := func(name, src, field string, line, col int) nestCase { return nestCase{name, src, field, line, col} }
	cases := []nestCase{
		ok("32 inline tables", nested(32)),
		// deep = is 7 columns; the 33rd table opens 5 columns after each
		// of the 32 before it.
		bad("33 inline tables", nested(33), "deep", 1, 8+5*32),
		bad("40 KB of inline tables", nested(8000), "deep", 1, 8+5*32),
		ok("32 arrays", "x = "+strings.Repeat("[", 32)+strings.Repeat("]", 32)),
		bad("33 arrays", "x = "+strings.Repeat("[", 33)+strings.Repeat("]", 33), "x", 1, 5+32),
		bad("arrays of tables of arrays", "x = "+strings.Repeat("[{a = ", 17)+"1"+strings.Repeat("}]", 17), "x", 1, 5+6*16),
		bad("after a blank line and a comment", "# [[[[\n\n[t]\n"+nested(40), "t.deep", 4, 8+5*31),
		// A dotted key of 33 parts puts tables at levels 1 to 32 and its
		// value at 33: a leaf, no deeper a table than 32.
		ok("dotted key of 33 parts", strings.Repeat("a.", 32)+"a = 1\n"),
		bad("dotted key of 34 parts", "x = 1\n"+strings.Repeat("a.", 33)+"a = 1\n", strings.Repeat("a.", 33)+"a", 2, 1),
		bad("dotted key in an inline table", "x = { "+strings.Repeat("a.", 33)+"a = 1 }\n", "x", 1, 7),
		bad("dotted key under a header", "[t.u]\n"+strings.Repeat("a.", 31)+"a = 1\n", "t.u."+strings.Repeat("a.", 31)+"a", 2, 1),
		ok("header of 32 parts", "["+strings.Repeat("a.", 31)+"a]\nx = 1\n"),
		bad("header of 33 parts", "["+strings.Repeat("a.", 32)+"a]\nx = 1\n", strings.Repeat("a.", 32)+"a", 1, 1),
		bad("array of tables of 32 parts", "y = 2\n[["+strings.Repeat("a.", 31)+"a]]\nx = 1\n", strings.Repeat("a.", 31)+"a", 2, 1),
		ok("brackets in strings and comments", "a = \"[{[{\\\"[[\" # [[\nb = '[[[{{'\nc = \"\"\"\n[[[\\\"\"\"{{{\n\"\"\"\nd = '''\n{{{'''\n# {{{{{{\n"+
			"e = \"\"\"x\"\"\"\"\"\nf = '''y'''''\n"+"g = \"\"\"\n"+strings.Repeat("{", 40)+"\n\"\"\"\n"),
		// A multi-line string may end with up to two quotes of its own
		// before the closing three: a reader that closed it early would
		// take the rest for a string.
		bad("nest after a string that ends in quotes", "x = [ \"\"\"a\"\"\"\", "+strings.Repeat("[", 40)+strings.Repeat("]", 41)+"\n", "x", 1, 17+31),
		bad("quoted keys", "\"a.b\".'c.d' = "+strings.Repeat("[", 40)+"\n", "\"a.b\".'c.d'", 1, 15+31),
		bad("unbalanced: closers do not hide openers", "x = ]]]]}}}}"+strings.Repeat("{", 40)+"\n", "x", 1, 13+32),
		bad("a key holds no bracket", "x"+strings.Repeat("[", 40)+"\n", "", 1, 2+32),
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := scenarios.CheckNesting("n.toml", []byte(tc.src))
			if tc.line == 0 {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			checkError(t, err, "n.toml", tc.line, tc.field, "write it with fewer levels")
			if e := (*scenarios.Error)(nil); errors.As(err, &e) && e.Column != tc.col {
				t.Errorf("column %d; want %d", e.Column, tc.col)
			}
		})
	}
}

// Every built-in file nests well within the bound.
func TestBuiltinsNestWithin(t *testing.T) {
	err := fs.WalkDir(scenarios.Builtin(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".toml") {
			return err
		}
		src, err := fs.ReadFile(scenarios.Builtin(), p)
		if err != nil {
			return err
		}
		if got := depth(t, src); got > scenarios.MaxNesting/2 {
			t.Errorf("%s nests %d levels deep; the bound of %d leaves little room", p, got, scenarios.MaxNesting)
		}
		return scenarios.CheckNesting(p, src)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// depth is the level of the deepest table or array in the tree the TOML
// decoder makes of src, the root table at level 0: the reference that
// CheckNesting's count of the text is checked against.
func depth(tb testing.TB, src []byte) int {
	var doc map[string]any
	if _, err := toml.Decode(string(src), &doc); err != nil {
		tb.Fatalf("decode: %v", err)
	}
	return treeDepth(doc, 0)
}

func treeDepth(v any, level int) int {
	most := level
	switch v := v.(type) {
	case map[string]any:
		for _, x := range v {
			most = max(most, treeDepth(x, level+1))
		}
	case []map[string]any:
		for _, x := range v {
			most = max(most, treeDepth(x, level+1))
		}
	case []any:
		for _, x := range v {
			most = max(most, treeDepth(x, level+1))
		}
	default:
		return level - 1 // a leaf is no table
	}
	return most
}

// A scenario that nests too deep is refused by Parse, at its line, before
// the decoder spends seconds and gigabytes on it.
func TestParseRefusesDeepNesting(t *testing.T) {
	src := edit(t, good, "name = \"t\"\n", "name = \"t\"\n"+nested(8000))
	_, err := scenarios.Parse(fstest.MapFS{}, "t.toml", []byte(src))
	checkError(t, err, "t.toml", 2, "deep", "fewer levels")
	inc := fstest.MapFS{"a.toml": {Data: []byte(strings.Replace(good, "\n\n", "\ninclude = [\"deep.toml\"]\n\n", 1))},
		"deep.toml": {Data: []byte("# shared\n" + nested(8000))}}
	_, err = scenarios.Load(inc, "a.toml")
	checkError(t, err, "deep.toml", 2, "deep", "fewer levels")
}

// FuzzCheckNesting checks CheckNesting's count of the text against the
// tree the decoder builds from it: text it refuses that the decoder reads
// nests deeper than the bound, and text it accepts at most twice as deep
// (a header that extends an array of tables lies a level deeper per part
// than it is written).
func FuzzCheckNesting(f *testing.F) {
	for _, s := range []string{nested(32), nested(33), "x = [[[[[]]]]]", "a.b.c = {d.e = [1, {f = 2}]}",
		"[[a.b]]\nc = 1\n[[a.b.d]]\n", "s = \"\"\"a\"\"\"\"\"\nt = '[['\n", "[a.\"b.c\"]\nd = '''\n{{'''\n", good} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		err := scenarios.CheckNesting("f.toml", src)
		var e *scenarios.Error
		if err != nil && (!errors.As(err, &e) || e.Line < 1 || e.Column < 1 || e.Line > strings.Count(string(src), "\n")+1) {
			t.Fatalf("error %v is not placed in the text", err)
		}
		if len(src) > 4096 {
			return // the decoder's own cost, which this bounds
		}
		var doc map[string]any
		if _, derr := toml.Decode(string(src), &doc); derr != nil {
			return
		}
		d := treeDepth(doc, 0)
		switch {
		case err != nil && d <= scenarios.MaxNesting:
			t.Fatalf("refused text that nests %d levels: %v\n%q", d, err, src)
		case err == nil && d > 2*scenarios.MaxNesting+1:
			t.Fatalf("accepted text that nests %d levels\n%q", d, src)
		}
	})
}
