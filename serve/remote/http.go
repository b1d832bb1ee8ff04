package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/normgym/normgym/serve/api"
)

// HTTP returns an Env that plays through OpenEnv's POST /reset and POST
// /step of the server at base (e.g. http://127.0.0.1:8080) under the
// stateful extension: the reset asks for a session ("session": true) and
// each step names it by its session_id.
func HTTP(base string, opt Options) *Env {
	c := opt.Client
	if c == nil {
		c = http.DefaultClient
	}
	return &Env{t: &httpTransport{base: base, key: opt.Key, c: c}, suite: opt.Suite, agent: opt.Agent}
}

type httpTransport struct {
	base, key string
	c         *http.Client
}

// reset opens a session: OpenEnv's HTTP reset is stateless, so it asks for
// the stateful extension's session.
func (h *httpTransport) reset(ctx context.Context, req resetRequest) ([]byte, error) {
	req.Session = true
	return h.post(ctx, "/reset", h.key, req)
}

func (h *httpTransport) step(ctx context.Context, token string, action any) ([]byte, error) {
	return h.post(ctx, "/step", "", struct {
		Action    any    `json:"action"`
		SessionID string `json:"session_id"`
	}{action, token})
}

func (h *httpTransport) close() error {
	h.c.CloseIdleConnections()
	return nil
}

// post sends body as JSON (with a bearer token if not "") and returns the
// answer, or the server's refusal.
func (h *httpTransport) post(ctx context.Context, path, bearer string, body any) ([]byte, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint(h.base, path), bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("remote: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	resp, err := h.c.Do(req)
	if err != nil {
		return nil, fmt.Errorf("remote: %w", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return nil, fmt.Errorf("remote: reading the answer: %w", err)
	}
	if resp.StatusCode/100 != 2 {
		var e api.ErrorDetail
		json.Unmarshal(data, &e)
		return nil, &Refusal{Status: resp.StatusCode, Code: string(e.Code), Message: e.Message}
	}
	return data, nil
}
