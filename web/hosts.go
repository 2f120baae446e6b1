package web

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/gorilla/websocket"
)

// guard refuses a request that another site's page could have made. A Host
// that is not one of the server's names is a page served under a name that
// now resolves to this machine (DNS rebinding): the browser deems it that
// page's own origin, so only the Host tells it apart. A request that changes
// state (a POST, a websocket) must carry its page's Origin, and that must be
// this server: a browser sends one with each, so its absence is no page of
// ours, and a simple cross-origin POST would otherwise be served unasked.
func (s *Server) guard(r *http.Request) error {
	if h := hostname(r.Host); !s.hosts[h] && !IsLoopback(h) {
		return fmt.Errorf("host %q is not one this server answers to (loopback names, the --addr host and serve --allow-host): to reach it under that name, start serve with --allow-host %s", r.Host, h)
	}
	if (r.Method == http.MethodGet || r.Method == http.MethodHead) && !websocket.IsWebSocketUpgrade(r) {
		return nil
	}
	origin := r.Header.Get("Origin")
	if u, err := url.Parse(origin); origin == "" || err != nil || !strings.EqualFold(u.Host, r.Host) {
		return fmt.Errorf("origin %q is not this server's page (http://%s): a POST or websocket is taken only from the page the server serves; open that page, or send Origin: http://%s", origin, r.Host, r.Host)
	}
	return nil
}

// hostname is a Host header's (or a host name's) name without port or
// brackets, lower case.
func hostname(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
}

// IsLoopback says whether host names this machine to itself alone:
// localhost, 127.0.0.0/8 or ::1.
func IsLoopback(host string) bool {
	ip := net.ParseIP(host)
	return host == "localhost" || ip != nil && ip.IsLoopback()
}
