package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/normgym/normgym/sim/prompt"
)

// Message is one chat message (prompt.Message: the templates build them).
type Message = prompt.Message

// Request is the body of a chat-completions request (prompt.Request: the
// model loop builds it). Its JSON encoding is exactly what is sent, and
// what the cache key is computed from.
type Request = prompt.Request

// Usage is the token usage an endpoint reports (prompt.Usage).
type Usage = prompt.Usage

// wireUsage is the usage object of a chat completion.
type wireUsage struct {
	PromptTokens        int `json:"prompt_tokens"`
	CompletionTokens    int `json:"completion_tokens"`
	TotalTokens         int `json:"total_tokens"`
	PromptTokensDetails *struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
}

func (w wireUsage) usage() Usage {
	u := Usage{PromptTokens: w.PromptTokens, CompletionTokens: w.CompletionTokens, TotalTokens: w.TotalTokens}
	if d := w.PromptTokensDetails; d != nil {
		u.CachedTokens, u.CacheReported = d.CachedTokens, true
	}
	return u
}

// Reply is a model's answer to one request (prompt.Reply). Its Latency is
// the wall time of the Chat call, retries and backoff included (near zero
// for a cache hit); Attempts counts the HTTP requests made (0 for a cache
// hit).
type Reply = prompt.Reply

// Options configure a Client. Zero values select the defaults.
type Options struct {
	// APIKey is sent as "Authorization: Bearer <key>"; empty sends none.
	APIKey string
	// Timeout bounds each HTTP attempt (default 2 minutes).
	Timeout time.Duration
	// Retries is how many times a failed attempt is retried (429, 5xx,
	// network errors, timeouts, malformed or empty answers: prompt.Retry
	// with NoAnswer). Negative means none; use NoRetries for clarity.
	Retries int
	// BaseDelay is the first backoff (default 1 s); each retry doubles
	// it, up to MaxDelay (default 60 s), with jitter. A Retry-After
	// header overrides the backoff (up to prompt.MaxRetryAfter).
	BaseDelay, MaxDelay time.Duration
	// Cache, if not nil, answers repeated requests from disk.
	Cache *Cache
	// MaxConns is the number of idle connections kept to the endpoint
	// (default 64); set it to the number of concurrent callers.
	MaxConns int
}

// NoRetries is the Retries value for a client that never retries.
const NoRetries = -1

// maxResponseBytes bounds a response body.
const maxResponseBytes = 16 << 20

// Client talks to one OpenAI-compatible chat-completions endpoint. It is
// safe for concurrent use.
type Client struct {
	endpoint string
	host     string
	key      string
	opt      Options
	retry    prompt.Retry
	http     *http.Client
}

