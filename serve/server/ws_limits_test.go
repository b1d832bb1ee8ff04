package server_test

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/normgym/normgym/serve/server"
)

// dialAs opens /ws as the forwarded client ip and returns the connection
// (nil if refused) and the answer's status.
func (e *env) dialAs(t *testing.T, ip string, opts *websocket.DialOptions) (*websocket.Conn, int) {
	t.Helper()
	if opts == nil {
		opts = &websocket.DialOptions{}
	}
	opts.HTTPHeader = http.Header{"X-Forwarded-For": {ip}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, resp, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(e.http.URL, "http")+"/ws", opts)
	if err != nil {
		if resp == nil {
			t.Fatal(err)
		}
		return nil, resp.StatusCode
	}
	t.Cleanup(func() { c.CloseNow() })
	return c, http.StatusSwitchingProtocols
}

// TestWebSocketBounds: WebSockets are bounded per forwarded client and in
// all, and each one holds one of its client's requests in flight.
func TestWebSocketBounds(t *testing.T) {
	e := newEnv(t, withSessions(nil), func(o *server.Options) {
		o.ClientHeader = "X-Forwarded-For"
		o.MaxWebSocketsPerClient, o.MaxWebSockets, o.MaxRequestsPerClient = 2, 3, 2
	})
	a1, _ := e.dialAs(t, "203.0.113.1", nil)
	e.dialAs(t, "203.0.113.1", nil)
	if _, st := e.dialAs(t, "203.0.113.1", nil); st != http.StatusTooManyRequests {
		t.Errorf("a third WebSocket of one client: %d, want 429", st)
	}
	// A's two WebSockets are its two requests in flight.
	if st, b, _ := e.do("GET", "/healthz", nil, "X-Forwarded-For", "203.0.113.1"); st != http.StatusTooManyRequests {
		t.Errorf("a request of a client with two WebSockets open: %d %s, want 429", st, b)
	}
	if st, _, _ := e.do("GET", "/healthz", nil, "X-Forwarded-For", "203.0.113.2"); st != http.StatusOK {
		t.Errorf("another client's request: %d", st)
	}
	e.dialAs(t, "203.0.113.2", nil)
	if _, st := e.dialAs(t, "203.0.113.3", nil); st != http.StatusServiceUnavailable {
		t.Errorf("a WebSocket beyond the 3 in all: %d, want 503", st)
	}
	a1.Close(websocket.StatusNormalClosure, "")
	for deadline := time.Now().Add(5 * time.Second); ; {
		c, st := e.dialAs(t, "203.0.113.3", nil)
		if c != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no WebSocket freed when one closed: %d", st)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestWebSocketIdle: a WebSocket that sends nothing is pinged while idle
// and closed after the idle time; one that sends messages stays open.
func TestWebSocketIdle(t *testing.T) {
	e := newEnv(t, withSessions(nil), func(o *server.Options) { o.WSIdle, o.WSPing = 600*time.Millisecond, 100*time.Millisecond })
	var pings atomic.Int64
	idle, _ := e.dialAs(t, "127.0.0.1", &websocket.DialOptions{OnPingReceived: func(context.Context, []byte) bool { pings.Add(1); return true }})
	closed := make(chan time.Time, 1)
	start := time.Now()
	go func() {
		idle.Read(context.Background()) // answers pings until the server closes it
		closed <- time.Now()
	}()
	busy, _ := e.dialAs(t, "127.0.0.1", nil)
	for end := time.Now().Add(time.Second); time.Now().Before(end); {
		wsCall(t, busy, `{"type":"state"}`) // a fresh environment's state (no session yet), but a message
		time.Sleep(100 * time.Millisecond)
	}
	select {
	case at := <-closed:
		if d := at.Sub(start); d < 500*time.Millisecond {
			t.Errorf("the idle WebSocket closed after %v, before its idle time", d)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("an idle WebSocket was not closed")
	}
	if pings.Load() == 0 {
		t.Error("an idle WebSocket was never pinged")
	}
	if typ, _ := wsCall(t, busy, `{"type":"state"}`); typ != "state" {
		t.Errorf("the WebSocket that kept sending: %s, want its state", typ)
	}
}
