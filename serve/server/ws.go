//go:build !js

package server

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/serve/limit"
)

// wsMaxMessage bounds a WebSocket message (a reset, an action).
const wsMaxMessage = 16 << 10

// wsMaxPause is the longest a WebSocket's next message waits after one
// refused by a rate limit (see wsServe).
const wsMaxPause = time.Second

// wsMessage is OpenEnv's WSResetMessage, WSStepMessage, WSStateMessage and
// WSCloseMessage: a type and its data.
type wsMessage struct {
	Type string          `json:"type"`
	Data json.RawMessage `json:"data,omitempty"`
}

// wsReply is OpenEnv's WSObservationResponse, WSStateResponse and
// WSErrorResponse.
type wsReply struct {
	Type string `json:"type"`
	Data any    `json:"data"`
}

// envWS handles GET /ws: OpenEnv's WebSocket session. The connection plays
// one session at a time: reset opens one (or resumes one with episode_id),
// step acts in it, state describes it, close ends the connection (the
// session lives on until it expires). Every message draws from the
// client's rate limit of its HTTP twin's class (wsClass); the WebSockets
// a client holds, and all clients together, are bounded
// (Options.MaxWebSocketsPerClient, MaxWebSockets).
func (s *Server) envWS(w http.ResponseWriter, r *http.Request) error {
	if s.sessions == nil {
		return errf(api.CodeUnavailable, "this server steps no sessions")
	}
	if !headerHas(r.Header, "Connection", "upgrade") || !headerHas(r.Header, "Upgrade", "websocket") {
		w.Header().Set("Upgrade", "websocket")
		return errf(api.CodeUpgrade, "GET /ws is OpenEnv's WebSocket session: open it with a WebSocket client (or use POST /reset and /step)")
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
	token := ""
	for {
		rctx, rcancel := context.WithTimeout(ctx, s.opts.WSIdle)
		typ, msg, err := c.Read(rctx)
		rcancel()
		if err != nil {
			return // closed, or idle too long (Read closed it)
		}
		last.Store(time.Now().UnixNano())
		reply, done, pause := s.wsHandle(r, typ, msg, &token)
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

// headerHas reports whether a comma-separated header holds token (any case).
func headerHas(h http.Header, name, token string) bool {
	for _, v := range h.Values(name) {
		for _, t := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(t), token) {
				return true
			}
		}
	}
	return false
}

// wsClass is the rate-limit class of a WebSocket message of type typ: its
// HTTP twin's (reset: POST /reset, write; step: POST /step, step; state:
// GET /state, read). A malformed or unknown message draws a read token;
// close draws none.
func wsClass(typ string) string {
	switch typ {
	case "reset":
		return ClassWrite
	case "step":
		return ClassStep
	case "close":
		return ""
	}
	return ClassRead
}

// wsHandle answers one message; done reports a close message, pause how
// long to wait before the next (after a refusal by a rate limit).
func (s *Server) wsHandle(r *http.Request, typ websocket.MessageType, msg []byte, token *string) (reply wsReply, done bool, pause time.Duration) {
	var m wsMessage
	var perr error = errf(api.CodeInvalid, "messages are JSON text")
	if typ == websocket.MessageText {
		perr = decodeBytes(msg, &m, 16)
	}
	class := ClassRead
	if perr == nil {
		class = wsClass(m.Type)
	}
	if class != "" {
		if err := s.allow(r, class); err != nil {
			var e *Error
			errors.As(err, &e)
			return wsError(err, "CAPACITY_REACHED"), false, e.RetryAfter
		}
	}
	if perr != nil {
		return wsError(perr, "INVALID_JSON"), false, 0
	}
	switch m.Type {
	case "reset":
		return s.wsReset(r, m.Data, token), false, 0
	case "step":
		if *token == "" {
			return wsError(errf(api.CodeInvalid, "no session yet: send a reset first"), "SESSION_ERROR"), false, 0
		}
		a, err := parseAction(m.Data)
		if err != nil {
			return wsError(err, "VALIDATION_ERROR"), false, 0
		}
		st, err := s.envAct(r, *token, a)
		if err != nil {
			return wsError(err, "EXECUTION_ERROR"), false, 0
		}
		return wsReply{Type: "observation", Data: envResultOf(st, *token, false)}, false, 0
	case "state":
		if *token == "" {
			return wsError(errf(api.CodeInvalid, "no session yet: send a reset first"), "SESSION_ERROR"), false, 0
		}
		st, err := s.sessions.Get(r.Context(), *token)
		if err != nil {
			return wsError(sessionError(err), "EXECUTION_ERROR"), false, 0
		}
		return wsReply{Type: "state", Data: envStateOf(st, *token)}, false, 0
	case "close":
		return wsReply{}, true, 0
	}
	return wsError(errf(api.CodeInvalid, "unknown message type %q (want reset, step, state or close)", clip(m.Type)), "UNKNOWN_TYPE"), false, 0
}

// wsReset answers a reset: it opens (or with episode_id resumes) the
// connection's session.
func (s *Server) wsReset(r *http.Request, data json.RawMessage, token *string) wsReply {
	var req envReset
	if len(data) > 0 && string(data) != "null" {
		if err := strictDecode(data, &req); err != nil {
			return wsError(err, "VALIDATION_ERROR")
		}
	}
	st, tok, err := s.envOpen(r, req, bearer(r))
	if err != nil {
		return wsError(err, "SESSION_ERROR")
	}
	*token = tok
	return wsReply{Type: "observation", Data: envResultOf(st, tok, true)}
}

// wsError is OpenEnv's WSErrorResponse for err: its message and an
// OpenEnv error code, with NormGym's own code and HTTP-equivalent status.
func wsError(err error, code string) wsReply {
	var e *Error
	if !errors.As(err, &e) || e.Code == api.CodeInternal {
		e = errf(api.CodeInternal, "internal error: the server could not finish this request")
	}
	if e.Code == api.CodeInternal {
		code = "EXECUTION_ERROR"
	}
	data := map[string]any{"message": e.Message, "code": code, "reason": e.Code, "status": e.Code.Status()}
	if e.RetryAfter > 0 {
		data["retry_after"] = roundUp(e.RetryAfter).Seconds()
	}
	if e.Actions != nil {
		data["actions"] = *e.Actions
	}
	return wsReply{Type: "error", Data: data}
}