// New returns a client for the endpoint at baseURL: "<baseURL>/chat/completions",
// or baseURL itself if it already ends in /chat/completions. Typical base
// URLs end in /v1, as in http://localhost:8000/v1.
func New(baseURL string, opt Options) (*Client, error) {
	u, err := url.Parse(baseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("llm: base URL %q: want http(s)://host[:port]/path", redactURL(baseURL))
	}
	if !strings.HasSuffix(u.Path, "/chat/completions") {
		u.Path = strings.TrimSuffix(u.Path, "/") + "/chat/completions"
		u.RawPath = ""
	}
	if opt.Timeout <= 0 {
		opt.Timeout = 2 * time.Minute
	}
	if opt.Retries < 0 {
		opt.Retries = 0
	}
	if opt.BaseDelay <= 0 {
		opt.BaseDelay = time.Second
	}
	if opt.MaxDelay <= 0 {
		opt.MaxDelay = time.Minute
	}
	if opt.MaxConns <= 0 {
		opt.MaxConns = 64
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConns = opt.MaxConns
	tr.MaxIdleConnsPerHost = opt.MaxConns
	retry := prompt.Retry{Max: opt.Retries, Base: opt.BaseDelay, Cap: opt.MaxDelay, NoAnswer: true}
	return &Client{endpoint: u.String(), host: u.Host, key: opt.APIKey, opt: opt, retry: retry, http: &http.Client{Transport: tr}}, nil
}

// Host returns the endpoint's host[:port]: what results may record about
// it (no scheme, user info, path or query).
func (c *Client) Host() string { return c.host }

// CloseIdle closes idle connections.
func (c *Client) CloseIdle() { c.http.CloseIdleConnections() }

// HTTPError is an endpoint's answer with a non-2xx status.
type HTTPError struct {
	Status int
	// Body is the start of the response body, with the API key redacted.
	Body string
	// RetryAfter is the delay the endpoint asked for, if it did.
	RetryAfter    time.Duration
	HasRetryAfter bool
	// retryAfter is the answer's Retry-After header.
	retryAfter string
}

func (e *HTTPError) Error() string {
	s := fmt.Sprintf("llm: endpoint answered %d %s", e.Status, http.StatusText(e.Status))
	if e.Body != "" {
		s += ": " + e.Body
	}
	return s
}

// Temporary reports whether the status is worth retrying
// (prompt.Temporary: 408, 409, 425, 429 and 5xx).
func (e *HTTPError) Temporary() bool { return prompt.Temporary(e.Status) }

// ErrBadResponse is wrapped by the error for a 2xx answer that is not a
// chat completion with at least one choice. It is retried.
var ErrBadResponse = errors.New("llm: malformed response")

// errAttemptTimeout marks an attempt that ran past Options.Timeout.
var errAttemptTimeout = errors.New("llm: request timed out")

// Chat sends req and returns the first choice. It answers from the cache
// when it can, and otherwise retries temporary failures with backoff. Its
// error wraps *HTTPError for a refused request, ErrBadResponse for a
// malformed answer, or ctx's error if ctx ended.
func (c *Client) Chat(ctx context.Context, req Request) (Reply, error) {
	start := time.Now()
	body, err := req.Body()
	if err != nil {
		return Reply{}, fmt.Errorf("llm: encoding the request: %w", err)
	}
	var key string
	if c.opt.Cache != nil {
		key = CacheKey(body)
		if raw, ok := c.opt.Cache.Get(key); ok {
			if r, err := parseResponse(raw); err == nil {
				r.Cached, r.Latency = true, time.Since(start)
				return r, nil
			}
		}
	}
	for attempt := 0; ; attempt++ {
		r, raw, err := c.once(ctx, body)
		if err == nil {
			r.Attempts, r.Latency = attempt+1, time.Since(start)
			if c.opt.Cache != nil {
				c.opt.Cache.Put(key, raw) // a failed write only costs a future request
			}
			return r, nil
		}
		if ctxErr := ctx.Err(); ctxErr != nil {
			return Reply{}, fmt.Errorf("llm: %w", ctxErr)
		}
		var f prompt.Failure
		if he := (*HTTPError)(nil); errors.As(err, &he) {
			f = prompt.Failure{Status: he.Status, RetryAfter: he.retryAfter}
		}
		d, again := c.retry.Wait(f, attempt, time.Now(), rand.Int64N)
		if !again {
			return Reply{}, fmt.Errorf("%w (after %d attempts)", err, attempt+1)
		}
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return Reply{}, fmt.Errorf("llm: %w", ctx.Err())
		case <-t.C:
		}
	}
}

