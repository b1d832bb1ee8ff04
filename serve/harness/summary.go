package harness

import (
	"fmt"
	"io"

	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/prompt"
	"github.com/normgym/normgym/sim/report"
)

// Summary is a model run's summary: report's, plus the run's figures.
type Summary struct {
	report.Summary
	Eval Stats `json:"eval"`
}

// Stats are a model run's figures beside its scores.
type Stats struct {
	Model    string `json:"model"`
	Endpoint string `json:"endpoint"`
	Prompt   string `json:"prompt"`
	// Steps counts actions; FormatErrors those played as wait because the
	// reply had no valid ACTION line.
	Steps           int           `json:"steps"`
	FormatErrors    int           `json:"format_errors"`
	FormatErrorRate float64       `json:"format_error_rate"`
	ProbeAsked      int           `json:"probe_asked"`
	ProbeUnanswered int           `json:"probe_unanswered"`
	Usage           prompt.Totals `json:"usage"`
	// MeanLatencyMS is over requests not answered from the cache.
	MeanLatencyMS float64 `json:"mean_latency_ms"`
	// Visits counts the records with eval's usage; PerVisit is Usage
	// divided by it.
	Visits   int      `json:"visits"`
	PerVisit PerVisit `json:"per_visit"`
	// CachedShare is the endpoint-reported cached share of the prompt
	// tokens of the requests that reported one (null: none did).
	CachedShare *float64 `json:"cached_share"`
	// Trimmed counts visits where the context budget trimmed the history.
	Trimmed int `json:"trimmed"`
	// Resumed counts visits taken from --out rather than run.
	Resumed int `json:"resumed"`
}

// PerVisit are a run's mean figures per visit.
type PerVisit struct {
	Requests         float64 `json:"requests"`
	PromptTokens     float64 `json:"prompt_tokens"`
	CompletionTokens float64 `json:"completion_tokens"`
	RequestBytes     float64 `json:"request_bytes"`
	UnsharedBytes    float64 `json:"unshared_bytes"`
}

// Summarize sums up the records of model at endpoint under variant v,
// resumed of which came from the results file rather than this run.
func Summarize(recs []sim.Record, model, endpoint string, v prompt.Variant, resumed int) Summary {
	s := Stats{Model: model, Endpoint: endpoint, Prompt: string(v), Resumed: resumed}
	var reportedPrompt int
	for _, r := range recs {
		s.Steps += len(r.Actions)
		x, ok := prompt.ReadExtra(r.Extra)
		if !ok {
			continue
		}
		s.Visits++
		s.FormatErrors += x.FormatErrors
		s.Usage.Add(x.Usage)
		if x.Usage.CacheReported > 0 {
			for _, l := range x.StepLog {
				reportedPrompt += l.In
			}
		}
		if len(x.History.Trims) > 0 {
			s.Trimmed++
		}
		if r.Probe != nil || x.ProbeFormatError {
			s.ProbeAsked++
		}
		if x.ProbeFormatError {
			s.ProbeUnanswered++
		}
	}
	if s.Steps > 0 {
		s.FormatErrorRate = float64(s.FormatErrors) / float64(s.Steps)
	}
	if n := s.Usage.Requests - s.Usage.Cached; n > 0 {
		s.MeanLatencyMS = s.Usage.LatencyMS / float64(n)
	}
	if n := float64(s.Visits); n > 0 {
		u := s.Usage
		s.PerVisit = PerVisit{Requests: float64(u.Requests) / n, PromptTokens: float64(u.PromptTokens) / n,
			CompletionTokens: float64(u.CompletionTokens) / n, RequestBytes: float64(u.RequestBytes) / n,
			UnsharedBytes: float64(u.UnsharedBytes) / n}
	}
	if s.Usage.CacheReported > 0 && reportedPrompt > 0 {
		share := float64(s.Usage.CachedPromptTokens) / float64(reportedPrompt)
		s.CachedShare = &share
	}
	sum := report.SummarizeAgent(model, recs)
	return Summary{Summary: sum, Eval: s}
}

// Print writes the run's figures below the scores table.
func (s Stats) Print(w io.Writer) {
	fmt.Fprintf(w, "\nformat errors: %d of %d steps (%.2f%%) · probe unanswered: %d of %d\n",
		s.FormatErrors, s.Steps, 100*s.FormatErrorRate, s.ProbeUnanswered, s.ProbeAsked)
	fmt.Fprintf(w, "requests: %d (%d from cache, %d retries) · tokens: %d prompt + %d completion · mean latency %.0f ms\n",
		s.Usage.Requests, s.Usage.Cached, s.Usage.Retries, s.Usage.PromptTokens, s.Usage.CompletionTokens, s.MeanLatencyMS)
	if s.Visits == 0 {
		return
	}
	p := s.PerVisit
	cached := "the endpoint reported no cached tokens"
	if s.CachedShare != nil {
		cached = fmt.Sprintf("%.0f%% of them cached, as the endpoint reported", 100**s.CachedShare)
	}
	fmt.Fprintf(w, "per visit: %.0f requests · %.0f prompt tokens (%s) + %.0f completion tokens\n",
		p.Requests, p.PromptTokens, cached, p.CompletionTokens)
	fmt.Fprintf(w, "per visit: %.2f MB of requests, %.2f MB outside the prefix shared with the previous request (≈ %.0f tokens at chars/4)",
		p.RequestBytes/1e6, p.UnsharedBytes/1e6, p.UnsharedBytes/4)
	if s.Trimmed > 0 {
		fmt.Fprintf(w, " · context budget trimmed %d of %d visits", s.Trimmed, s.Visits)
	}
	fmt.Fprintln(w)
}
