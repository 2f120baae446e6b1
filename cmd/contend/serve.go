package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strings"
	"time"

	"contend/web"
)

// maxServeRuns bounds --max-runs: more runs than that at once only share
// the CPUs thinner.
const maxServeRuns = 256

func cmdServe(args []string, stdout, stderr io.Writer) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return serveUntil(ctx, args, stdout, stderr)
}

// serveUntil serves until ctx ends (SIGINT for the command).
func serveUntil(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("contend serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "listen on `HOST:PORT` (loopback by default: the page runs simulations for whoever reaches it)")
	dir := fs.String("dir", "", "also offer the scenarios (*.toml) in `DIR` (files, includes and symlinks inside it only)")
	open := fs.Bool("open", false, "open the page in a browser")
	dev := fs.Bool("dev", false, "serve the page from web/static on disk (edit and reload)")
	maxRuns := fs.Int("max-runs", 4, "runs going at once, at most")
	var hosts []string
	fs.Func("allow-host", "also answer requests for `HOST` (any port; repeat for more): pages reach the server only under loopback names, the --addr host and these", func(h string) error {
		if _, _, err := net.SplitHostPort(h); err == nil || h == "" || strings.ContainsAny(h, "/ ") {
			return fmt.Errorf("give a host name or address without a port, such as lab.example or 192.0.2.7 (any port is allowed)")
		}
		hosts = append(hosts, h)
		return nil
	})
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return flag.ErrHelp
		}
		return errUsage
	}
	if *maxRuns < 1 || *maxRuns > maxServeRuns {
		return fmt.Errorf("--max-runs %d: allow from 1 to %d runs at once (each simulates on its own goroutine)", *maxRuns, maxServeRuns)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("serve takes no scenario names (got %s); pick them in the page, or give --dir", fs.Arg(0))
	}
	if host, _, err := net.SplitHostPort(*addr); err == nil && host != "" {
		hosts = append(hosts, host)
	}
	opts := web.Options{MaxRuns: *maxRuns, AllowHosts: hosts, Logf: func(f string, a ...any) { fmt.Fprintf(stderr, "contend serve: "+f+"\n", a...) }}
	if *dir != "" {
		// A Root refuses any path, symlinks followed, that leads out of
		// the folder: a page gets no file the operator did not put in it.
		root, err := os.OpenRoot(*dir)
		if err != nil {
			return fmt.Errorf("--dir %s: not a folder; give the folder that holds your .toml scenarios", *dir)
		}
		defer root.Close()
		opts.Dir = root.FS()
	}
	if *dev {
		if _, err := os.Stat("web/static/index.html"); err != nil {
			return fmt.Errorf("--dev serves web/static from the current folder; run it from the repository's root")
		}
		opts.Assets = os.DirFS("web/static")
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("--addr %s: %w", *addr, err)
	}
	if host, _, _ := net.SplitHostPort(*addr); !web.IsLoopback(host) {
		fmt.Fprintf(stderr, "contend serve: warning: listening on %s, not loopback: anyone who reaches it under the --addr host or an --allow-host name can run simulations on this machine\n", ln.Addr())
	}
	url := "http://" + ln.Addr().String() + "/"
	fmt.Fprintf(stdout, "contend serve: %s\n", url)
	if *open {
		openBrowser(url, stderr)
	}
	return serve(ctx, ln, web.New(opts))
}

// serve runs until ctx ends, then stops the runs and closes the connections.
func serve(ctx context.Context, ln net.Listener, s *web.Server) error {
	srv := s.HTTPServer()
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	s.Close()
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return err
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func openBrowser(url string, stderr io.Writer) {
	cmd := "xdg-open"
	switch runtime.GOOS {
	case "darwin":
		cmd = "open"
	case "windows":
		cmd = "explorer"
	}
	if err := exec.Command(cmd, url).Start(); err != nil {
		fmt.Fprintf(stderr, "contend serve: --open: %v; open %s yourself\n", err, url)
	}
}