// once makes one HTTP attempt.
func (c *Client) once(ctx context.Context, body []byte) (Reply, []byte, error) {
	actx, cancel := context.WithTimeoutCause(ctx, c.opt.Timeout, errAttemptTimeout)
	defer cancel()
	hreq, err := http.NewRequestWithContext(actx, http.MethodPost, c.endpoint, bytes.NewReader(body))
	if err != nil {
		return Reply{}, nil, fmt.Errorf("llm: %s", c.redact(err.Error()))
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "application/json")
	if c.key != "" {
		hreq.Header.Set("Authorization", "Bearer "+c.key)
	}
	resp, err := c.http.Do(hreq)
	if err != nil {
		if context.Cause(actx) == errAttemptTimeout && ctx.Err() == nil {
			return Reply{}, nil, fmt.Errorf("%w after %v", errAttemptTimeout, c.opt.Timeout)
		}
		return Reply{}, nil, fmt.Errorf("llm: %s", c.redact(err.Error()))
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	if err != nil {
		if context.Cause(actx) == errAttemptTimeout && ctx.Err() == nil {
			return Reply{}, nil, fmt.Errorf("%w after %v", errAttemptTimeout, c.opt.Timeout)
		}
		return Reply{}, nil, fmt.Errorf("llm: reading the response: %s", c.redact(err.Error()))
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		he := &HTTPError{Status: resp.StatusCode, Body: c.redact(snippet(raw)), retryAfter: resp.Header.Get("Retry-After")}
		he.RetryAfter, he.HasRetryAfter = prompt.ParseRetryAfter(he.retryAfter, time.Now())
		return Reply{}, nil, he
	}
	if len(raw) > maxResponseBytes {
		return Reply{}, nil, fmt.Errorf("%w: body larger than %d bytes", ErrBadResponse, maxResponseBytes)
	}
	r, err := parseResponse(raw)
	if err != nil {
		return Reply{}, nil, err
	}
	return r, raw, nil
}

// redact removes the API key from s.
func (c *Client) redact(s string) string {
	if c.key == "" {
		return s
	}
	return strings.ReplaceAll(s, c.key, "[redacted]")
}

// redactURL drops user info from a URL for messages.
func redactURL(s string) string {
	if u, err := url.Parse(s); err == nil && u.User != nil {
		u.User = nil
		return u.String()
	}
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

func snippet(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return strings.ToValidUTF8(s, "?")
}

// chatResponse is the part of a chat completion the client reads.
type chatResponse struct {
	Choices []struct {
		Message struct {
			Content json.RawMessage `json:"content"`
			// ReasoningContent (DeepSeek, vLLM) or Reasoning (OpenRouter,
			// Ollama) is the model's reasoning text, where sent.
			ReasoningContent *string `json:"reasoning_content"`
			Reasoning        *string `json:"reasoning"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage *wireUsage `json:"usage"`
}

// parseResponse reads a chat completion. The content may be a string,
// null, or a list of parts of which the text parts are joined.
func parseResponse(raw []byte) (Reply, error) {
	var cr chatResponse
	if err := json.Unmarshal(raw, &cr); err != nil {
		return Reply{}, fmt.Errorf("%w: %v", ErrBadResponse, err)
	}
	if len(cr.Choices) == 0 {
		return Reply{}, fmt.Errorf("%w: no choices", ErrBadResponse)
	}
	ch := cr.Choices[0]
	r := Reply{FinishReason: ch.FinishReason}
	switch m := ch.Message; {
	case m.ReasoningContent != nil && *m.ReasoningContent != "":
		r.Reasoning = *m.ReasoningContent
	case m.Reasoning != nil:
		r.Reasoning = *m.Reasoning
	}
	if cr.Usage != nil {
		r.Usage = cr.Usage.usage()
	}
	content := bytes.TrimSpace(ch.Message.Content)
	switch {
	case len(content) == 0 || string(content) == "null":
	case content[0] == '"':
		if err := json.Unmarshal(content, &r.Content); err != nil {
			return Reply{}, fmt.Errorf("%w: content: %v", ErrBadResponse, err)
		}
	case content[0] == '[':
		var parts []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal(content, &parts); err != nil {
			return Reply{}, fmt.Errorf("%w: content: %v", ErrBadResponse, err)
		}
		var b strings.Builder
		for _, p := range parts {
			if p.Type == "text" || p.Type == "" {
				b.WriteString(p.Text)
			}
		}
		r.Content = b.String()
	default:
		return Reply{}, fmt.Errorf("%w: content is neither text nor parts", ErrBadResponse)
	}
	return r, nil
}
