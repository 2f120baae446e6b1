package web

import (
	"encoding/json"
	"testing"
)

// FuzzHandle: any bytes from a page get an answer (an error frame for a bad
// request) and never a panic; whatever run they start is stopped after.
func FuzzHandle(f *testing.F) {
	for _, seed := range []string{
		`{"type":"start","scenario":"ingress","variant":"locked","cores":2,"duration":"2us"}`,
		`{"type":"start","scenario":"ingress","text":"name = \"x\"\n[[variant]]\nname = 1"}`,
		`{"type":"sweep","scenario":"ingress","series":"nope"}`,
		`{"type":"watch","run":"r1"}`, `{"type":"stop"}`, `{"type":"ack"}`,
		`{"type":"start","scenario":"dst-use","axis":"rx_queues","x":-3}`, `[1,2]`, `"`, ``,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		s := New(Options{MaxRuns: 1})
		c := newClient(s.limits)
		s.handle(c, msg)
		queued := len(c.queue)
		if r := c.detach(); r != nil {
			r.leave(c)
		}
		s.hub.stopAll()
		var req Request
		if json.Unmarshal(msg, &req) != nil && queued == 0 {
			t.Fatalf("no error frame for %q", msg)
		}
	})
}
