package server

import (
	"errors"
	"log"
	"net"
	"net/http"
	"time"

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/serve/limit"
)

// What one client may hold open (issue 18: no client can starve the
// others). The listener bounds TCP connections per address (HTTPServer);
// behind a proxy every connection is the proxy's, so the server also
// bounds, per client as Options.ClientHeader names it, the requests in
// flight and the WebSockets open (Options.MaxRequestsPerClient,
// MaxWebSocketsPerClient), and the WebSockets of all clients together
// (MaxWebSockets): long-lived, they never take every connection.
const (
	// DefaultMaxConns bounds the connections open at once.
	DefaultMaxConns = 1024
	// DefaultPerClient bounds one client's connections, or behind a proxy
	// its requests in flight; an IPv6 /56 holds twice as many.
	DefaultPerClient = 256
	// DefaultMaxWebSockets bounds the WebSockets open at once: half of
	// DefaultMaxConns.
	DefaultMaxWebSockets = DefaultMaxConns / 2
	// DefaultWebSocketsPerClient bounds one client's WebSockets (each
	// plays any number of sessions, one at a time); an IPv6 /56 holds
	// twice as many.
	DefaultWebSocketsPerClient = 64
	// DefaultWSIdle closes a WebSocket that sends no message for this long.
	DefaultWSIdle = 5 * time.Minute
	// DefaultWSPing is how often an idle WebSocket is pinged.
	DefaultWSPing = 30 * time.Second
)

// HTTPOptions configure the listener and the http.Server of HTTPServer.
type HTTPOptions struct {
	// Conns bounds the TCP connections: in all, per address and per IPv6
	// /56 (limit.ListenOptions). Behind a trusted proxy leave PerAddr and
	// Per56 at 0: every connection comes from the proxy.
	Conns limit.ListenOptions
	// The http.Server's timeouts; IdleTimeout closes a keep-alive
	// connection idle that long (when connections run short an idle one
	// is closed sooner, for a new one).
	ReadHeaderTimeout, ReadTimeout, WriteTimeout, IdleTimeout time.Duration
	// MaxHeaderBytes bounds a request's headers (default 16 KiB).
	MaxHeaderBytes int
	// ErrorLog receives the http.Server's own errors (nil: log's default).
	ErrorLog *log.Logger
}

// HTTPServer wraps raw with o's connection bounds and returns it with the
// http.Server that serves s on it (start it with hs.Serve(ln)). The
// server tells the listener which connections wait idle between requests
// (its ConnState hook), so that a new connection may take the place of an
// idle one: idle keep-alive connections, however many, keep nobody out.
func (s *Server) HTTPServer(raw net.Listener, o HTTPOptions) (*http.Server, *limit.Listener) {
	ln := limit.Listen(raw, o.Conns)
	if o.MaxHeaderBytes <= 0 {
		o.MaxHeaderBytes = 16 << 10
	}
	hs := &http.Server{Handler: s, ReadHeaderTimeout: o.ReadHeaderTimeout, ReadTimeout: o.ReadTimeout,
		WriteTimeout: o.WriteTimeout, IdleTimeout: o.IdleTimeout, MaxHeaderBytes: o.MaxHeaderBytes, ErrorLog: o.ErrorLog,
		ConnState: func(c net.Conn, st http.ConnState) {
			switch st {
			case http.StateIdle:
				ln.SetIdle(c, true)
			case http.StateActive, http.StateHijacked:
				ln.SetIdle(c, false)
			}
		}}
	return hs, ln
}

// gates are the per-client bounds of what is held open.
type gates struct {
	requests, sockets *limit.Gate
}

func newGates(o Options) gates {
	return gates{requests: limit.NewGate(o.MaxRequestsPerClient, 2*o.MaxRequestsPerClient, 0),
		sockets: limit.NewGate(o.MaxWebSocketsPerClient, 2*o.MaxWebSocketsPerClient, o.MaxWebSockets)}
}

// gateError is a Gate's refusal as an answer: what kind of thing (and
// how many a client may hold) for the message.
func gateError(err error, what string, per int) error {
	if errors.Is(err, limit.ErrClientFull) {
		e := errf(api.CodeRateLimited, "too many %s at once from your address (at most %d): wait for one to end", what, per)
		e.RetryAfter = time.Second
		return e
	}
	e := errf(api.CodeBusy, "the server has as many %s open as it takes: try again in a moment", what)
	e.RetryAfter = 5 * time.Second
	return e
}
