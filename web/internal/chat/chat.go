// Package chat runs a visit with a language model as the newcomer, over
// any OpenAI-compatible chat-completions endpoint, from the browser. It
// runs the headless harness's own model loop (prompt.Run, sim/prompt) over
// the page's sim.wasm (ui.Env) under eval's default settings with the
// plain prompt: the same requests, replies' reading, record and extra as
// `normgym eval`, and the same retry policy but for requests that got no
// answer (Retry). What is the browser's own: fetch (Poster), the wait on
// screen, and pausing until the person resumes.
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

// Retry is the browser's retry policy: eval's (prompt.DefaultRetry), but a
// request that got no answer at all is not retried: in a browser that is
// most often a CORS refusal, which waiting does not cure (ExplainNoAnswer
// says what to do; Resume tries again).
func Retry() prompt.Retry {
	p := prompt.DefaultRetry()
	p.NoAnswer = false
	return p
}

// response is the part of a chat-completions answer the runner reads.
type response struct {
	Choices []struct {
		Message Message `json:"message"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens        int `json:"prompt_tokens"`
		CompletionTokens    int `json:"completion_tokens"`
		TotalTokens         int `json:"total_tokens"`
		PromptTokensDetails *struct {
			CachedTokens int `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
	} `json:"usage,omitempty"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// usage is the answer's usage as prompt.Usage.
func (r response) usage() prompt.Usage {
	var u prompt.Usage
	if w := r.Usage; w != nil {
		u = prompt.Usage{PromptTokens: w.PromptTokens, CompletionTokens: w.CompletionTokens, TotalTokens: w.TotalTokens}
		if d := w.PromptTokensDetails; d != nil {
			u.CachedTokens, u.CacheReported = d.CachedTokens, true
		}
	}
	return u
}
