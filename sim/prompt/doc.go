// Package prompt holds what a language model is sent and how its replies
// are read (sim/prompt/PROMPTS.md): the system prompt variants, the notes
// and probe turns, the history policy with its character budget, and the
// strict extraction of actions and probe answers.
//
// It is pure: it imports only the standard library's string and
// formatting packages and sim, never net/http, os or a clock, so the
// headless harness (serve/llm, serve/cli) and the browser's model mode
// (web/internal/chat, GOOS=js) share it byte for byte.
package prompt
