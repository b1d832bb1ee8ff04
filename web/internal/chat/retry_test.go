//go:build !js

package chat_test

import (
	"strings"
	"testing"
	"time"

	"github.com/normgym/normgym/sim/prompt"
	"github.com/normgym/normgym/web/internal/chat"
)

// TestRetry: the browser retries as eval does (prompt.DefaultRetry), but
// not a request that got no answer at all.
func TestRetry(t *testing.T) {
	p, eval := chat.Retry(), prompt.DefaultRetry()
	if p.NoAnswer || p.Max != eval.Max || p.Base != eval.Base || p.Cap != eval.Cap {
		t.Errorf("the browser's policy %+v, want eval's %+v without NoAnswer", p, eval)
	}
	if _, ok := p.Wait(prompt.Failure{}, 0, time.Now(), func(int64) int64 { return 0 }); ok {
		t.Error("a request without an answer (CORS) is retried")
	}
	if got := chat.WaitText(&chat.EndpointError{Status: 429}, 2500*time.Millisecond, 1, 6); !strings.Contains(got, "429") || !strings.Contains(got, "3 s") {
		t.Errorf("WaitText = %q", got)
	}
}

func TestExplainNoAnswer(t *testing.T) {
	h := chat.ExplainNoAnswer("http://localhost:11434/v1", "https://normgym.example", "TypeError: Failed to fetch")
	for _, want := range []string{"CORS", "OLLAMA_ORIGINS=https://normgym.example", "--allowed-origins", "lms server start --cors", "llama-server --help", "Failed to fetch"} {
		if !strings.Contains(h, want) {
			t.Errorf("the explanation lacks %q", want)
		}
	}
}
