package server

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/normgym/normgym/serve/api"
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

// wsUpgrade checks a GET /ws before a transport takes the connection
// over: the server steps sessions, and the request asks for a WebSocket
// (426 otherwise, as OpenEnv's server).
func (s *Server) wsUpgrade(w http.ResponseWriter, r *http.Request) error {
	if s.sessions == nil {
		return errf(api.CodeUnavailable, "this server steps no sessions")
	}
	if !headerHas(r.Header, "Connection", "upgrade") || !headerHas(r.Header, "Upgrade", "websocket") {
		w.Header().Set("Upgrade", "websocket")
		return errf(api.CodeUpgrade, "GET /ws is OpenEnv's WebSocket session: open it with a WebSocket client (or use POST /reset and /step)")
	}
	return nil
}

// WSConn is one OpenEnv WebSocket connection (GET /ws) whose socket a
// transport outside this package holds: the Workers build, where a
// Durable Object accepts the WebSocket and hands each message here. It
// answers the messages exactly as the server's own /ws does (ws_conn.go),
// one at a time, in order.
type WSConn struct {
	s    *Server
	r    *http.Request
	sess wsSession
}

// wsSession is what a /ws connection holds: its session's token ("" until
// a reset) and the episode's id (OpenEnv's episode_id: the client's name
// for it, or one made from the session).
type wsSession struct {
	token, episode string
}

// WSLimits are the bounds of a /ws connection: a message longer than
// maxMessage closes it (status 1009), and so does idle time without a
// message (DefaultWSIdle: the transports outside this package have no
// Options to read).
func WSLimits() (maxMessage int, idle time.Duration) { return wsMaxMessage, DefaultWSIdle }

// NewWSConn returns the connection that upgrade request r opened, once
// the server's handler has answered r with 101 Switching Protocols (the
// Workers build's GET /ws does, instead of taking the connection over).
// r names the client (for its rate limits) and may carry a submitter key.
func (s *Server) NewWSConn(r *http.Request) *WSConn {
	return &WSConn{s: s, r: r.WithContext(context.Background())}
}

// Message answers one message (text is false for a binary one) with the
// reply to send, or reports that the client asked to close: end the
// connection then, without a reply.
//
// Every message draws from the client's rate limit of its HTTP twin's
// class (wsClass), as on the native /ws; the pause the native loop keeps
// after a refusal is the transport's to keep.
func (c *WSConn) Message(ctx context.Context, msg []byte, text bool) (reply []byte, closing bool, err error) {
	rp, closing, _ := c.s.wsHandle(c.r.WithContext(ctx), text, msg, &c.sess)
	if closing {
		return nil, true, nil
	}
	b, err := json.Marshal(rp)
	return b, false, err
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
// A binary message (text false) is refused as malformed.
func (s *Server) wsHandle(r *http.Request, text bool, msg []byte, conn *wsSession) (reply wsReply, done bool, pause time.Duration) {
	var m wsMessage
	var perr error = errf(api.CodeInvalid, "messages are JSON text")
	if text {
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
		return s.wsReset(r, m.Data, conn), false, 0
	case "step":
		if conn.token == "" {
			return wsError(errf(api.CodeInvalid, "no session yet: send a reset first"), "SESSION_ERROR"), false, 0
		}
		a, err := parseAction(m.Data)
		if err != nil {
			return wsError(err, "VALIDATION_ERROR"), false, 0
		}
		st, err := s.envAct(r, conn.token, a)
		if err != nil {
			return wsError(err, "EXECUTION_ERROR"), false, 0
		}
		return wsReply{Type: "observation", Data: envResultOf(st, conn.token, conn.episode, false)}, false, 0
	case "state":
		if conn.token == "" {
			// A fresh environment's state, as OpenEnv's before a reset.
			return wsReply{Type: "state", Data: freshState}, false, 0
		}
		st, err := s.sessions.Get(r.Context(), conn.token)
		if err != nil {
			return wsError(sessionError(err), "EXECUTION_ERROR"), false, 0
		}
		return wsReply{Type: "state", Data: envStateOf(st, conn.episode)}, false, 0
	case "close":
		return wsReply{}, true, 0
	}
	return wsError(errf(api.CodeInvalid, "unknown message type %q (want reset, step, state or close)", clip(m.Type)), "UNKNOWN_TYPE"), false, 0
}

// wsReset answers a reset: it opens (or with session_id resumes) the
// connection's session, named by the reset's episode_id or after its
// token. A connection always holds a session: "session" changes nothing.
func (s *Server) wsReset(r *http.Request, data json.RawMessage, conn *wsSession) wsReply {
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
	conn.token, conn.episode = tok, req.EpisodeID
	if conn.episode == "" {
		conn.episode = episodeOf(tok)
	}
	return wsReply{Type: "observation", Data: envResultOf(st, tok, conn.episode, true)}
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
