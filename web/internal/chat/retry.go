package chat

import (
	"html"
	"strconv"
	"strings"
	"time"
)

// HTTPResponse is an HTTP answer as a Poster returns it.
type HTTPResponse struct {
	Status int
	Body   []byte
	// RetryAfter is the Retry-After header, "" when absent (or when the
	// endpoint's CORS policy does not expose it).
	RetryAfter string
}

// Retry is the policy for a failed request: the headless harness's
// (serve/llm: `normgym eval --retries 6`, a 1 s backoff doubling up to
// 60 s with equal jitter, Retry-After obeyed up to 5 minutes), so that a
// model run in the browser meets a busy endpoint as eval does. It
// retries 408, 409, 425, 429 and 5xx answers. A request that got no
// answer at all is not retried: in a browser that is most often a CORS
// refusal, which waiting does not cure (ExplainNoAnswer says what to do;
// Resume tries again).
type Retry struct {
	Max       int
	Base, Cap time.Duration
}

// DefaultRetry is eval's default policy.
var DefaultRetry = Retry{Max: 6, Base: time.Second, Cap: time.Minute}

// MaxRetryAfter caps how long a Retry-After header can make the run wait.
const MaxRetryAfter = 5 * time.Minute

// Temporary reports whether an answer with this status is worth retrying.
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
	for _, layout := range []string{time.RFC1123, time.RFC850, time.ANSIC} {
		if t, err := time.Parse(layout, v); err == nil {
			return min(max(t.Sub(now), 0), MaxRetryAfter), true
		}
	}
	return 0, false
}

// Wait decides whether to retry after err, the failure of retry number
// attempt (0-based) of the same request: how long to wait, and false when
// the run should pause instead.
func (p Retry) Wait(err error, attempt int, now time.Time, rnd func(n int64) int64) (time.Duration, bool) {
	e, ok := err.(*EndpointError)
	if !ok || !Temporary(e.Status) || attempt >= p.Max {
		return 0, false
	}
	if d, ok := ParseRetryAfter(e.RetryAfter, now); ok {
		return d, true
	}
	return Backoff(attempt, p.Base, p.Cap, rnd), true
}

// WaitText says on screen why the run waits and for how long.
func WaitText(err error, left time.Duration, attempt, maxAttempts int) string {
	what := "The endpoint failed"
	if e, ok := err.(*EndpointError); ok && e.Status == 429 {
		what = "The endpoint is busy (429: too many requests)"
	} else if ok {
		what = "The endpoint answered " + strconv.Itoa(e.Status)
	}
	secs := int((left + time.Second - 1) / time.Second)
	return what + ". Trying again in " + strconv.Itoa(secs) + " s (retry " + strconv.Itoa(attempt) + " of " + strconv.Itoa(maxAttempts) + ")…"
}

// ExplainNoAnswer is the HTML shown when a request got no HTTP answer
// (fetch's TypeError, "Failed to fetch"): a browser reports a server
// that is down and one whose CORS policy refuses this page the same way,
// so it says how to allow the page on the common local servers. origin
// is the page's origin (location.origin). Each server's setting is the
// one its documentation gives (ollama's FAQ, vLLM's serve arguments, LM
// Studio's `lms server start`); for llama.cpp's server no documented
// CORS setting was found to cite, so it only points to its help.
func ExplainNoAnswer(baseURL, origin, msg string) string {
	esc := html.EscapeString
	var b strings.Builder
	b.WriteString(`<p><strong>No answer from ` + esc(strings.TrimSpace(baseURL)) + `</strong> (` + esc(msg) + `).</p>`)
	b.WriteString(`<p>Either nothing is listening at that address, or the server does not allow requests from this page (CORS): a browser reports both the same way. To allow this page, <code>` + esc(origin) + `</code>:</p><ul class="cors">`)
	b.WriteString(`<li><b>Ollama</b>: start it with <code>OLLAMA_ORIGINS=` + esc(origin) + `</code> set (e.g. <code>OLLAMA_ORIGINS=` + esc(origin) + ` ollama serve</code>).</li>`)
	b.WriteString(`<li><b>vLLM</b>: <code>vllm serve</code> takes <code>--allowed-origins</code>; its default already allows every origin, so with vLLM check the address and port first.</li>`)
	b.WriteString(`<li><b>LM Studio</b>: its server refuses other pages until CORS is enabled: <code>lms server start --cors</code>.</li>`)
	b.WriteString(`<li><b>llama.cpp</b> (<code>llama-server</code>): see <code>llama-server --help</code> for the CORS options of your version, or put a proxy that adds CORS headers in front of it.</li></ul>`)
	b.WriteString(`<p class="hint">A page served over https cannot call a plain http:// address other than localhost. The run is paused at this step: press <b>Resume</b> to try again.</p>`)
	return b.String()
}
