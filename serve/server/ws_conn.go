//go:build !js

package server

import (
	"context"
	"encoding/json"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/normgym/normgym/serve/limit"
)

// envWS handles GET /ws: OpenEnv's WebSocket session. The connection plays
// one session at a time: reset opens one (or resumes one with session_id),
// step acts in it, state describes it, close ends the connection (the
// session lives on until it expires). Every message draws from the
// client's rate limit of its HTTP twin's class (wsClass); the WebSockets
// a client holds, and all clients together, are bounded
// (Options.MaxWebSocketsPerClient, MaxWebSockets).
func (s *Server) envWS(w http.ResponseWriter, r *http.Request) error {
	if err := s.wsUpgrade(w, r); err != nil {
		return err
	}
	leave, err := s.gates.sockets.Enter(s.client(r))
	if err != nil {
		return gateError(err, "WebSockets", s.opts.MaxWebSocketsPerClient)
	}
	defer leave()
	// The server's read and write timeouts are for requests: lift them
	// from the connection the WebSocket takes over.
	rc := http.NewResponseController(w)
	rc.SetReadDeadline(time.Time{})
	rc.SetWriteDeadline(time.Time{})
	pongs := limit.NewBuckets(map[string]limit.Rate{"ping": {Every: time.Second, Burst: 5}}, nil)
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{
		// A client's pings are answered at most once a second (and a
		// burst of 5): a ping flood costs the server nothing.
		OnPingReceived: func(ctx context.Context, _ []byte) bool { ok, _ := pongs.Allow(ctx, "ping", ""); return ok },
	})
	if err != nil {
		return nil // Accept has answered
	}
	defer c.CloseNow()
	c.SetReadLimit(wsMaxMessage)
	s.wsServe(r, c)
	return nil
}

// wsServe answers c's messages until it closes, sends close, or sends no
// message for Options.WSIdle. While it is idle the server pings it every
// Options.WSPing (so that proxies keep it open; pongs are not activity).
// After a message refused by a rate limit, the next is read when the
// limit allows it (at most wsMaxPause later): a flood is slowed, not just
// answered.
func (s *Server) wsServe(r *http.Request, c *websocket.Conn) {
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	var last atomic.Int64 // when the last message came (UnixNano)
	last.Store(time.Now().UnixNano())
	go s.wsPing(ctx, c, &last)
	var conn wsSession
	for {
		rctx, rcancel := context.WithTimeout(ctx, s.opts.WSIdle)
		typ, msg, err := c.Read(rctx)
		rcancel()
		if err != nil {
			return // closed, or idle too long (Read closed it)
		}
		last.Store(time.Now().UnixNano())
		reply, done, pause := s.wsHandle(r, typ == websocket.MessageText, msg, &conn)
		if done {
			// close: as OpenEnv's server, end the connection without a reply.
			c.Close(websocket.StatusNormalClosure, "")
			return
		}
		b, err := json.Marshal(reply)
		if err != nil {
			return
		}
		wctx, wcancel := context.WithTimeout(ctx, 30*time.Second)
		err = c.Write(wctx, websocket.MessageText, b)
		wcancel()
		if err != nil {
			return
		}
		if pause > 0 {
			select {
			case <-time.After(min(pause, wsMaxPause)):
			case <-ctx.Done():
				return
			}
		}
	}
}

// wsPing pings c every Options.WSPing while no message came for as long,
// until ctx ends.
func (s *Server) wsPing(ctx context.Context, c *websocket.Conn, last *atomic.Int64) {
	t := time.NewTicker(s.opts.WSPing)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			if now.Sub(time.Unix(0, last.Load())) < s.opts.WSPing {
				continue
			}
			pctx, cancel := context.WithTimeout(ctx, s.opts.WSPing)
			c.Ping(pctx) // a pong is not awaited: a client busy elsewhere reads it later
			cancel()
		}
	}
}
