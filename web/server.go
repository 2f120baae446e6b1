package web

import (
	"cmp"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"path"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"contend/band"
	"contend/scenarios"
	"contend/sim"
)

//go:embed static
var embedded embed.FS

// Options is everything the server depends on; the zero value serves the
// built-in scenarios and the embedded page with the default limits.
type Options struct {
	// Dir holds more scenarios (*.toml) and their includes; nil for none.
	// serve passes an os.Root's, which refuses a symlink out of the folder.
	Dir fs.FS
	// Assets serves the page; nil takes the embedded copy (serve --dev
	// passes the web/static folder on disk).
	Assets fs.FS
	// MaxRuns bounds the runs going at once (a sweep counts as one);
	// MaxQueued the runs that wait for one of them to end (0 takes 256).
	MaxRuns, MaxQueued int
	// MaxFPS bounds the sample frames a page gets per second.
	MaxFPS float64
	// Logf reports what a server operator needs to know; nil is silent.
	Logf func(format string, args ...any)
	// HeaderTimeout, RequestTimeout and IdleTimeout bound how long a
	// connection may take to send a request's header, the whole request
	// (body included), and how long it may sit idle between requests. Zero
	// takes 10 s, 30 s and 2 min.
	HeaderTimeout, RequestTimeout, IdleTimeout time.Duration
	// AllowHosts are the names, besides the loopback ones, that a request's
	// Host may give (with any port): serve passes the --addr host and each
	// --allow-host.
	AllowHosts []string
	// Bands are the error bands each prediction is shown with; nil takes
	// the ones learned from the published cases (band.Committed()).
	Bands *band.File
}

// Server is the HTTP and websocket server of contend serve.
type Server struct {
	opts   Options
	hosts  map[string]bool // AllowHosts, as hostname gives them
	mux    *http.ServeMux
	hub    *hub
	limits limits
	up     websocket.Upgrader

	mu     sync.Mutex
	conns  map[*websocket.Conn]bool
	closed bool
}

const (
	readLimit = 1 << 20 // a request, editor text included
	writeWait = 5 * time.Second
	pongWait  = 60 * time.Second
	// maxSampleAge leaves half a second for the write and the trip, so that
	// no sample is over a second old when the page gets it.
	maxSampleAge = 500 * time.Millisecond
	// maxQueue bounds the samples held for one page: a run's samples and
	// some, so a page that keeps up never loses one.
	maxQueue = 2 * samplesPerRun
)

// New returns a server for opts.
func New(opts Options) *Server {
	if opts.Assets == nil {
		sub, _ := fs.Sub(embedded, "static")
		opts.Assets = sub
	}
	if opts.MaxRuns <= 0 {
		opts.MaxRuns = 4
	}
	if opts.MaxQueued <= 0 {
		opts.MaxQueued = 256
	}
	if opts.MaxFPS <= 0 {
		opts.MaxFPS = 30
	}
	opts.HeaderTimeout = cmp.Or(opts.HeaderTimeout, 10*time.Second)
	opts.RequestTimeout = cmp.Or(opts.RequestTimeout, 30*time.Second)
	opts.IdleTimeout = cmp.Or(opts.IdleTimeout, 2*time.Minute)
	if opts.Bands == nil {
		opts.Bands = band.Committed()
	}
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	s := &Server{opts: opts, mux: http.NewServeMux(), hub: newHub(opts.MaxRuns, opts.MaxQueued, time.Now),
		conns: map[*websocket.Conn]bool{}, hosts: map[string]bool{},
		limits: limits{frame: time.Duration(float64(time.Second) / opts.MaxFPS), queue: maxQueue,
			maxAge: maxSampleAge, ping: pongWait * 9 / 10, ctrlCap: 64},
		// guard has checked the Origin; the Upgrader's own check (a nil
		// CheckOrigin) is the same one.
		up: websocket.Upgrader{ReadBufferSize: 4096, WriteBufferSize: 4096}}
	for _, h := range opts.AllowHosts {
		s.hosts[hostname(h)] = true
	}
	s.mux.Handle("GET /", http.FileServerFS(opts.Assets))
	s.mux.HandleFunc("GET /api/scenarios", s.scenarios)
	s.mux.HandleFunc("GET /api/scenario", s.scenarioText)
	s.mux.HandleFunc("POST /api/check", s.check)
	s.mux.HandleFunc("GET /ws", s.ws)
	return s
}

