//go:build !js

package server

import (
	"context"
	"net/http"
	"time"

	"github.com/coder/websocket"
)

// envWS handles GET /ws: OpenEnv's WebSocket session. The connection plays
// one session at a time: reset opens one (or resumes one with episode_id),
// step acts in it, state describes it, close ends the connection (the
// session lives on until it expires). Each step draws from the client's
// step rate limit.
func (s *Server) envWS(w http.ResponseWriter, r *http.Request) error {
	if err := s.wsUpgrade(w, r); err != nil {
		return err
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
	conn := s.NewWSConn(r)
	for {
		ctx, cancel := context.WithTimeout(r.Context(), wsIdle)
		typ, msg, err := c.Read(ctx)
		cancel()
		if err != nil {
			return nil
		}
		b, closing, err := conn.Message(r.Context(), msg, typ == websocket.MessageText)
		if err != nil {
			return err
		}
		if closing {
			// close: as OpenEnv's server, end the connection without a reply.
			c.Close(websocket.StatusNormalClosure, "")
			return nil
		}
		ctx, cancel = context.WithTimeout(r.Context(), 30*time.Second)
		err = c.Write(ctx, websocket.MessageText, b)
		cancel()
		if err != nil {
			return nil
		}
	}
}
