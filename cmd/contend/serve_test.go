package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"contend/scenarios"
	"contend/web"
)

// lockedBuffer is an io.Writer the test reads while the server writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startServe runs serve with args until the returned cancel, and waits for
// the address it prints.
func startServe(t *testing.T, args ...string) (url string, stderr *lockedBuffer, cancel func() error) {
	t.Helper()
	ctx, stop := context.WithCancel(context.Background())
	var stdout lockedBuffer
	stderr = &lockedBuffer{}
	done := make(chan error, 1)
	go func() { done <- serveUntil(ctx, args, &stdout, stderr) }()
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(stdout.String(), "http://"); time.Sleep(10 * time.Millisecond) {
		select {
		case err := <-done:
			t.Fatalf("serve ended: %v\n%s", err, stderr)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("serve printed no address")
		}
	}
	url = strings.TrimSpace(strings.TrimPrefix(stdout.String(), "contend serve: "))
	return url, stderr, func() error {
		stop()
		select {
		case err := <-done:
			return err
		case <-time.After(10 * time.Second):
			return errors.New("serve did not return within 10 s of the interrupt")
		}
	}
}

// TestServeShutdown: on interrupt the server cancels its runs, tells every
// page it is going away, and returns without error.
func TestServeShutdown(t *testing.T) {
	url, stderr, stop := startServe(t, "--addr", "127.0.0.1:0")
	if strings.Contains(stderr.String(), "warning") {
		t.Errorf("loopback address warned: %s", stderr)
	}
	c, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(url, "http")+"ws", http.Header{"Origin": {strings.TrimSuffix(url, "/")}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.WriteJSON(web.Request{Type: "start", Scenario: "ingress", Variant: "locked", Cores: new(2), Duration: "500ms"})
	for started := false; !started; {
		var m struct{ Type string }
		if err := c.ReadJSON(&m); err != nil {
			t.Fatal(err)
		}
		started = m.Type == "started"
	}
	if err := stop(); err != nil {
		t.Fatalf("serve returned %v", err)
	}
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	for {
		_, _, err := c.ReadMessage()
		if websocket.IsCloseError(err, websocket.CloseGoingAway) {
			return
		}
		if err != nil {
			t.Fatalf("the page saw %v, want a going-away close", err)
		}
	}
}

func TestServeWarnsOffLoopback(t *testing.T) {
	_, stderr, stop := startServe(t, "--addr", "0.0.0.0:0")
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr.String(), "warning: listening on") {
		t.Errorf("no warning for a non-loopback address: %q", stderr)
	}
}

// TestServeHosts: serve answers loopback names, the --addr host and the
// --allow-host names, and refuses any other Host.
func TestServeHosts(t *testing.T) {
	url, _, stop := startServe(t, "--addr", "0.0.0.0:0", "--allow-host", "lab.example", "--allow-host", "fd00::7")
	defer stop()
	port := url[strings.LastIndex(url, ":")+1 : len(url)-1]
	loop := "http://127.0.0.1:" + port + "/api/scenarios"
	for _, tc := range []struct {
		host string
		want int
	}{
		{"localhost:" + port, http.StatusOK},
		{"0.0.0.0:" + port, http.StatusOK},
		{"lab.example:" + port, http.StatusOK},
		{"[fd00::7]:" + port, http.StatusOK},
		{"evil.example:" + port, http.StatusForbidden},
		{"lab.example.evil.example", http.StatusForbidden},
	} {
		req, _ := http.NewRequest("GET", loop, nil)
		req.Host = tc.host
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("Host %s: %d, want %d", tc.host, resp.StatusCode, tc.want)
		}
	}
}

// TestServeDirSymlinks: --dir serves its own files and links between them,
// never a file a symlink reaches outside it, as a scenario or an include.
func TestServeDirSymlinks(t *testing.T) {
	root := t.TempDir()
	dir, out := filepath.Join(root, "dir"), filepath.Join(root, "outside")
	for _, d := range []string{dir, out} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	builtin := func(name string) []byte {
		b, err := fs.ReadFile(scenarios.Builtin(), name)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, f := range []struct {
		path string
		data []byte
	}{
		{filepath.Join(dir, "mine.toml"), builtin("ingress.toml")},
		{filepath.Join(dir, "flower.toml"), builtin("flower-insert.toml")},
		{filepath.Join(out, "secret.toml"), builtin("ingress.toml")},
		{filepath.Join(out, "common-tc.toml"), builtin("common-tc.toml")},
	} {
		if err := os.WriteFile(f.path, f.data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"alias.toml":     "mine.toml",
		"link.toml":      filepath.Join("..", "outside", "secret.toml"),
		"abs.toml":       filepath.Join(out, "secret.toml"),
		"common-tc.toml": filepath.Join("..", "outside", "common-tc.toml"),
	} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	url, stderr, stop := startServe(t, "--addr", "127.0.0.1:0", "--dir", dir)
	defer stop()
	resp, err := http.Get(url + "api/scenarios")
	if err != nil {
		t.Fatal(err)
	}
	var list []web.ScenarioInfo
	json.NewDecoder(resp.Body).Decode(&list)
	resp.Body.Close()
	var dirNames []string
	for _, sc := range list {
		if sc.Source == "dir" {
			dirNames = append(dirNames, sc.Name)
		}
	}
	if got := strings.Join(dirNames, " "); got != "alias.toml mine.toml" {
		t.Errorf("--dir offers %q, want alias.toml mine.toml", got)
	}
	for _, name := range []string{"link.toml", "abs.toml", "flower.toml"} {
		if !strings.Contains(stderr.String(), name) {
			t.Errorf("no note of %s in %q", name, stderr)
		}
		resp, err := http.Get(url + "api/scenario?name=" + name)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if name != "flower.toml" && (resp.StatusCode != http.StatusNotFound || !strings.Contains(string(b), "outside")) {
			t.Errorf("GET %s: %d %s, want 404 saying it lies outside the folder", name, resp.StatusCode, b)
		}
	}
}

func TestServeBadFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"ingress"}, "serve takes no scenario names"},
		{[]string{"--dir", "/no/such/folder"}, "--dir /no/such/folder: not a folder"},
		{[]string{"--addr", "nonsense"}, "--addr nonsense"},
		{[]string{"--max-runs", "0"}, "--max-runs 0"},
		{[]string{"--max-runs", "100000"}, "--max-runs 100000: allow from 1 to 256"},
		{[]string{"--allow-host", "lab.example:8080"}, "-allow-host: give a host name or address without a port"},
		{[]string{"--allow-host", ""}, "-allow-host: give a host name"},
		{[]string{"--allow-host", "http://lab.example"}, "-allow-host: give a host name"},
	} {
		var stderr bytes.Buffer
		err := serveUntil(context.Background(), tc.args, &bytes.Buffer{}, &stderr)
		if err == nil || !strings.Contains(err.Error()+stderr.String(), tc.want) {
			t.Errorf("%v: %v (%s), want %q", tc.args, err, stderr.String(), tc.want)
		}
	}
}