// HTTPServer is an http.Server for s with its timeouts: a client that
// announces a body and sends none, or stalls in its header, is dropped.
// Websockets clear these when they take over the connection.
func (s *Server) HTTPServer() *http.Server {
	return &http.Server{Handler: s, ReadHeaderTimeout: s.opts.HeaderTimeout,
		ReadTimeout: s.opts.RequestTimeout, IdleTimeout: s.opts.IdleTimeout}
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := s.guard(r); err != nil {
		writeJSON(w, http.StatusForbidden, errorMsg("", err))
		return
	}
	s.mux.ServeHTTP(w, r)
}

// Close stops every run and closes every websocket (an http.Server's
// Shutdown does not wait for hijacked connections).
func (s *Server) Close() {
	s.mu.Lock()
	s.closed = true
	for c := range s.conns {
		c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseGoingAway, "server shutting down"), time.Now().Add(time.Second))
		c.Close()
	}
	s.mu.Unlock()
	s.hub.stopAll()
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// names lists the scenarios: built-ins by name, then Dir's files by file
// name (with .toml, so the two never clash).
func (s *Server) names() []string {
	out := scenarios.BuiltinNames()
	if s.opts.Dir != nil {
		files, _ := fs.Glob(s.opts.Dir, "*.toml")
		sort.Strings(files)
		for _, f := range files {
			if !strings.HasPrefix(f, "common") {
				out = append(out, f)
			}
		}
	}
	return out
}

// source returns where a scenario's file and includes live.
func (s *Server) source(name string) (fs.FS, string, error) {
	if !strings.HasSuffix(name, ".toml") {
		for _, n := range scenarios.BuiltinNames() {
			if n == name {
				return scenarios.Builtin(), name + ".toml", nil
			}
		}
	} else if s.opts.Dir != nil && path.Base(name) == name {
		_, err := fs.Stat(s.opts.Dir, name)
		if err == nil {
			return s.opts.Dir, name, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, "", fmt.Errorf("scenario %s: %v; the scenario folder serves only what lies inside it, so if it is a symlink to a file outside, copy the file in instead", name, err)
		}
	}
	return nil, "", fmt.Errorf("no scenario %q: use one of %s", name, strings.Join(s.names(), ", "))
}

// load reads a scenario by name, or text in its place when given.
func (s *Server) load(name, text string) (*scenarios.Scenario, error) {
	fsys, file, err := s.source(name)
	if err != nil {
		if text == "" {
			return nil, err
		}
		fsys, file = scenarios.Builtin(), "edited.toml"
	}
	if text != "" {
		// Parse bounds the nesting before decoding: deep inline tables
		// cost the decoder memory quadratically in their depth.
		return scenarios.Parse(fsys, file, []byte(text))
	}
	return scenarios.Load(fsys, file)
}

func (s *Server) scenarios(w http.ResponseWriter, r *http.Request) {
	out := []ScenarioInfo{}
	for _, name := range s.names() {
		sc, err := s.load(name, "")
		if err != nil {
			s.opts.Logf("scenario %s: %v", name, err)
			continue
		}
		out = append(out, info(name, sc))
	}
	writeJSON(w, http.StatusOK, out)
}

