package web

import (
	"encoding/json"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/gorilla/websocket"

	"contend/models"
	"contend/scenarios"
	"contend/sim"
)

func newTestServer(t testing.TB, o Options) (*Server, *httptest.Server) {
	t.Helper()
	s := New(o)
	ts := httptest.NewServer(s)
	t.Cleanup(func() {
		s.Close()
		ts.Close()
	})
	return s, ts
}

func dial(t *testing.T, ts *httptest.Server) *websocket.Conn {
	t.Helper()
	c, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(ts.URL, "http")+"/ws", http.Header{"Origin": {ts.URL}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// msg is any server message: its type and its raw JSON.
type msg struct {
	Type string
	Raw  json.RawMessage
}

func read(t *testing.T, c *websocket.Conn) msg {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(30 * time.Second))
	var raw json.RawMessage
	if err := c.ReadJSON(&raw); err != nil {
		t.Fatal(err)
	}
	var m msg
	json.Unmarshal(raw, &m)
	m.Raw = raw
	return m
}

// until reads messages until one of type typ and decodes it into v; it
// returns the messages read before.
func until(t *testing.T, c *websocket.Conn, typ string, v any) []msg {
	t.Helper()
	var before []msg
	for {
		m := read(t, c)
		if m.Type == "sample" {
			c.WriteJSON(Request{Type: "ack"})
		}
		if m.Type == typ {
			if err := json.Unmarshal(m.Raw, v); err != nil {
				t.Fatal(err)
			}
			return before
		}
		if m.Type == "error" && typ != "error" {
			t.Fatalf("error frame: %s", m.Raw)
		}
		before = append(before, m)
	}
}

func TestScenarios(t *testing.T) {
	dir := fstest.MapFS{"mine.toml": {Data: mustBuiltin(t, "ingress")}}
	_, ts := newTestServer(t, Options{Dir: dir})
	resp, err := http.Get(ts.URL + "/api/scenarios")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got []ScenarioInfo
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range got {
		names = append(names, s.Name)
	}
	want := append(scenarios.BuiltinNames(), "mine.toml")
	if strings.Join(names, ",") != strings.Join(want, ",") {
		t.Fatalf("scenarios %v, want %v", names, want)
	}
	in := got[len(got)-1]
	sc, _ := scenarios.LoadBuiltin("ingress")
	if in.Source != "dir" || strings.Join(in.Variants, ",") != strings.Join(sc.VariantNames(), ",") ||
		len(in.Series) != len(sc.Series) || in.Series[0].Name != sc.Series[0].Name || in.DurationNs != 1e6 {
		t.Fatalf("mine.toml: %+v", in)
	}
}

// post sends body as the server's own page would, with its Origin.
func post(ts *httptest.Server, path, body string) (*http.Response, error) {
	req, err := http.NewRequest("POST", ts.URL+path, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Origin", ts.URL)
	return http.DefaultClient.Do(req)
}

func mustBuiltin(t *testing.T, name string) []byte {
	b, err := fs.ReadFile(scenarios.Builtin(), name+".toml")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestCheck breaks one line of a built-in scenario and expects the error at
// that line, as the CLI's loader places it.
func TestCheck(t *testing.T) {
	_, ts := newTestServer(t, Options{})
	post := func(text string) CheckResult {
		resp, err := post(ts, "/api/check?name=ingress", text)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var r CheckResult
		if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	src := string(mustBuiltin(t, "ingress"))
	if r := post(src); !r.OK || len(r.Errors) != 0 {
		t.Fatalf("the built-in ingress does not check: %+v", r)
	}
	lines := strings.Split(src, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "same_socket = ") {
			lines[i] = `same_socket = "fast"`
			r := post(strings.Join(lines, "\n"))
			if r.OK || len(r.Errors) != 1 || r.Errors[0].Line != i+1 || !strings.Contains(r.Errors[0].Message, "same_socket") {
				t.Fatalf("error %+v, want one at line %d naming same_socket", r.Errors, i+1)
			}
			return
		}
	}
	t.Fatal("no same_socket line in ingress.toml")
}

// TestRun streams ingress locked on 2 cores and compares the final figure
// with the scenario simulated directly, as contend run does.
func TestRun(t *testing.T) {
	_, ts := newTestServer(t, Options{})
	c := dial(t, ts)
	var hello Hello
	until(t, c, "hello", &hello)
	if hello.Version != Version {
		t.Fatalf("hello %+v", hello)
	}
	c.WriteJSON(Request{Type: "start", Scenario: "ingress", Series: "ingress-u32", Variant: "locked", Cores: new(2)})
	var st Started
	until(t, c, "started", &st)
	if len(st.CPUs) != 2 || st.Series != "ingress-u32" || st.DurationNs != 1e6 || len(st.Lines) == 0 {
		t.Fatalf("started %+v", st)
	}
	var done Done
	frames := until(t, c, "done", &done)
	var last Sample
	n := 0
	for _, m := range frames {
		var f Frame
		json.Unmarshal(m.Raw, &f)
		for _, s := range f.Samples {
			if s.NowNs <= last.NowNs || len(s.PPS) != 2 || len(s.States) != 2 {
				t.Fatalf("sample %+v after %+v", s, last)
			}
			last = s
			n++
		}
	}
	end := st.WarmupNs + st.DurationNs
	if n < samplesPerRun || last.NowNs != end {
		t.Fatalf("%d samples, last at %v ns; want %d ending at %v", n, last.NowNs, samplesPerRun, end)
	}
	sc, _ := scenarios.LoadBuiltin("ingress")
	res, err := sc.Simulate(scenarios.Point{Series: sc.Series[1], Variant: "locked", Axis: "cores", X: 2, Seed: sc.Run.Seed})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := scenarios.Metric(res, "throughput_per_core", "Mpps")
	if got := done.Metrics[0]; got.Metric != "throughput_per_core" || got.Value != want {
		t.Fatalf("final %+v, want %v Mpps", got, want)
	}
	// Two locked CPUs spin: the state fractions of a measured sample say so.
	if last.States[0][1] == 0 || last.TotalPPS == 0 {
		t.Fatalf("last sample %+v: no spin or no packets", last)
	}
	// The trace is what contend explain --trace 40 lists for the point.
	w, spec, err := sc.Build(scenarios.Point{Series: sc.Series[1], Variant: "locked", Axis: "cores", X: 2, Seed: sc.Run.Seed})
	if err != nil {
		t.Fatal(err)
	}
	trace := w.RecordTransfers(spec, 0, traceLen)
	if _, err := w.Run(spec); err != nil {
		t.Fatal(err)
	}
	if want := trace(); len(done.Trace) != traceLen || !slices.Equal(done.Trace, want) {
		t.Fatalf("done's trace has %d transfers, want the %d explain lists:\n got %+v\nwant %+v", len(done.Trace), len(want), done.Trace, want)
	}
}

// TestBadMessages: each bad request gets an error frame and the connection
// goes on working.
func TestBadMessages(t *testing.T) {
	_, ts := newTestServer(t, Options{})
	c := dial(t, ts)
	var hello Hello
	until(t, c, "hello", &hello)
	for _, tc := range []struct{ send, want string }{
		{`not json`, "bad message"},
		{`{"type":"fly"}`, "unknown message type"},
		{`{"type":"start","scenario":"nope"}`, `no scenario "nope"`},
		{`{"type":"start","scenario":"ingress","variant":"nope"}`, `no variant "nope"`},
		{`{"type":"start","scenario":"ingress","duration":"soon"}`, "positive duration"},
		{`{"type":"start","scenario":"flower-insert","duration":"1ms"}`, "leave duration empty"},
		{`{"type":"start","scenario":"ingress","text":"name = 3"}`, "ingress.toml:1:1: name"},
		{`{"type":"watch","run":"r99"}`, `no run "r99"`},
		// Every number is bounded: none runs a point other than the one asked.
		{`{"type":"start","scenario":"ingress","cores":-1}`, "cores: -1; cores counts flood CPUs, a whole number from 1 to 1024"},
		{`{"type":"start","scenario":"ingress","cores":0}`, "cores: 0; cores counts flood CPUs"},
		{`{"type":"start","scenario":"ingress","cores":1025}`, "cores: 1025; cores counts flood CPUs"},
		{`{"type":"start","scenario":"ingress","cores":1000000000000000000}`, "cores: 1e+18; cores counts flood CPUs"},
		{`{"type":"start","scenario":"ingress","cores":2.5}`, "bad message"},
		{`{"type":"start","scenario":"ingress","cores":1e400}`, "bad message"},
		{`{"type":"start","scenario":"ingress","cores":"2"}`, "bad message"},
		{`{"type":"start","scenario":"ingress","axis":"cores","x":1e308}`, "cores counts flood CPUs, a whole number from 1 to 1024"},
		{`{"type":"start","scenario":"ingress","axis":"cores","x":-0.5}`, "cores counts flood CPUs"},
		{`{"type":"start","scenario":"ingress","axis":"cores"}`, "axis cores: give x"},
		{`{"type":"start","scenario":"ingress","axis":"cores","x":null}`, "axis cores: give x"},
		{`{"type":"start","scenario":"ingress","x":2}`, "x 2: give the axis"},
		{`{"type":"start","scenario":"ingress","cores":2,"axis":"rx_queues","x":2}`, "give cores, or axis and x, not both"},
		{`{"type":"start","scenario":"ingress","seed":1e19}`, "bad message"},
		{`{"type":"start","scenario":"ingress","duration":"-5ms"}`, "positive duration"},
		{`{"type":"start","scenario":"ingress","duration":"9999999h"}`, "positive duration up to"},
		{`{"type":"sweep","scenario":"ingress","seed":-1e300}`, "bad message"},
	} {
		c.WriteMessage(websocket.TextMessage, []byte(tc.send))
		var e Error
		until(t, c, "error", &e)
		if !strings.Contains(e.Message, tc.want) {
			t.Errorf("%s: error %q, want %q", tc.send, e.Message, tc.want)
		}
	}
}

// TestQueueAndLeave: past MaxRuns a start waits in the queue and is told
// its place; past the queue too it is refused with a clear error; a page
// that leaves the queue frees its place; when the only watcher of a run
// leaves, the run stops and frees its slot for the next in the queue.
func TestQueueAndLeave(t *testing.T) {
	s, ts := newTestServer(t, Options{MaxRuns: 1, MaxQueued: 1})
	a, b, c := dial(t, ts), dial(t, ts), dial(t, ts)
	long := Request{Type: "start", Scenario: "ingress", Variant: "locked", Cores: new(2), Duration: "500ms"}
	a.WriteJSON(long)
	var st Started
	until(t, a, "started", &st)
	b.WriteJSON(long)
	var q Queued
	until(t, b, "queued", &q)
	if q.Position != 1 || q.Going != 1 {
		t.Fatalf("queued %+v, want position 1 behind 1 run", q)
	}
	c.WriteJSON(long)
	var e Error
	until(t, c, "error", &e)
	if !strings.Contains(e.Message, "busy") || !strings.Contains(e.Message, "--max-runs") || !strings.Contains(e.Message, "1 more wait") {
		t.Fatalf("error %q", e.Message)
	}
	// b leaves the queue: c takes its place.
	b.WriteJSON(Request{Type: "stop"})
	var stopped Stopped
	until(t, b, "stopped", &stopped)
	c.WriteJSON(long)
	until(t, c, "queued", &q)
	if q.Position != 1 {
		t.Fatalf("queued %+v after b left, want position 1", q)
	}
	// b watches a's run, and learns what it is before its first sample;
	// a stops watching; the run goes on for b.
	b.WriteJSON(Request{Type: "watch", Run: st.Run})
	var bst Started
	for _, m := range until(t, b, "started", &bst) {
		if m.Type == "sample" {
			t.Fatalf("a sample frame came before started: %s", m.Raw)
		}
	}
	if bst.Run != st.Run || len(bst.CPUs) != 2 {
		t.Fatalf("the watcher was told of %+v, want run %s on 2 CPUs", bst, st.Run)
	}
	var f Frame
	until(t, b, "sample", &f)
	a.WriteJSON(Request{Type: "stop"})
	until(t, a, "stopped", &stopped)
	until(t, b, "sample", &f)
	if s.hub.lookup(st.Run) == nil {
		t.Fatal("the run stopped while b watched it")
	}
	// b leaves: the run ends and c's starts, told first that it does.
	b.Close()
	until(t, c, "queued", &q)
	var cst Started
	until(t, c, "started", &cst)
	if q.Position != 0 || cst.Run == st.Run {
		t.Fatalf("c was told %+v, then started %s", q, cst.Run)
	}
	if s.hub.lookup(st.Run) != nil {
		t.Fatal("the run goes on after its last watcher left")
	}
}

// TestOrigin: a POST or a websocket handshake is served only when its
// Origin is the server's own (the page it served sends that); another
// site's page, a sandboxed frame ("null") or a client that sends none gets
// 403, so a cross-origin simple POST cannot reach the loader.
func TestOrigin(t *testing.T) {
	_, ts := newTestServer(t, Options{})
	own := ts.URL
	other := strings.Replace(ts.URL, "127.0.0.1", "localhost", 1)
	for _, tc := range []struct {
		origin string
		want   int
	}{
		{own, http.StatusOK},
		{strings.ToUpper(own), http.StatusOK},
		{"", http.StatusForbidden},
		{"null", http.StatusForbidden},
		{"http://evil.example", http.StatusForbidden},
		{other, http.StatusForbidden}, // the same machine, another origin
		{own + ".evil.example", http.StatusForbidden},
	} {
		req, _ := http.NewRequest("POST", ts.URL+"/api/check?name=ingress", strings.NewReader("name = 3"))
		req.Header.Set("Content-Type", "text/plain") // a simple request: no preflight
		if tc.origin != "" {
			req.Header.Set("Origin", tc.origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("POST with Origin %q: %d, want %d", tc.origin, resp.StatusCode, tc.want)
		}
		h := http.Header{}
		if tc.origin != "" {
			h.Set("Origin", tc.origin)
		}
		want := tc.want
		if want == http.StatusOK {
			want = http.StatusSwitchingProtocols
		}
		c, resp, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(ts.URL, "http")+"/ws", h)
		if err == nil {
			c.Close()
		}
		if resp == nil || resp.StatusCode != want {
			t.Errorf("websocket with Origin %q: %v %v, want %d", tc.origin, resp, err, want)
		}
	}
}

// TestSweep: the sweep of ingress-u32 gives the run table's figures, the
// series' reference rows and their changes against its base.
func TestSweep(t *testing.T) {
	sd := sweepOf(t, Options{}, "ingress", "ingress-u32")
	sc, _ := scenarios.LoadBuiltin("ingress")
	se := sc.Series[1]
	if len(sd.X) != len(se.Points) || len(sd.Values) != len(se.Variants) || len(sd.Refs) != len(se.Refs) {
		t.Fatalf("sweep %+v", sd)
	}
	res, err := sc.Simulate(scenarios.Point{Series: se, Variant: se.Variants[0], Axis: se.Axis, X: se.Points[1], Seed: sc.Run.Seed})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := scenarios.Metric(res, sd.Metric, sd.Unit)
	if sd.Values[0][1] != want {
		t.Fatalf("%s at %v: %v, want %v", se.Variants[0], se.Points[1], sd.Values[0][1], want)
	}
	// The series' base is locked: its lockless references are changes.
	rows := make([]scenarios.Row, len(sd.Refs))
	for i, r := range sd.Refs {
		rows[i] = r.Row
	}
	if wantC := scenarios.Changes(se, rows); len(sd.Changes) != len(wantC) || len(wantC) == 0 || sd.Changes[0].Change != wantC[0] {
		t.Fatalf("changes %+v, want %+v", sd.Changes, wantC)
	}
}

// sweepOf sweeps the series of a scenario on a server with o.
func sweepOf(t *testing.T, o Options, scenario, series string) SweepDone {
	t.Helper()
	_, ts := newTestServer(t, o)
	c := dial(t, ts)
	c.WriteJSON(Request{Type: "sweep", Scenario: scenario, Series: series})
	var sd SweepDone
	until(t, c, "sweep_done", &sd)
	return sd
}

// TestConverter: the first measured sample counts from the end of warm-up,
// where the model's counters restart, not from the previous sample.
func TestConverter(t *testing.T) {
	v := newConverter(models.RunSpec{Warmup: 10 * sim.Microsecond})
	v.convert(models.Sample{Now: 8 * sim.Microsecond, Packets: []uint64{800}})
	// Reset at 10 µs; 100 packets in the 2 µs since: 50 Mpps.
	got := v.convert(models.Sample{Now: 12 * sim.Microsecond, Packets: []uint64{100}})
	if got.PPS[0] != 50e6 || !got.Measuring {
		t.Fatalf("first measured sample %+v, want 50 Mpps", got)
	}
	got = v.convert(models.Sample{Now: 14 * sim.Microsecond, Packets: []uint64{300}})
	if got.PPS[0] != 100e6 {
		t.Fatalf("next sample %+v, want 100 Mpps", got)
	}
}

// TestThinning: the first samplesPerRun samples are all kept, then every
// second, every fourth... so a run of 1000·samplesPerRun samples sends few.
func TestThinning(t *testing.T) {
	var th thinning
	var kept []int
	for i := range 1000 * samplesPerRun {
		if th.keep() {
			kept = append(kept, i)
		}
	}
	for i := range samplesPerRun {
		if kept[i] != i {
			t.Fatalf("sample %d of the first %d dropped", i, samplesPerRun)
		}
	}
	if kept[samplesPerRun+1]-kept[samplesPerRun] != 2 || kept[2*samplesPerRun+1]-kept[2*samplesPerRun] != 4 {
		t.Fatalf("steps after the first windows: %v", kept[samplesPerRun:samplesPerRun+3])
	}
	// 1000 windows' worth is about 10 doublings: 11 windows kept.
	if len(kept) > 11*samplesPerRun {
		t.Fatalf("kept %d of %d", len(kept), 1000*samplesPerRun)
	}
}

// TestReadLimit: a message over the read limit closes that connection only.
func TestReadLimit(t *testing.T) {
	_, ts := newTestServer(t, Options{})
	c := dial(t, ts)
	var hello Hello
	until(t, c, "hello", &hello)
	c.WriteMessage(websocket.TextMessage, []byte(`{"type":"start","text":"`+strings.Repeat("x", readLimit)+`"}`))
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, _, err := c.ReadMessage(); !websocket.IsCloseError(err, websocket.CloseMessageTooBig) {
		t.Fatalf("after an oversized message: %v, want a close for a message too big", err)
	}
	d := dial(t, ts)
	until(t, d, "hello", &hello)
}

// TestHostAllowList: a request whose Host is not loopback or one the
// operator allowed is refused before it reaches a handler, so that a page
// served under a name rebound to this machine (DNS rebinding) reads nothing.
func TestHostAllowList(t *testing.T) {
	s := New(Options{AllowHosts: []string{"lab.example", "[fd00::1]"}})
	t.Cleanup(s.Close)
	for _, tc := range []struct {
		host, path string
		want       int
	}{
		{"127.0.0.1:8080", "/api/scenarios", http.StatusOK},
		{"127.3.2.1", "/api/scenarios", http.StatusOK},
		{"localhost:1", "/api/scenarios", http.StatusOK},
		{"LOCALHOST", "/", http.StatusOK},
		{"[::1]:8080", "/api/scenarios", http.StatusOK},
		{"lab.example:9999", "/api/scenarios", http.StatusOK},
		{"Lab.Example", "/api/scenario?name=ingress", http.StatusOK},
		{"[fd00::1]:80", "/api/scenarios", http.StatusOK},
		{"evil.example:8080", "/api/scenarios", http.StatusForbidden},
		{"evil.example", "/api/scenario?name=ingress", http.StatusForbidden},
		{"evil.example", "/", http.StatusForbidden},
		{"evil.example", "/ws", http.StatusForbidden},
		{"localhost.evil.example", "/api/scenarios", http.StatusForbidden},
		{"127.0.0.1.evil.example", "/api/scenarios", http.StatusForbidden},
		{"10.0.0.1", "/api/scenarios", http.StatusForbidden},
		{"[fd00::2]", "/api/scenarios", http.StatusForbidden},
		{"", "/api/scenarios", http.StatusForbidden},
	} {
		r := httptest.NewRequest("GET", tc.path, nil)
		r.Host = tc.host
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		if w.Code != tc.want {
			t.Errorf("Host %q, GET %s: %d, want %d", tc.host, tc.path, w.Code, tc.want)
			continue
		}
		if tc.want == http.StatusForbidden && !strings.Contains(w.Body.String(), "--allow-host") {
			t.Errorf("Host %q: refusal %q does not say how to allow it", tc.host, w.Body)
		}
	}
}

// TestTimeouts: a connection that stalls in a request's header or body, or
// sits idle after one, is dropped once its timeout passes, however much
// body it announced.
func TestTimeouts(t *testing.T) {
	const short = 300 * time.Millisecond
	s := New(Options{HeaderTimeout: short, RequestTimeout: 2 * short, IdleTimeout: short})
	ts := httptest.NewUnstartedServer(s)
	ts.Config = s.HTTPServer()
	ts.Start()
	t.Cleanup(func() {
		s.Close()
		ts.Close()
	})
	host := strings.TrimPrefix(ts.URL, "http://")
	post := "POST /api/check HTTP/1.1\r\nHost: " + host + "\r\nOrigin: " + ts.URL + "\r\nContent-Length: "
	for _, tc := range []struct {
		name, send string
		status     string        // the answer's status line before the close; "" for none
		within     time.Duration // closed by then
	}{
		{"header", "GET /api/scenarios HTTP/1.1\r\nHost: " + host + "\r\n", "", 2 * short},
		{"body", post + "1000\r\n\r\nname = ", "HTTP/1.1 408", 3 * short},
		{"idle", "GET /api/scenario?name=ingress HTTP/1.1\r\nHost: " + host + "\r\n\r\n", "HTTP/1.1 200", 2 * short},
		// A body announced over the limit is refused before it is read.
		{"1 TiB announced", post + "1099511627776\r\n\r\n", "HTTP/1.1 413", short / 2},
	} {
		conn, err := net.Dial("tcp", ts.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		begin := time.Now()
		conn.Write([]byte(tc.send))
		conn.SetReadDeadline(begin.Add(10 * time.Second))
		got, err := io.ReadAll(conn)
		took := time.Since(begin)
		conn.Close()
		if err != nil || took > tc.within+time.Second {
			t.Errorf("%s: open for %v (%v), want it closed within %v", tc.name, took, err, tc.within)
		}
		if !strings.HasPrefix(string(got), tc.status) || tc.status == "" && len(got) > 0 {
			t.Errorf("%s: answered %.40q, want %q", tc.name, got, tc.status)
		}
	}
	// A websocket outlives them all: it has deadlines of its own.
	c := dial(t, ts)
	var hello Hello
	until(t, c, "hello", &hello)
	time.Sleep(4 * short)
	c.WriteJSON(Request{Type: "watch", Run: "r9"})
	var e Error
	until(t, c, "error", &e)
}
