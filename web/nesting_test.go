package web

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"contend/scenarios"
)

// deep is a TOML line that nests n inline tables, or n arrays when open is
// "[". Five bytes a level: the 24 KB that took the server to 1.5 GB were
// about 5000 deep.
func deep(n int, open string) string {
	if open == "[" {
		return "deep = " + strings.Repeat("[", n) + strings.Repeat("]", n) + "\n"
	}
	return "deep = " + strings.Repeat("{a = ", n-1) + "{}" + strings.Repeat("}", n-1) + "\n"
}

// TestNesting: text from a page nesting more than maxNesting brackets is
// refused at the bracket past the bound, before the loader sees it;
// brackets in strings and comments do not count, and every built-in
// scenario passes.
func TestNesting(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		col        int // of the refused bracket; 0: accepted
	}{
		{"tables at the bound", deep(maxNesting, "{"), 0},
		{"tables past it", deep(maxNesting+1, "{"), len("deep = ") + 5*maxNesting + 1},
		{"arrays past it", "x = 1\n" + deep(maxNesting+1, "["), len("deep = ") + maxNesting + 1},
		{"the issue's 24 KB", deep(5000, "{"), len("deep = ") + 5*maxNesting + 1},
		{"basic string", `s = "` + strings.Repeat("[", 100) + `\"` + strings.Repeat("{", 100) + "\"\n", 0},
		{"literal string", `s = '` + strings.Repeat("[", 100) + "'\n", 0},
		{"multi-line basic", `s = """` + "\n" + strings.Repeat("[", 100) + `\"""` + "\n\"\"\"\"\n", 0},
		{"multi-line literal", `s = '''` + strings.Repeat("{", 100) + "\n'''''\n", 0},
		{"comment", "# " + strings.Repeat("[", 100) + "\nx = 1\n", 0},
		{"brackets after a string", `s = "]]]]"` + "\n" + deep(maxNesting+1, "["), len("deep = ") + maxNesting + 1},
		{"a quote in a comment", "# it's\n" + deep(maxNesting+1, "{"), len("deep = ") + 5*maxNesting + 1},
	} {
		err := nesting("edited.toml", tc.text)
		var se *scenarios.Error
		switch {
		case tc.col == 0 && err != nil:
			t.Errorf("%s: refused: %v", tc.name, err)
		case tc.col == 0:
		case err == nil:
			t.Errorf("%s: accepted", tc.name)
		case !strings.Contains(err.Error(), "deeper than") || !errors.As(err, &se):
			t.Errorf("%s: %v, want a located error saying how deep is allowed", tc.name, err)
		case se.Line != strings.Count(tc.text[:strings.Index(tc.text, "deep")], "\n")+1 || se.Column != tc.col:
			t.Errorf("%s: refused at %d:%d, want column %d of the deep line", tc.name, se.Line, se.Column, tc.col)
		}
	}
	for _, name := range scenarios.BuiltinNames() {
		b := mustBuiltin(t, name)
		if err := nesting(name+".toml", string(b)); err != nil {
			t.Errorf("built-in %s: %v", name, err)
		}
	}
}

// TestNestingServed: deep text is refused quickly by POST /api/check and by
// a websocket start, and a deeply nested websocket message gets an error
// frame; the connection goes on.
func TestNestingServed(t *testing.T) {
	_, ts := newTestServer(t, Options{})
	begin := time.Now()
	resp, err := post(ts, "/api/check?name=ingress", deep(4000, "{"))
	if err != nil {
		t.Fatal(err)
	}
	var r CheckResult
	json.NewDecoder(resp.Body).Decode(&r)
	resp.Body.Close()
	if r.OK || len(r.Errors) != 1 || !strings.Contains(r.Errors[0].Message, "deeper than") || r.Errors[0].Line != 1 {
		t.Errorf("check: %+v, want the nesting refused at line 1", r)
	}
	c := dial(t, ts)
	for _, msg := range []string{
		`{"type":"start","scenario":"ingress","text":` + quote(deep(4000, "[")) + `}`,
		`{"type":"start","scenario":"ingress","x":` + strings.Repeat("[", 500_000) + `}`,
		`{"type":"start","scenario":"ingress","text":"x = 1","extra":` + strings.Repeat(`{"a":`, 150_000) + `}`,
	} {
		c.WriteMessage(websocket.TextMessage, []byte(msg))
		var e Error
		until(t, c, "error", &e)
		if !strings.Contains(e.Message, "deeper than") && !strings.Contains(e.Message, "bad message") {
			t.Errorf("%.60s...: %q", msg, e.Message)
		}
	}
	if took := time.Since(begin); took > 5*time.Second {
		t.Errorf("refusing deep input took %v", took)
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// FuzzNesting: on any text the scan ends, and a refusal points at a bracket
// of the text, the one that opens level maxNesting+1.
func FuzzNesting(f *testing.F) {
	for _, seed := range []string{deep(maxNesting+1, "{"), deep(maxNesting+1, "["),
		"s = '''\n" + deep(70, "[") + "'''\n" + deep(65, "["), `s = "\"` + deep(80, "{"), "# \n\r\n[[a]]\n"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		err := nesting("f.toml", text)
		var se *scenarios.Error
		if err == nil {
			return
		}
		if !errors.As(err, &se) {
			t.Fatalf("%v is not a located error", err)
		}
		lines := strings.Split(text, "\n")
		if se.Line < 1 || se.Line > len(lines) || se.Column < 1 || se.Column > len(lines[se.Line-1]) {
			t.Fatalf("refused at %d:%d, outside the text", se.Line, se.Column)
		}
		if ch := lines[se.Line-1][se.Column-1]; ch != '[' && ch != '{' {
			t.Fatalf("refused at %d:%d, %q, not a bracket", se.Line, se.Column, ch)
		}
	})
}
