//go:build js

package server

import (
	"net/http"

	"github.com/normgym/normgym/serve/api"
)

// envWS answers GET /ws in the Workers build: the Go runtime there lives
// for one request, so it cannot hold a WebSocket session (see
// serve/worker/RATIONALE.md). The HTTP routes /reset and /step serve the
// same sessions.
func (s *Server) envWS(w http.ResponseWriter, r *http.Request) error {
	return errf(api.CodeNotImplemented, "this build of NormGym (Cloudflare Workers) has no WebSocket sessions: use POST /reset and POST /step with session_id, or /api/sessions")
}
