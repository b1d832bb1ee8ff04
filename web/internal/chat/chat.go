// Package chat runs a visit with a language model as the newcomer, over
// any OpenAI-compatible chat-completions endpoint, from the browser. It
// plays under exactly the headless harness's protocol
// (sim/prompt/PROMPTS.md, package sim/prompt): the plain system prompt,
// the sim's text observation as each new user turn, the conversation that
// keeps every past step's recap (prompt.Conversation under the default
// options), the probe turn and the strict ACTION:/ANSWER: extraction. For
// the same visit and replies it sends the messages `normgym eval` sends,
// byte for byte (TestSameMessagesAsHarness).
package chat

import (
	"github.com/normgym/normgym/sim/prompt"
)

// Variant is the prompt variant the browser plays under (recorded in
// extra.prompt, as eval does).
const Variant = prompt.Plain

// Options are the history settings the browser plays under: eval's
// defaults.
func Options() prompt.Options { return prompt.DefaultOptions() }

// SystemPrompt returns the system message of every request.
func SystemPrompt() string { return prompt.SystemPrompt(Variant, nil) }

// Message is one chat message.
type Message = prompt.Message

// Request is the body of POST {base}/chat/completions.
type Request struct {
	Model       string    `json:"model"`
	Messages    []Message `json:"messages"`
	Temperature float64   `json:"temperature"`
	MaxTokens   int       `json:"max_tokens,omitempty"`
}

// Usage is a response's token count, as the endpoint reports it, and a
// run's totals with the requests' size (recorded in extra.usage).
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	// PromptTokensDetails carries the prompt tokens read from the
	// provider's cache, where it says (only in responses).
	PromptTokensDetails *struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"prompt_tokens_details,omitempty"`
	// CachedPromptTokens sums the cached tokens reported (run totals).
	CachedPromptTokens int `json:"cached_prompt_tokens,omitempty"`
	// RequestBytes sums the request bodies sent, UnsharedBytes the bytes
	// of each outside its common prefix with the previous one (run
	// totals, as eval records them).
	RequestBytes  int `json:"request_bytes,omitempty"`
	UnsharedBytes int `json:"unshared_bytes,omitempty"`
}

// Response is the part of a chat-completions answer the runner reads.
type Response struct {
	Choices []struct {
		Message Message `json:"message"`
	} `json:"choices"`
	Usage *Usage `json:"usage,omitempty"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error,omitempty"`
}
