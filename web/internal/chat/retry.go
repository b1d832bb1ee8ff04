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
