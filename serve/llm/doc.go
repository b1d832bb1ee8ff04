// Package llm is NormGym's adapter to language models: a client for any
// OpenAI-compatible chat-completions endpoint (hosted APIs, vLLM,
// llama.cpp's server, Ollama…) with per-request timeouts, retries with
// exponential backoff and jitter that honour Retry-After, and an on-disk
// cache keyed by the exact request body. The prompt templates, history
// policy and reply extraction a model plays under (sim/prompt/PROMPTS.md)
// are the benchmark's protocol: they live in the pure package sim/prompt,
// which the browser's model mode shares.
//
// The package never reads the environment, never logs, and never writes
// the API key anywhere: the key travels only in the Authorization header,
// is not part of the request body (so not of cache keys), and is redacted
// from error messages.
package llm
