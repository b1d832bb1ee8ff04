// Package prompt is the benchmark's protocol with a language model
// (PROMPTS.md beside this file): the system prompt variants, the notes and
// probe turns, the conversation a model is sent step by step (every past
// step kept as its recap, the latest with the full view, append-only so
// that providers' prefix caches apply), the budget that caps it, and the
// strict extraction of actions and probe answers. Play runs a whole visit
// under it in the native sim, as the reference the harnesses are tested
// against and the estimator replays baselines through.
//
// It is pure: it imports only the standard library's string and
// formatting packages and sim, never net/http, os or a clock, so the
// headless harness (serve/cli over serve/llm) and the browser's model
// mode (web/internal/chat, GOOS=js) share it byte for byte.
package prompt
