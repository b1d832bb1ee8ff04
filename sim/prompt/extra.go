package prompt

import (
	"encoding/json"
	"math"
	"strings"
)

// Extra is what a model's record carries in extra, the same from `normgym
// eval` and from the browser's model mode: how the visit was played
// (model, endpoint, prompt and its version, sampling, history), what it
// cost, what broke the reply format, and every request in order.
type Extra struct {
	Model         string   `json:"model"`
	Endpoint      string   `json:"endpoint"` // host[:port] only
	Prompt        string   `json:"prompt"`
	PromptVersion string   `json:"prompt_version"`
	History       History  `json:"history"`
	Sampling      Sampling `json:"sampling"`
	Usage         Totals   `json:"usage"`
	FormatErrors  int      `json:"format_errors"`
	// ProbeFormatError reports a probe reply without a valid ANSWER line
	// (the probe is then unanswered).
	ProbeFormatError bool `json:"probe_format_error,omitempty"`
	// FormatErrorReplies are the first replies that broke the format, cut.
	FormatErrorReplies []string  `json:"format_error_replies,omitempty"`
	Notes              []string  `json:"notes,omitempty"`
	StepLog            []StepLog `json:"step_log"`
	// RunID is the idempotency key used if the record is submitted (eval's).
	RunID string `json:"run_id,omitempty"`
	// App names the client that played, when not the command line
	// ("normgym-web").
	App string `json:"app,omitempty"`
}

// Sampling are the requests' sampling settings.
type Sampling struct {
	Temperature *float64 `json:"temperature"` // null: the endpoint's default
	MaxTokens   int      `json:"max_tokens"`  // 0: not sent
}

// StepLog is one request of a visit in extra.step_log.
type StepLog struct {
	// Kind is "" for an action, "notes" or "probe".
	Kind        string  `json:"kind,omitempty"`
	In          int     `json:"in"`  // prompt tokens
	Out         int     `json:"out"` // completion tokens
	MS          float64 `json:"ms"`  // latency, retries included
	Cached      bool    `json:"cached,omitempty"`
	Retries     int     `json:"retries,omitempty"`
	FormatError bool    `json:"format_error,omitempty"`
}

// Totals sum a visit's (or a run's) requests.
type Totals struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
	// CachedPromptTokens are the prompt tokens the endpoint reported as
	// read from its prompt cache (usage.prompt_tokens_details.cached_tokens);
	// CacheReported counts the answers that carried that field.
	CachedPromptTokens int     `json:"cached_prompt_tokens"`
	CacheReported      int     `json:"cache_reported"`
	Requests           int     `json:"requests"`
	Cached             int     `json:"cached"`
	Retries            int     `json:"retries"`
	LatencyMS          float64 `json:"latency_ms"`
	// RequestBytes sums the request bodies sent (Request.Body);
	// UnsharedBytes the bytes of each body outside its common prefix
	// with the visit's previous one: what a prefix-caching provider
	// processes in full.
	RequestBytes  int `json:"request_bytes"`
	UnsharedBytes int `json:"unshared_bytes"`
}

// Add adds v to u.
func (u *Totals) Add(v Totals) {
	u.PromptTokens += v.PromptTokens
	u.CompletionTokens += v.CompletionTokens
	u.TotalTokens += v.TotalTokens
	u.CachedPromptTokens += v.CachedPromptTokens
	u.CacheReported += v.CacheReported
	u.Requests += v.Requests
	u.Cached += v.Cached
	u.Retries += v.Retries
	u.LatencyMS = RoundMS(u.LatencyMS + v.LatencyMS)
	u.RequestBytes += v.RequestBytes
	u.UnsharedBytes += v.UnsharedBytes
}

// RoundMS rounds milliseconds to the microsecond.
func RoundMS(ms float64) float64 { return math.Round(ms*1000) / 1000 }

// kept bounds the replies kept in FormatErrorReplies, and their size.
const (
	keptBadReplies   = 5
	keptBadReplySize = 500
)

// add logs request r of the kind (its body bytes, unshared of them
// outside the previous request's).
func (x *Extra) add(kind Kind, r Reply, bytes, unshared int) {
	k := string(kind)
	if kind == AskStep {
		k = ""
	}
	l := StepLog{Kind: k, In: r.Usage.PromptTokens, Out: r.Usage.CompletionTokens,
		MS: float64(r.Latency.Microseconds()) / 1000, Cached: r.Cached, Retries: max(r.Attempts-1, 0)}
	x.StepLog = append(x.StepLog, l)
	u := &x.Usage
	u.PromptTokens += r.Usage.PromptTokens
	u.CompletionTokens += r.Usage.CompletionTokens
	u.TotalTokens += r.Usage.TotalTokens
	if r.Usage.CacheReported {
		u.CachedPromptTokens += r.Usage.CachedTokens
		u.CacheReported++
	}
	u.RequestBytes += bytes
	u.UnsharedBytes += unshared
	u.Requests++
	u.Retries += l.Retries
	u.LatencyMS = RoundMS(u.LatencyMS + l.MS)
	if r.Cached {
		u.Cached++
	}
}

// formatError notes that the last request's reply broke the format.
func (x *Extra) formatError(reply string) {
	x.FormatErrors++
	x.StepLog[len(x.StepLog)-1].FormatError = true
	if len(x.FormatErrorReplies) < keptBadReplies {
		if len(reply) > keptBadReplySize {
			reply = strings.ToValidUTF8(reply[:keptBadReplySize], "") + "…"
		}
		x.FormatErrorReplies = append(x.FormatErrorReplies, reply)
	}
}

// Map is x as a record's Extra.
func (x *Extra) Map() (map[string]any, error) {
	b, err := json.Marshal(x)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	return m, json.Unmarshal(b, &m)
}

// ReadExtra decodes a model's extra from a record's Extra (ok is false for
// a record that has none: no extra.prompt).
func ReadExtra(extra map[string]any) (Extra, bool) {
	var x Extra
	if extra == nil {
		return x, false
	}
	b, err := json.Marshal(extra)
	if err != nil || json.Unmarshal(b, &x) != nil || x.Prompt == "" {
		return x, false
	}
	return x, true
}

// commonPrefix returns the length of the longest common prefix of a and b.
func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}
