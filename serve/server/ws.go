//go:build !js

package server

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/coder/websocket"

	"github.com/normgym/normgym/serve/api"
)

// wsIdle closes a WebSocket that sends nothing for this long (its session
// lives on until it expires, and reset with episode_id resumes it).
const wsIdle = 10 * time.Minute

// wsMaxMessage bounds a WebSocket message (a reset, an action).
const wsMaxMessage = 16 << 10

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
// session lives on until it expires). Each step draws from the client's
// step rate limit.
func (s *Server) envWS(w http.ResponseWriter, r *http.Request) error {
	if s.sessions == nil {
		return errf(api.CodeUnavailable, "this server steps no sessions")
	}
	if !headerHas(r.Header, "Connection", "upgrade") || !headerHas(r.Header, "Upgrade", "websocket") {
		w.Header().Set("Upgrade", "websocket")
		return errf(api.CodeUpgrade, "GET /ws is OpenEnv's WebSocket session: open it with a WebSocket client (or use POST /reset and /step)")
	}
	// The server's read and write timeouts are for requests: lift them
	// from the connection the WebSocket takes over.
	rc := http.NewResponseController(w)
	rc.SetReadDeadline(time.Time{})
	rc.SetWriteDeadline(time.Time{})
	c, err := websocket.Accept(w, r, nil)
	if err != nil {
		return nil // Accept has answered
	}
	defer c.CloseNow()
	c.SetReadLimit(wsMaxMessage)
	token := ""
	for {
		ctx, cancel := context.WithTimeout(r.Context(), wsIdle)
		typ, msg, err := c.Read(ctx)
		cancel()
		if err != nil {
			return nil
		}
		var reply wsReply
		done := false
		if typ != websocket.MessageText {
			reply = wsError(errf(api.CodeInvalid, "messages are JSON text"), "INVALID_JSON")
		} else {
			reply, done = s.wsHandle(r, msg, &token)
		}
		if done {
			// close: as OpenEnv's server, end the connection without a reply.
			c.Close(websocket.StatusNormalClosure, "")
			return nil
		}
		b, err := json.Marshal(reply)
		if err != nil {
			return err
		}
		ctx, cancel = context.WithTimeout(r.Context(), 30*time.Second)
		err = c.Write(ctx, websocket.MessageText, b)
		cancel()
		if err != nil {
			return nil
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

// wsHandle answers one message; done reports a close message.
func (s *Server) wsHandle(r *http.Request, msg []byte, token *string) (reply wsReply, done bool) {
	var m wsMessage
	if err := decodeBytes(msg, &m, 16); err != nil {
		return wsError(err, "INVALID_JSON"), false
	}
	switch m.Type {
	case "reset":
		var req envReset
		if len(m.Data) > 0 && string(m.Data) != "null" {
			if err := strictDecode(m.Data, &req); err != nil {
				return wsError(err, "VALIDATION_ERROR"), false
			}
		}
		if err := s.allow(r, ClassWrite); err != nil && req.EpisodeID == "" {
			return wsError(err, "CAPACITY_REACHED"), false
		}
		st, tok, err := s.envOpen(r, req, bearer(r))
		if err != nil {
			return wsError(err, "SESSION_ERROR"), false
		}
		*token = tok
		return wsReply{Type: "observation", Data: envResultOf(st, tok, true)}, false
	case "step":
		if *token == "" {
			return wsError(errf(api.CodeInvalid, "no session yet: send a reset first"), "SESSION_ERROR"), false
		}
		a, err := parseAction(m.Data)
		if err != nil {
			return wsError(err, "VALIDATION_ERROR"), false
		}
		if err := s.allow(r, ClassStep); err != nil {
			return wsError(err, "CAPACITY_REACHED"), false
		}
		st, err := s.envAct(r, *token, a)
		if err != nil {
			return wsError(err, "EXECUTION_ERROR"), false
		}
		return wsReply{Type: "observation", Data: envResultOf(st, *token, false)}, false
	case "state":
		if *token == "" {
			return wsError(errf(api.CodeInvalid, "no session yet: send a reset first"), "SESSION_ERROR"), false
		}
		st, err := s.sessions.Get(r.Context(), *token)
		if err != nil {
			return wsError(sessionError(err), "EXECUTION_ERROR"), false
		}
		return wsReply{Type: "state", Data: envStateOf(st, *token)}, false
	case "close":
		return wsReply{}, true
	}
	return wsError(errf(api.CodeInvalid, "unknown message type %q (want reset, step, state or close)", clip(m.Type)), "UNKNOWN_TYPE"), false
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
	return wsReply{Type: "error", Data: data}
}
