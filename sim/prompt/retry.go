package prompt

import (
	"strconv"
	"strings"
	"time"
)

// Retry is the one policy for a request that failed, used by the headless
// harness (serve/llm) and the browser's model mode (web/internal/chat): a
// pure decision, from what the request got, of whether to send it again
// and when. Answers 408, 409, 425, 429 and 5xx are retried, after the
// answer's Retry-After (up to MaxRetryAfter) or else a backoff from Base
// doubling up to Cap, of which the second half is random (equal jitter),
// so that concurrent callers spread out but none retries at once.
type Retry struct {
	// Max is how many times one request is retried.
	Max int
	// Base is the first backoff, Cap the largest.
	Base, Cap time.Duration
	// NoAnswer retries a request that got no usable answer: no HTTP
	// answer at all (a network error, a timeout) or a 2xx that is not a
	// chat completion. `normgym eval` does; the browser does not, since
	// there a request without an answer is most often refused by the
	// endpoint's CORS policy, which waiting does not cure.
	NoAnswer bool
}

// DefaultRetry is `normgym eval`'s default policy (--retries 6, --backoff
// 1s): 6 retries, 1 s doubling to 60 s.
func DefaultRetry() Retry { return Retry{Max: 6, Base: time.Second, Cap: time.Minute, NoAnswer: true} }

// MaxRetryAfter caps how long a Retry-After header can make a request
// wait.
const MaxRetryAfter = 5 * time.Minute

// Failure is what a failed request got: the HTTP status of its answer (0
// for none) and the answer's Retry-After header ("" for none).
type Failure struct {
	Status     int
	RetryAfter string
}

// Wait decides whether to retry after f, the failure of retry number
// attempt (0-based; 0 for the first sending) of one request: how long to
// wait first, and false when the request should not be sent again. rnd(n)
// returns a uniform integer in [0, n); now reads Retry-After's dates.
func (p Retry) Wait(f Failure, attempt int, now time.Time, rnd func(n int64) int64) (time.Duration, bool) {
	if attempt >= p.Max {
		return 0, false
	}
	switch {
	case f.Status == 0 || f.Status/100 == 2:
		if !p.NoAnswer {
			return 0, false
		}
	case !Temporary(f.Status):
		return 0, false
	}
	if d, ok := ParseRetryAfter(f.RetryAfter, now); ok {
		return d, true
	}
	return Backoff(attempt, p.Base, p.Cap, rnd), true
}

// Temporary reports whether an answer with this status is worth retrying:
// 408, 409, 425, 429 and 5xx.
func Temporary(status int) bool {
	switch status {
	case 408, 409, 425, 429:
		return true
	}
	return status >= 500
}

// Backoff is the wait before retry number attempt (0-based): base doubled
// per attempt up to max, of which the second half is random (rnd(n)
// returns a uniform integer in [0, n)).
func Backoff(attempt int, base, max time.Duration, rnd func(n int64) int64) time.Duration {
	d := base
	for i := 0; i < attempt && d < max; i++ {
		d *= 2
	}
	d = min(d, max)
	half := d / 2
	if half <= 0 {
		return d
	}
	return half + time.Duration(rnd(int64(half)+1))
}

// ParseRetryAfter reads a Retry-After header: delay-seconds or an HTTP
// date (relative to now; a past date means no wait), capped at
// MaxRetryAfter. ok is false for an empty or unreadable value.
func ParseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n < 0 {
			return 0, false
		}
		if n > int64(MaxRetryAfter/time.Second) {
			return MaxRetryAfter, true
		}
		return time.Duration(n) * time.Second, true
	}
	// The HTTP date's three forms (RFC 9110, section 5.6.7), as
	// net/http.ParseTime reads them.
	for _, layout := range []string{"Mon, 02 Jan 2006 15:04:05 GMT", time.RFC850, time.ANSIC} {
		if t, err := time.Parse(layout, v); err == nil {
			return min(max(t.Sub(now), 0), MaxRetryAfter), true
		}
	}
	return 0, false
}
