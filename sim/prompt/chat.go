package prompt

import (
	"context"
	"encoding/json"
	"time"
)

// Kind says what a request asks the model for.
type Kind string

// The kinds of request.
const (
	// AskStep asks for the step's action (ExtractAction).
	AskStep Kind = "step"
	// AskNotes asks for notes at the end of a practice day (Reflect).
	AskNotes Kind = "notes"
	// AskProbe asks the probe's answer (ExtractAnswer).
	AskProbe Kind = "probe"
)

// Request is one chat-completions request of a visit. Its JSON encoding
// (Body) is exactly what is sent, by the headless harness and the browser
// alike, and what a request cache keys on.
type Request struct {
	// Kind says what it asks for; it is not sent.
	Kind     Kind      `json:"-"`
	Model    string    `json:"model"`
	Messages []Message `json:"messages"`
	// Temperature is omitted when nil (the endpoint's default).
	Temperature *float64 `json:"temperature,omitempty"`
	// MaxTokens is omitted when 0.
	MaxTokens int `json:"max_tokens,omitempty"`
}

// Body returns the request's JSON encoding: exactly what is sent.
func (r Request) Body() ([]byte, error) { return json.Marshal(r) }

// Usage is the token usage an endpoint reports for one request.
type Usage struct {
	PromptTokens     int
	CompletionTokens int
	TotalTokens      int
	// CachedTokens are the prompt tokens the endpoint read from its prompt
	// cache (usage.prompt_tokens_details.cached_tokens, billed at a
	// discount by providers that cache); CacheReported says whether the
	// answer carried that field at all.
	CachedTokens  int
	CacheReported bool
}

// Reply is a model's answer to one request, with what it took.
type Reply struct {
	// Content is the first choice's message text ("" if it had none).
	Content string
	// Reasoning is the reasoning text the provider sent beside the
	// content (message.reasoning_content or message.reasoning), if any.
	// It is kept in transcripts, never sent back to the model.
	Reasoning    string
	FinishReason string
	Usage        Usage
	// Latency is the wall time of the request, retries and their waits
	// included (near zero for a cache hit).
	Latency time.Duration
	// Attempts is how many HTTP requests were made (0 for a cache hit).
	Attempts int
	// Cached reports that the reply came from a request cache.
	Cached bool
}

// Chat sends one request and returns the model's reply. It is where the
// I/O is (an HTTP client, the browser's fetch, a script in tests) and
// where a failed request is retried (Retry); an error it returns ends the
// visit's play.
type Chat func(ctx context.Context, req Request) (Reply, error)
