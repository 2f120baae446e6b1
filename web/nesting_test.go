package web

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
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
	if r.OK || len(r.Errors) != 1 || !strings.Contains(r.Errors[0].Message, "levels deep") || r.Errors[0].Line != 1 {
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
		if !strings.Contains(e.Message, "levels deep") && !strings.Contains(e.Message, "bad message") {
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
