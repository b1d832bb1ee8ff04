//go:build js

package server

import (
	"net/http"
)

// envWS answers GET /ws in the Workers build, where the Go code never
// holds a socket: a checked upgrade is answered with 101 Switching
// Protocols and nothing else, and the caller (serve/worker's Durable
// Object, which runs this handler) accepts the WebSocket itself and hands
// each message to NewWSConn's Message. The checks, the rate limit and the
// messages are the native /ws's (ws.go, ws_conn.go).
func (s *Server) envWS(w http.ResponseWriter, r *http.Request) error {
	if err := s.wsUpgrade(w, r); err != nil {
		return err
	}
	w.WriteHeader(http.StatusSwitchingProtocols)
	return nil
}
