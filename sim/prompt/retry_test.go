package prompt

import (
	"math/rand/v2"
	"testing"
	"time"
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tt := range []struct {
		v    string
		want time.Duration
		ok   bool
	}{
		{"7", 7 * time.Second, true},
		{" 0 ", 0, true},
		{"100000", MaxRetryAfter, true},
		{"Thu, 02 Jan 2025 03:04:15 GMT", 10 * time.Second, true},
		{"Thu, 02 Jan 2025 03:00:00 GMT", 0, true},
		{"Thu, 02 Jan 2025 05:00:00 GMT", MaxRetryAfter, true},
		{"Thursday, 02-Jan-25 03:04:15 GMT", 10 * time.Second, true},
		{"Thu Jan  2 03:04:15 2025", 10 * time.Second, true},
		{"", 0, false},
		{"-3", 0, false},
		{"soon", 0, false},
	} {
		d, ok := ParseRetryAfter(tt.v, now)
		if d != tt.want || ok != tt.ok {
			t.Errorf("ParseRetryAfter(%q) = %v, %v; want %v, %v", tt.v, d, ok, tt.want, tt.ok)
		}
	}
}

func TestBackoff(t *testing.T) {
	base, cap := 100*time.Millisecond, time.Second
	for attempt, want := range []time.Duration{100, 200, 400, 800, 1000, 1000} {
		want *= time.Millisecond
		if lo := Backoff(attempt, base, cap, func(int64) int64 { return 0 }); lo != want/2 {
			t.Errorf("Backoff(%d), least = %v, want %v", attempt, lo, want/2)
		}
		if hi := Backoff(attempt, base, cap, func(n int64) int64 { return n - 1 }); hi != want {
			t.Errorf("Backoff(%d), most = %v, want %v", attempt, hi, want)
		}
		for i := 0; i < 50; i++ {
			if d := Backoff(attempt, base, cap, rand.Int64N); d < want/2 || d > want {
				t.Fatalf("Backoff(%d) = %v, want within [%v, %v]", attempt, d, want/2, want)
			}
		}
	}
}

// TestRetryWait: the one decision of whether and when to send a failed
// request again, under eval's default policy and the browser's (which
// does not retry a request that got no answer).
func TestRetryWait(t *testing.T) {
	now := time.Now()
	half := func(n int64) int64 { return n / 2 }
	browser := DefaultRetry()
	browser.NoAnswer = false
	for _, tc := range []struct {
		name    string
		policy  Retry
		f       Failure
		attempt int
		wait    time.Duration
		ok      bool
	}{
		{"429 with Retry-After", DefaultRetry(), Failure{Status: 429, RetryAfter: "7"}, 0, 7 * time.Second, true},
		{"429 without", DefaultRetry(), Failure{Status: 429}, 0, 750 * time.Millisecond, true},
		{"503, third retry", DefaultRetry(), Failure{Status: 503}, 2, 3 * time.Second, true},
		{"500, retries spent", DefaultRetry(), Failure{Status: 500}, 6, 0, false},
		{"401 is not retried", DefaultRetry(), Failure{Status: 401}, 0, 0, false},
		{"no answer, eval", DefaultRetry(), Failure{}, 1, 1500 * time.Millisecond, true},
		{"malformed 200, eval", DefaultRetry(), Failure{Status: 200}, 0, 750 * time.Millisecond, true},
		{"no answer, browser (CORS)", browser, Failure{}, 0, 0, false},
		{"malformed 200, browser", browser, Failure{Status: 200}, 0, 0, false},
		{"429, browser", browser, Failure{Status: 429, RetryAfter: "1"}, 0, time.Second, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, ok := tc.policy.Wait(tc.f, tc.attempt, now, half)
			if d != tc.wait || ok != tc.ok {
				t.Errorf("Wait = %v, %v; want %v, %v", d, ok, tc.wait, tc.ok)
			}
		})
	}
}
