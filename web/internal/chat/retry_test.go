//go:build !js

package chat_test

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/normgym/normgym/serve/llm"
	"github.com/normgym/normgym/web/internal/chat"
)

// TestBackoffMatchesEval checks that the browser waits as the headless
// harness does: the same range for every attempt (serve/llm.Backoff).
func TestBackoffMatchesEval(t *testing.T) {
	lo := func(int64) int64 { return 0 }
	for attempt := 0; attempt < 9; attempt++ {
		minB, maxB := time.Duration(1<<62), time.Duration(0)
		for i := 0; i < 400; i++ {
			d := llm.Backoff(attempt, time.Second, time.Minute)
			minB, maxB = min(minB, d), max(maxB, d)
		}
		got := chat.Backoff(attempt, time.Second, time.Minute, lo)
		hi := chat.Backoff(attempt, time.Second, time.Minute, func(n int64) int64 { return n - 1 })
		if got > minB || hi < maxB || hi > time.Minute {
			t.Errorf("attempt %d: browser waits %v..%v, eval waited %v..%v", attempt, got, hi, minB, maxB)
		}
		if r := chat.Backoff(attempt, time.Second, time.Minute, rand.Int64N); r < got || r > hi {
			t.Errorf("attempt %d: %v outside %v..%v", attempt, r, got, hi)
		}
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, v := range []string{"", "3", " 120 ", "-1", "99999", "soon", "Sun, 01 Mar 2026 12:00:30 GMT", "Sun, 01 Mar 2026 11:00:00 GMT"} {
		d1, ok1 := chat.ParseRetryAfter(v, now)
		d2, ok2 := llm.ParseRetryAfter(v, now)
		if d1 != d2 || ok1 != ok2 {
			t.Errorf("ParseRetryAfter(%q) = %v, %v; eval reads %v, %v", v, d1, ok1, d2, ok2)
		}
	}
}

func TestRetryWait(t *testing.T) {
	now := time.Now()
	half := func(n int64) int64 { return n / 2 }
	for _, tc := range []struct {
		name    string
		err     error
		attempt int
		wait    time.Duration
		ok      bool
	}{
		{"429 with Retry-After", &chat.EndpointError{Status: 429, RetryAfter: "7"}, 0, 7 * time.Second, true},
		{"429 without", &chat.EndpointError{Status: 429}, 0, 750 * time.Millisecond, true},
		{"503, third retry", &chat.EndpointError{Status: 503}, 2, 3 * time.Second, true},
		{"500, retries spent", &chat.EndpointError{Status: 500}, 6, 0, false},
		{"401 is not retried", &chat.EndpointError{Status: 401}, 0, 0, false},
		{"no answer (CORS) is not retried", &chat.EndpointError{Message: "TypeError: Failed to fetch"}, 0, 0, false},
		{"another error", errors.New("sim"), 0, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, ok := chat.DefaultRetry.Wait(tc.err, tc.attempt, now, half)
			if d != tc.wait || ok != tc.ok {
				t.Errorf("Wait = %v, %v; want %v, %v", d, ok, tc.wait, tc.ok)
			}
		})
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
