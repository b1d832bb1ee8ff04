package cli

import (
	"encoding/json"
	"math"
	"strings"

	"github.com/normgym/normgym/serve/llm"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/prompt"
)

// stepLog is one request of a visit in a record's extra.step_log.
type stepLog struct {
	// Kind is "" for an action, "notes" or "probe".
	Kind        string  `json:"kind,omitempty"`
	In          int     `json:"in"`  // prompt tokens
	Out         int     `json:"out"` // completion tokens
	MS          float64 `json:"ms"`  // latency, retries included
	Cached      bool    `json:"cached,omitempty"`
	Retries     int     `json:"retries,omitempty"`
	FormatError bool    `json:"format_error,omitempty"`
}

// usageTotals sums a visit's (or a run's) requests.
type usageTotals struct {
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
	// RequestBytes sums the request bodies sent (llm.Request.Body);
	// UnsharedBytes the bytes of each body outside its common prefix
	// with the visit's previous one: what a prefix-caching provider
	// processes in full.
	RequestBytes  int `json:"request_bytes"`
	UnsharedBytes int `json:"unshared_bytes"`
}

func (u *usageTotals) add(v usageTotals) {
	u.PromptTokens += v.PromptTokens
	u.CompletionTokens += v.CompletionTokens
	u.TotalTokens += v.TotalTokens
	u.CachedPromptTokens += v.CachedPromptTokens
	u.CacheReported += v.CacheReported
	u.Requests += v.Requests
	u.Cached += v.Cached
	u.Retries += v.Retries
	u.LatencyMS = roundMS(u.LatencyMS + v.LatencyMS)
	u.RequestBytes += v.RequestBytes
	u.UnsharedBytes += v.UnsharedBytes
}

// roundMS rounds milliseconds to the microsecond.
func roundMS(ms float64) float64 { return math.Round(ms*1000) / 1000 }

// evalExtra is what eval puts in a record's Extra.
type evalExtra struct {
	Model         string         `json:"model"`
	Endpoint      string         `json:"endpoint"` // host[:port] only
	Prompt        string         `json:"prompt"`
	PromptVersion string         `json:"prompt_version"`
	History       prompt.History `json:"history"`
	Sampling      struct {
		Temperature *float64 `json:"temperature"` // null: the endpoint's default
		MaxTokens   int      `json:"max_tokens"`  // 0: not sent
	} `json:"sampling"`
	Usage            usageTotals `json:"usage"`
	FormatErrors     int         `json:"format_errors"`
	ProbeFormatError bool        `json:"probe_format_error,omitempty"`
	// FormatErrorReplies are the first replies that broke the format, cut.
	FormatErrorReplies []string  `json:"format_error_replies,omitempty"`
	Notes              []string  `json:"notes,omitempty"`
	StepLog            []stepLog `json:"step_log"`
	// RunID is the idempotency key used if the record is submitted.
	RunID string `json:"run_id"`
}

const (
	keptBadReplies   = 5
	keptBadReplySize = 500
)

func (x *evalExtra) add(kind string, r llm.Reply, bytes, unshared int) {
	l := stepLog{Kind: kind, In: r.Usage.PromptTokens, Out: r.Usage.CompletionTokens,
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
	u.LatencyMS = roundMS(u.LatencyMS + l.MS)
	if r.Cached {
		u.Cached++
	}
}

func (x *evalExtra) formatError(reply string) {
	x.FormatErrors++
	x.StepLog[len(x.StepLog)-1].FormatError = true
	if len(x.FormatErrorReplies) < keptBadReplies {
		if len(reply) > keptBadReplySize {
			reply = strings.ToValidUTF8(reply[:keptBadReplySize], "") + "…"
		}
		x.FormatErrorReplies = append(x.FormatErrorReplies, reply)
	}
}

// readExtra decodes eval's extra from a record.
func readExtra(r sim.Record) (evalExtra, bool) {
	var x evalExtra
	if r.Extra == nil {
		return x, false
	}
	b, err := json.Marshal(r.Extra)
	if err != nil || json.Unmarshal(b, &x) != nil || x.Prompt == "" {
		return x, false
	}
	return x, true
}
