package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/coder/websocket"
)

// WS returns an Env that plays through OpenEnv's WebSocket session (/ws)
// of the server at base (http:// or https://, as for HTTP): one
// connection, opened at the first Reset, holds the session.
func WS(base string, opt Options) *Env {
	return &Env{t: &wsTransport{base: base, key: opt.Key, client: opt.Client}, suite: opt.Suite, agent: opt.Agent}
}

type wsTransport struct {
	base, key string
	client    *http.Client
	conn      *websocket.Conn
}

func (w *wsTransport) dial(ctx context.Context) error {
	if w.conn != nil {
		return nil
	}
	u := endpoint(w.base, "/ws")
	u = "ws" + strings.TrimPrefix(u, "http")
	opts := &websocket.DialOptions{HTTPClient: w.client, HTTPHeader: http.Header{}}
	if w.key != "" {
		opts.HTTPHeader.Set("Authorization", "Bearer "+w.key)
	}
	c, _, err := websocket.Dial(ctx, u, opts)
	if err != nil {
		return fmt.Errorf("remote: opening %s: %w", u, err)
	}
	c.SetReadLimit(16 << 20)
	w.conn = c
	return nil
}

func (w *wsTransport) reset(ctx context.Context, req resetRequest) ([]byte, error) {
	if err := w.dial(ctx); err != nil {
		return nil, err
	}
	return w.send(ctx, "reset", req)
}

func (w *wsTransport) step(ctx context.Context, _ string, action any) ([]byte, error) {
	if w.conn == nil {
		return nil, errors.New("remote: no session: reset first")
	}
	return w.send(ctx, "step", action)
}

// send sends one message and returns its observation's data, or the
// server's refusal.
func (w *wsTransport) send(ctx context.Context, typ string, data any) ([]byte, error) {
	b, err := json.Marshal(struct {
		Type string `json:"type"`
		Data any    `json:"data"`
	}{typ, data})
	if err != nil {
		return nil, err
	}
	if err := w.conn.Write(ctx, websocket.MessageText, b); err != nil {
		return nil, fmt.Errorf("remote: %w", err)
	}
	_, msg, err := w.conn.Read(ctx)
	if err != nil {
		return nil, fmt.Errorf("remote: %w", err)
	}
	var reply struct {
		Type string          `json:"type"`
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(msg, &reply); err != nil {
		return nil, fmt.Errorf("remote: the server's message: %w", err)
	}
	if reply.Type == "error" {
		var e struct {
			Message string `json:"message"`
			Reason  string `json:"reason"`
			Status  int    `json:"status"`
		}
		json.Unmarshal(reply.Data, &e)
		return nil, &Refusal{Status: e.Status, Code: e.Reason, Message: e.Message}
	}
	if reply.Type != "observation" {
		return nil, fmt.Errorf("remote: the server answered a %q message", reply.Type)
	}
	return reply.Data, nil
}

func (w *wsTransport) close() error {
	if w.conn == nil {
		return nil
	}
	c := w.conn
	w.conn = nil
	return c.Close(websocket.StatusNormalClosure, "")
}
