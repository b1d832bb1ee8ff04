package prompt

import "github.com/normgym/normgym/sim"

// Transcript is one visit's exchanges with the model, every reply as the
// endpoint returned it: what `normgym eval` keeps beside each record (one
// JSON line per visit in the sidecar file next to --out) and what the
// transcript viewer replays. It pairs with its record by RunID (the
// record's extra.run_id) and Visit.
//
// The messages each request sent are not kept: they follow from the
// visit, the replies and the record's settings (Conversation), and the
// viewer rebuilds them. A visit whose record cannot be replayed (a private
// suite's, whose id the server never shows) keeps each request's new user
// turn in Prompt instead.
type Transcript struct {
	Visit string `json:"visit"`
	Agent string `json:"agent"`
	// Model is the model the requests named (the record's agent may be a
	// submitter key's label).
	Model string `json:"model"`
	RunID string `json:"run_id"`
	// ResumedAt is how many actions the visit had taken when the model's
	// conversation began (a server's session resumed mid-visit; 0: none).
	ResumedAt int              `json:"resumed_at_action,omitempty"`
	Steps     []TranscriptStep `json:"steps"`
}

// TranscriptStep is one request of a visit and what became of it.
type TranscriptStep struct {
	// Kind is "step", "notes" or "probe".
	Kind string `json:"kind"`
	// Day and Step say where the visit stood when the request was asked.
	Day  int `json:"day"`
	Step int `json:"step"`
	// Prompt is the request's new user turn, kept only when the visit
	// cannot be replayed (see Transcript).
	Prompt string `json:"prompt,omitempty"`
	// Reply is the reply's content as returned; Reasoning the provider's
	// reasoning text, where it sent one.
	Reply        string          `json:"reply"`
	Reasoning    string          `json:"reasoning,omitempty"`
	FinishReason string          `json:"finish_reason,omitempty"`
	Usage        TranscriptUsage `json:"usage"`
	// LatencyMS is the request's wall time, retries and waits included;
	// Attempts the HTTP requests made (0: answered from the cache).
	LatencyMS float64 `json:"latency_ms"`
	Attempts  int     `json:"attempts"`
	Retries   int     `json:"retries"`
	Cached    bool    `json:"cached,omitempty"`
	// Action is what the step sent to the sim ("wait" after a format
	// error; "answer k", 1-based, for a probe answered).
	Action      string `json:"action,omitempty"`
	FormatError bool   `json:"format_error,omitempty"`
	// Events are the visible events of the step the action made: the
	// sanctions that followed it among them.
	Events []sim.Event `json:"events,omitempty"`
}

// TranscriptUsage is a reply's token usage as the endpoint reported it.
type TranscriptUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	// CachedTokens are usage.prompt_tokens_details.cached_tokens, when
	// the endpoint reported them (CacheReported).
	CachedTokens  int  `json:"cached_tokens,omitempty"`
	CacheReported bool `json:"cache_reported,omitempty"`
}

// Add appends exchange ex (as Run hands it to its observer); withPrompt
// keeps its user turn.
func (t *Transcript) Add(ex Exchange, withPrompt bool) {
	r := ex.Reply
	s := TranscriptStep{Kind: string(ex.Kind), Day: ex.Day, Step: ex.Step, Reply: r.Content, Reasoning: r.Reasoning,
		FinishReason: r.FinishReason, LatencyMS: float64(r.Latency.Microseconds()) / 1000, Attempts: r.Attempts,
		Retries: max(r.Attempts-1, 0), Cached: r.Cached, Action: ex.Action, FormatError: ex.FormatError,
		Usage: TranscriptUsage{PromptTokens: r.Usage.PromptTokens, CompletionTokens: r.Usage.CompletionTokens,
			CachedTokens: r.Usage.CachedTokens, CacheReported: r.Usage.CacheReported}}
	if ex.Kind == AskStep {
		s.Events = ex.Turn.Events
	}
	if withPrompt {
		s.Prompt = ex.Prompt
	}
	t.Steps = append(t.Steps, s)
}