func info(name string, sc *scenarios.Scenario) ScenarioInfo {
	src := "builtin"
	if strings.HasSuffix(name, ".toml") {
		src = "dir"
	}
	in := ScenarioInfo{Name: name, Description: sc.Description, Source: src, Workload: sc.Workload.Kind.String(),
		Variants: sc.VariantNames(), Series: []SeriesInfo{}, Axes: []AxisInfo{},
		DurationNs: sc.Run.Duration.Time(1).Nanoseconds(), Seed: sc.Run.Seed}
	for _, se := range sc.Series {
		in.Series = append(in.Series, SeriesInfo{Name: se.Name, Description: se.Description, Profile: se.Profile,
			Variants: se.Variants, Axis: se.Axis, AxisCounts: countingAxis(sc, se.Axis), Points: nonNil(se.Points)})
	}
	for _, a := range sc.Sweep {
		in.Axes = append(in.Axes, AxisInfo{Name: a.Name, Values: nonNil(a.Values)})
	}
	return in
}

// nonNil keeps an empty list an empty JSON array, not null.
func nonNil[T any](v []T) []T {
	if v == nil {
		return []T{}
	}
	return v
}

// scenarioText serves a scenario's file for the editor.
func (s *Server) scenarioText(w http.ResponseWriter, r *http.Request) {
	fsys, file, err := s.source(r.URL.Query().Get("name"))
	if err == nil {
		var b []byte
		if b, err = fs.ReadFile(fsys, file); err == nil {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.Write(b)
			return
		}
	}
	writeJSON(w, http.StatusNotFound, errorMsg("", err))
}

// check loads TOML text the way the CLI would and reports where it is wrong.
func (s *Server) check(w http.ResponseWriter, r *http.Request) {
	tooBig := errorMsg("", fmt.Errorf("the text is over %d bytes; a scenario holds at most that", readLimit))
	if r.ContentLength > readLimit {
		writeJSON(w, http.StatusRequestEntityTooLarge, tooBig)
		return
	}
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, readLimit))
	var maxErr *http.MaxBytesError
	switch {
	case errors.As(err, &maxErr):
		writeJSON(w, http.StatusRequestEntityTooLarge, tooBig)
		return
	case err != nil:
		writeJSON(w, http.StatusRequestTimeout, errorMsg("", fmt.Errorf("the text did not arrive in time (%v): %v", s.opts.RequestTimeout, err)))
		return
	}
	res := CheckResult{OK: true, Errors: []Error{}}
	if _, err := s.load(r.URL.Query().Get("name"), string(b)); err != nil {
		res.OK = false
		res.Errors = append(res.Errors, errorMsg("", err))
	}
	writeJSON(w, http.StatusOK, res)
}

// wsConn adapts a websocket to frameWriter with a deadline on every write.
type wsConn struct{ c *websocket.Conn }

func (w wsConn) WriteJSON(v any) error {
	w.c.SetWriteDeadline(time.Now().Add(writeWait))
	return w.c.WriteJSON(v)
}

func (w wsConn) Ping() error {
	return w.c.WriteControl(websocket.PingMessage, nil, time.Now().Add(writeWait))
}

func (s *Server) ws(w http.ResponseWriter, r *http.Request) {
	conn, err := s.up.Upgrade(w, r, nil)
	if err != nil {
		return // Upgrade has answered
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		conn.Close()
		return
	}
	s.conns[conn] = true
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.conns, conn)
		s.mu.Unlock()
		conn.Close()
	}()
	c := newClient(s.limits)
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	c.send(Hello{Type: "hello", Version: Version, MaxFPS: s.opts.MaxFPS})
	go func() {
		defer cancel()
		c.pump(ctx, wsConn{conn})
		conn.Close() // unblocks the reader
	}()
	conn.SetReadLimit(readLimit)
	conn.SetReadDeadline(time.Now().Add(pongWait))
	conn.SetPongHandler(func(string) error { return conn.SetReadDeadline(time.Now().Add(pongWait)) })
	for {
		_, msg, err := conn.ReadMessage()
		if err != nil {
			break
		}
		conn.SetReadDeadline(time.Now().Add(pongWait))
		s.handle(c, msg)
	}
	if r := c.detach(); r != nil {
		r.leave(c)
	}
}

