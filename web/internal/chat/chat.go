// Package chat runs a visit with a language model as the newcomer, over
// any OpenAI-compatible chat-completions endpoint, from the browser. It
// plays under exactly the headless harness's templates
// (sim/prompt/PROMPTS.md, package sim/prompt): the plain system
// prompt, the sim's text observation as each user turn, the history
// budget policy, the probe turn and the strict ACTION:/ANSWER: extraction.
package chat

import (
	"github.com/normgym/normgym/sim/prompt"
)

// Variant is the prompt variant the browser plays under (recorded in
// extra.prompt, as eval does).
const Variant = prompt.Plain

// HistoryBudget bounds the characters of all message contents of one
// request (the system prompt and latest user turn are always sent); the
// oldest user/assistant pairs are dropped beyond it, as in eval's default.
const HistoryBudget = prompt.DefaultBudget

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

// Usage is a response's token count.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
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
