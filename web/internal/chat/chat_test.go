package chat_test

import (
	"testing"

	"github.com/normgym/normgym/sim/prompt"
	"github.com/normgym/normgym/web/internal/chat"
)

func TestConfig(t *testing.T) {
	c := chat.Config{BaseURL: " https://user:pw@api.example.com:8443/v1/ "}
	if got, want := c.Endpoint(), "https://user:pw@api.example.com:8443/v1/chat/completions"; got != want {
		t.Errorf("Endpoint() = %q, want %q", got, want)
	}
	if got, want := c.Host(), "api.example.com:8443"; got != want {
		t.Errorf("Host() = %q, want %q", got, want)
	}
}

// TestSameTemplates pins the browser to the headless harness's plain
// system prompt and default history options (sim/prompt/PROMPTS.md).
func TestSameTemplates(t *testing.T) {
	if got, want := chat.SystemPrompt(), prompt.SystemPrompt(prompt.Plain, nil); got != want {
		t.Errorf("system prompt differs from sim/prompt's plain one:\n%s", got)
	}
	if got, want := chat.Options(), prompt.DefaultOptions(); got != want {
		t.Errorf("history options %+v, want eval's defaults %+v", got, want)
	}
}