// handle answers one request; a bad one gets an error frame.
func (s *Server) handle(c *client, msg []byte) {
	var req Request
	if err := json.Unmarshal(msg, &req); err != nil {
		c.send(Error{Type: "error", Message: fmt.Sprintf("bad message: %v; send a JSON object with a type (start, sweep, watch, stop or ack)", err)})
		return
	}
	var err error
	switch req.Type {
	case "start":
		err = s.start(c, &req)
	case "sweep":
		err = s.sweep(c, &req)
	case "watch":
		r := s.hub.lookup(req.Run)
		if r == nil {
			err = fmt.Errorf("watch: no run %q going", req.Run)
			break
		}
		r.join(c)
	case "ack":
		c.ack()
	case "stop":
		if r := c.detach(); r != nil {
			r.leave(c)
			c.send(Stopped{Type: "stopped", Run: r.id})
		}
	default:
		err = fmt.Errorf("unknown message type %q: use start, sweep, watch, stop or ack", req.Type)
	}
	if err != nil {
		c.send(errorMsg("", err))
	}
}

// point resolves a start request into a job.
func (s *Server) point(req *Request) (*job, error) {
	sc, err := s.load(req.Scenario, req.Text)
	if err != nil {
		return nil, err
	}
	j := &job{s: sc, bands: s.opts.Bands}
	if req.Duration != "" {
		d, err := time.ParseDuration(strings.ReplaceAll(req.Duration, "µ", "u"))
		if err != nil || d <= 0 || sim.Time(d.Nanoseconds()) > scenarios.MaxRunTime/sim.Nanosecond {
			return nil, fmt.Errorf("duration %q: give a positive duration up to %v, such as 2ms or 500us", req.Duration, scenarios.MaxRunTime)
		}
		if sc.Workload.Kind != scenarios.WorkloadFlood {
			return nil, fmt.Errorf("duration: a %s workload runs until its batch ends; leave duration empty", sc.Workload.Kind)
		}
		j.duration = sim.Time(d.Nanoseconds()) * sim.Nanosecond
	}
	se, err := series(sc, req.Series)
	if err != nil {
		return nil, err
	}
	axis, x, err := req.axisX()
	if err != nil {
		return nil, err
	}
	seed := req.Seed
	if seed == 0 {
		seed = sc.Run.Seed
	}
	variant := req.Variant
	if variant == "" && len(sc.Variants) > 0 {
		variant = sc.Variants[0].Name
	}
	j.pt = scenarios.Point{Series: se, Variant: variant, Axis: axis, X: x, Seed: seed}
	if _, _, err := j.build(0); err != nil {
		return nil, err
	}
	if j.est, err = j.probe(); err != nil {
		return nil, err
	}
	return j, nil
}

// axisX is the axis and value a start asks for ("" for the scenario's own).
// The scenario bounds the value when it builds the point.
func (req *Request) axisX() (string, float64, error) {
	switch {
	case req.Cores != nil && (req.Axis != "" || req.X != nil):
		return "", 0, fmt.Errorf("cores %d: give cores, or axis and x, not both", *req.Cores)
	case req.Cores != nil:
		return "cores", float64(*req.Cores), nil
	case req.Axis != "" && req.X == nil:
		return "", 0, fmt.Errorf("axis %s: give x, its value", req.Axis)
	case req.Axis == "" && req.X != nil:
		return "", 0, fmt.Errorf("x %v: give the axis it is a value of, or cores", *req.X)
	case req.X != nil:
		return req.Axis, *req.X, nil
	}
	return "", 0, nil
}

// series picks the named series, or the first; nil for a scenario without.
func series(sc *scenarios.Scenario, name string) (*scenarios.Series, error) {
	for _, se := range sc.Series {
		if se.Name == name || name == "" {
			return se, nil
		}
	}
	if name == "" {
		return nil, nil
	}
	return nil, fmt.Errorf("no series %q in %s", name, sc.Name)
}

func (s *Server) start(c *client, req *Request) error {
	j, err := s.point(req)
	if err != nil {
		return err
	}
	r, err := s.hub.begin(c)
	if err != nil {
		return err
	}
	go s.hub.simulate(r, j)
	return nil
}
