package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

const key = "sk-llm-test-KEY-0042"

// endpoint serves answers[i] for call i (the last one repeats).
func endpoint(t *testing.T, answers ...func(w http.ResponseWriter, r *http.Request)) (*httptest.Server, *atomic.Int64) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := int(n.Add(1)) - 1
		io.Copy(io.Discard, r.Body)
		answers[min(i, len(answers)-1)](w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func ok(content string) func(w http.ResponseWriter, r *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"choices":[{"message":{"role":"assistant","content":%q},"finish_reason":"stop"}],"usage":{"prompt_tokens":11,"completion_tokens":3,"total_tokens":14}}`, content)
	}
}

func status(code int, body string) func(w http.ResponseWriter, r *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(code)
		io.WriteString(w, body)
	}
}

var req = Request{Model: "m", Messages: []Message{{Role: "system", Content: "s"}, {Role: "user", Content: "u"}}}

func TestLLMNewEndpoint(t *testing.T) {
	for _, tt := range []struct{ base, want string }{
		{"http://localhost:8000/v1", "http://localhost:8000/v1/chat/completions"},
		{"http://localhost:8000/v1/", "http://localhost:8000/v1/chat/completions"},
		{"https://api.example.com", "https://api.example.com/chat/completions"},
		{"https://h/openai/v1/chat/completions?api-version=2", "https://h/openai/v1/chat/completions?api-version=2"},
	} {
		c, err := New(tt.base, Options{})
		if err != nil || c.endpoint != tt.want {
			t.Errorf("New(%q): endpoint %q, %v; want %q", tt.base, c.endpoint, err, tt.want)
		}
	}
	c, _ := New("https://user:secret@h.example:8443/v1?x=1", Options{})
	if c.Host() != "h.example:8443" {
		t.Errorf("Host() = %q", c.Host())
	}
	for _, bad := range []string{"", "localhost:8000", "ftp://h/v1", "http:///v1"} {
		if _, err := New(bad, Options{}); err == nil {
			t.Errorf("New(%q) accepted", bad)
		}
	}
}

func TestLLMChatRetries(t *testing.T) {
	srv, n := endpoint(t,
		status(503, "busy"),
		func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "0")
			status(429, "")(w, r)
		},
		status(200, `{"choices":[]}`),
		status(200, `not json`),
		ok("ACTION: north"))
	c, _ := New(srv.URL+"/v1", Options{APIKey: key, BaseDelay: time.Millisecond, Retries: 4})
	r, err := c.Chat(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if r.Content != "ACTION: north" || r.Attempts != 5 || n.Load() != 5 || r.Usage.TotalTokens != 14 || r.Cached {
		t.Errorf("reply %+v after %d calls", r, n.Load())
	}
	// One retry too few fails, naming the last error.
	srv2, _ := endpoint(t, status(500, "a"), status(500, "b"), ok("x"))
	c2, _ := New(srv2.URL, Options{BaseDelay: time.Millisecond, Retries: 1})
	if _, err := c2.Chat(context.Background(), req); err == nil || !strings.Contains(err.Error(), "500") || !strings.Contains(err.Error(), "2 attempts") {
		t.Errorf("err = %v, want a 500 after 2 attempts", err)
	}
}

func TestLLMChatRetryAfterDate(t *testing.T) {
	srv, n := endpoint(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", time.Now().Add(1500*time.Millisecond).UTC().Format(http.TimeFormat))
		status(429, "")(w, r)
	}, ok("ACTION: wait"))
	c, _ := New(srv.URL, Options{BaseDelay: time.Millisecond, Retries: 2})
	start := time.Now()
	if _, err := c.Chat(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	// HTTP dates have whole seconds: the wait is 0.5 to 1.5 s.
	if el := time.Since(start); el < 400*time.Millisecond || n.Load() != 2 {
		t.Errorf("waited %v over %d calls; want the Retry-After date honoured", el, n.Load())
	}
}

func TestLLMChatNotRetried(t *testing.T) {
	srv, n := endpoint(t, status(401, `{"error":{"message":"Incorrect API key provided: `+key+`"}}`), ok("x"))
	c, _ := New(srv.URL, Options{APIKey: key, BaseDelay: time.Millisecond, Retries: 5})
	_, err := c.Chat(context.Background(), req)
	var he *HTTPError
	if !errors.As(err, &he) || he.Status != 401 || n.Load() != 1 {
		t.Fatalf("err = %v after %d calls; want a 401 at once", err, n.Load())
	}
	if strings.Contains(err.Error(), key) || !strings.Contains(err.Error(), "[redacted]") {
		t.Errorf("the error does not redact the key: %v", err)
	}
}

func TestLLMChatTimeout(t *testing.T) {
	srv, n := endpoint(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(3 * time.Second):
		case <-r.Context().Done():
		}
	}, ok("ACTION: east"))
	c, _ := New(srv.URL, Options{Timeout: 100 * time.Millisecond, BaseDelay: time.Millisecond, Retries: 1})
	r, err := c.Chat(context.Background(), req)
	if err != nil || r.Content != "ACTION: east" || n.Load() != 2 {
		t.Errorf("reply %+v, err %v, %d calls; want a retry after the timeout", r, err, n.Load())
	}
	// The caller's own cancellation is not retried.
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	srv2, _ := endpoint(t, func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	c2, _ := New(srv2.URL, Options{Retries: 5})
	if _, err := c2.Chat(ctx, req); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want the context's", err)
	}
}

func TestLLMChatCache(t *testing.T) {
	srv, n := endpoint(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+key {
			t.Errorf("Authorization = %q", r.Header.Get("Authorization"))
		}
		ok("ACTION: pick")(w, r)
	})
	dir := t.TempDir()
	cache, err := OpenCache(dir)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := New(srv.URL, Options{APIKey: key, Cache: cache})
	first, err := c.Chat(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	again, err := c.Chat(context.Background(), req)
	if err != nil || !again.Cached || again.Content != first.Content || again.Usage != first.Usage || n.Load() != 1 {
		t.Errorf("second reply %+v, err %v, %d calls; want a cache hit", again, err, n.Load())
	}
	other := req
	other.MaxTokens = 5
	if _, err := c.Chat(context.Background(), other); err != nil || n.Load() != 2 {
		t.Errorf("a different body must miss the cache (%d calls)", n.Load())
	}
	body, _ := json.Marshal(req)
	if _, ok := cache.Get(CacheKey(body)); !ok {
		t.Errorf("no entry under the SHA-256 of the body")
	}
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			b, _ := os.ReadFile(p)
			if strings.Contains(string(b), key) || strings.Contains(p, key) {
				t.Errorf("%s holds the key", p)
			}
		}
		return err
	})
}

func TestLLMParseResponse(t *testing.T) {
	for _, tt := range []struct {
		body, want string
		bad        bool
	}{
		{`{"choices":[{"message":{"content":"hi"}}]}`, "hi", false},
		{`{"choices":[{"message":{"content":null}}]}`, "", false},
		{`{"choices":[{"message":{}}]}`, "", false},
		{`{"choices":[{"message":{"content":[{"type":"text","text":"a"},{"type":"image_url"},{"type":"text","text":"b"}]}}]}`, "ab", false},
		{`{"choices":[]}`, "", true},
		{`{}`, "", true},
		{`{"choices":[{"message":{"content":42}}]}`, "", true},
		{`<html>`, "", true},
	} {
		r, err := parseResponse([]byte(tt.body))
		if tt.bad != (err != nil) || r.Content != tt.want {
			t.Errorf("parseResponse(%s) = %q, %v", tt.body, r.Content, err)
		}
		if tt.bad && !errors.Is(err, ErrBadResponse) {
			t.Errorf("parseResponse(%s): %v does not wrap ErrBadResponse", tt.body, err)
		}
	}
}

func TestLLMParseReasoning(t *testing.T) {
	for _, tt := range []struct {
		name, message, want string
	}{
		{"none", `{"content":"ACTION: north"}`, ""},
		{"reasoning_content", `{"content":"ACTION: north","reasoning_content":"The basket is north."}`, "The basket is north."},
		{"reasoning", `{"content":"ACTION: north","reasoning":"Odo frowned at me."}`, "Odo frowned at me."},
		{"both", `{"content":"x","reasoning_content":"first","reasoning":"second"}`, "first"},
		{"null", `{"content":"x","reasoning_content":null}`, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, err := parseResponse([]byte(`{"choices":[{"message":` + tt.message + `}]}`))
			if err != nil || r.Reasoning != tt.want {
				t.Errorf("reasoning %q, %v; want %q", r.Reasoning, err, tt.want)
			}
		})
	}
}

func TestLLMParseUsage(t *testing.T) {
	for _, tt := range []struct {
		name, usage string
		want        Usage
	}{
		{"none", ``, Usage{}},
		{"plain", `,"usage":{"prompt_tokens":10,"completion_tokens":2,"total_tokens":12}`, Usage{PromptTokens: 10, CompletionTokens: 2, TotalTokens: 12}},
		{"cached", `,"usage":{"prompt_tokens":2000,"completion_tokens":5,"total_tokens":2005,"prompt_tokens_details":{"cached_tokens":1536,"audio_tokens":0}}`,
			Usage{PromptTokens: 2000, CompletionTokens: 5, TotalTokens: 2005, CachedTokens: 1536, CacheReported: true}},
		{"cache reported zero", `,"usage":{"prompt_tokens":7,"prompt_tokens_details":{"cached_tokens":0}}`, Usage{PromptTokens: 7, CacheReported: true}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, err := parseResponse([]byte(`{"choices":[{"message":{"content":"hi"}}]` + tt.usage + `}`))
			if err != nil || r.Usage != tt.want {
				t.Errorf("usage %+v, %v; want %+v", r.Usage, err, tt.want)
			}
		})
	}
}
