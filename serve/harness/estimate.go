package harness

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/serve/internal/workers"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/agents"
	"github.com/normgym/normgym/sim/prompt"
)

// charsPerToken is the estimate's tokenizer: four characters of message
// content a token (real tokenizers differ by model, typically within ±25%
// on this text).
const charsPerToken = 4

// Estimate is eval --dry-run's answer: what the run would send, from
// baselines' visits replayed through the same prompt builder
// (prompt.Run) under the run's prompt variant and history options.
type Estimate struct {
	Suite         string `json:"suite"`
	SuiteVersion  string `json:"suite_version"`
	Visits        int    `json:"visits"`
	Prompt        string `json:"prompt"`
	PromptVersion string `json:"prompt_version"`
	BudgetChars   int    `json:"budget_chars"`
	FullReplies   bool   `json:"full_replies"`
	// ReplyTokens is the completion length assumed per reply; MaxTokens
	// the run's cap on it (0: none).
	ReplyTokens int `json:"reply_tokens"`
	MaxTokens   int `json:"max_tokens"`
	// CharsPerToken converts characters of message content to tokens.
	CharsPerToken int                `json:"chars_per_token"`
	Newcomers     []NewcomerEstimate `json:"newcomers"`
	Prices        Prices             `json:"prices"`
}

// Prices are USD per million tokens (0: not given).
type Prices struct {
	Input  float64 `json:"input"`
	Cached float64 `json:"cached"`
	Output float64 `json:"output"`
}

// estimateNewcomers are the baselines replayed: a task-only newcomer (a
// typical visit's length) and one that only waits (the longest visits,
// every step of both days: the worst case).
var estimateNewcomers = []string{"greedy", "wait"}

// NewcomerEstimate is the run's cost if the model played as this
// baseline does.
type NewcomerEstimate struct {
	Newcomer string `json:"newcomer"`
	Requests int    `json:"requests"`
	// PromptChars sums the requests' message contents; UnsharedChars the
	// characters of each outside the prefix shared with the visit's
	// previous request; MaxRequestChars is the largest request.
	PromptChars     int `json:"prompt_chars"`
	UnsharedChars   int `json:"unshared_chars"`
	MaxRequestChars int `json:"max_request_chars"`
	// MaxVisitChars is the largest visit's PromptChars, MaxVisit its id.
	MaxVisitChars int    `json:"max_visit_chars"`
	MaxVisit      string `json:"max_visit"`
	// PromptTokens without caching; with prefix caching, CachedTokens of
	// them are read from the cache and UncachedTokens processed in full.
	PromptTokens   int `json:"prompt_tokens"`
	CachedTokens   int `json:"cached_prompt_tokens"`
	UncachedTokens int `json:"uncached_prompt_tokens"`
	// CompletionTokens at ReplyTokens a reply; MaxCompletionTokens at
	// MaxTokens.
	CompletionTokens    int `json:"completion_tokens"`
	MaxCompletionTokens int `json:"max_completion_tokens"`
	// TrimmedVisits counts visits where the budget trimmed the history.
	TrimmedVisits int `json:"trimmed_visits"`
	// USD and USDCached are the costs without and with prefix caching
	// (0 without prices).
	USD       float64 `json:"usd"`
	USDCached float64 `json:"usd_cached"`
}

// EstimateRun replays the baselines' visits of visits through the model
// loop (prompt.Run, over the native core) under s on workers goroutines,
// calling progress after each visit.
func EstimateRun(ctx context.Context, visits []string, s Settings, replyTokens, parallel int, progress func()) (*Estimate, error) {
	est := &Estimate{Visits: len(visits), Prompt: string(s.Variant), PromptVersion: prompt.PromptVersion,
		BudgetChars: s.Options.Budget, FullReplies: s.Options.FullReplies, ReplyTokens: replyTokens, MaxTokens: s.MaxTokens,
		CharsPerToken: charsPerToken}
	per := make([][]prompt.History, len(estimateNewcomers))
	for k := range per {
		per[k] = make([]prompt.History, len(visits))
	}
	var mu sync.Mutex
	err := workers.ForEach(ctx, len(visits), parallel, func(ctx context.Context, i int) error {
		for k, name := range estimateNewcomers {
			h, err := replayCost(ctx, visits[i], name, s, replyTokens)
			if err != nil {
				return fmt.Errorf("%s: %w", visits[i], err)
			}
			per[k][i] = h
		}
		mu.Lock()
		progress()
		mu.Unlock()
		return nil
	})
	if err != nil {
		return nil, err
	}
	for k, name := range estimateNewcomers {
		n := NewcomerEstimate{Newcomer: name}
		for i, h := range per[k] {
			if h.SentChars > n.MaxVisitChars {
				n.MaxVisitChars, n.MaxVisit = h.SentChars, visits[i]
			}
			n.Requests += h.Requests
			n.PromptChars += h.SentChars
			n.UnsharedChars += h.UnsharedChars
			n.MaxRequestChars = max(n.MaxRequestChars, h.MaxRequestChars)
			if len(h.Trims) > 0 {
				n.TrimmedVisits++
			}
		}
		n.PromptTokens = n.PromptChars / charsPerToken
		n.UncachedTokens = n.UnsharedChars / charsPerToken
		n.CachedTokens = n.PromptTokens - n.UncachedTokens
		n.CompletionTokens = n.Requests * replyTokens
		n.MaxCompletionTokens = n.Requests * s.MaxTokens
		est.Newcomers = append(est.Newcomers, n)
	}
	return est, ctx.Err()
}

// replayCost plays visit id as the newcomer called name (a baseline, or
// "wait") through the model loop, the model replying with the baseline's
// action after replyTokens' worth of reasoning, and returns what the
// conversation sent.
func replayCost(ctx context.Context, id, name string, s Settings, replyTokens int) (prompt.History, error) {
	var acts []string
	if name != "wait" {
		cat := s.Catalog
		if cat == nil {
			cat = norms.Default()
		}
		v, err := agents.PlayIn(cat, id, name)
		if err != nil {
			return prompt.History{}, err
		}
		acts = v.Actions()
	}
	filler := strings.Repeat("x", max(replyTokens*charsPerToken-20, 0)) + "\n"
	step := 0
	chat := func(_ context.Context, req prompt.Request) (prompt.Reply, error) {
		switch req.Kind {
		case prompt.AskNotes:
			return prompt.Reply{Content: filler[:min(len(filler), prompt.MaxNotes)]}, nil
		case prompt.AskProbe:
			return prompt.Reply{Content: filler + "ANSWER: 1"}, nil
		}
		a := sim.Wait
		if step < len(acts) {
			a = acts[step]
		}
		step++
		return prompt.Reply{Content: filler + "ACTION: " + a}, nil
	}
	_, x, err := prompt.Run(ctx, &sim.Native{Catalog: s.Catalog}, id, s.Prompt(name, ""), chat, nil)
	if err != nil {
		return prompt.History{}, err
	}
	return x.History, nil
}

// Print writes the estimate as a table, with the assumptions above it.
func (e *Estimate) Print(w io.Writer) error {
	replies := "replies cut to their ACTION line in later requests"
	if e.FullReplies {
		replies = "replies kept whole"
	}
	budget := "no budget"
	if e.BudgetChars > 0 {
		budget = fmt.Sprintf("budget %d characters", e.BudgetChars)
	}
	fmt.Fprintf(w, "eval --dry-run: suite %s@%s · %d visits · prompt %s (version %s) · %s · %s\n",
		e.Suite, e.SuiteVersion, e.Visits, e.Prompt, e.PromptVersion, budget, replies)
	fmt.Fprintf(w, "Replays the visits of a task-only newcomer (greedy) and of one that only waits (every step of both days,\n"+
		"the worst case) through the same prompt builder. Tokens are characters of message content / %d; completion\n"+
		"tokens assume %d a reply (--reply-tokens). \"cached\" is the prefix each request shares with the visit's previous\n"+
		"one, which providers with automatic prefix caching bill at a discount (most cache only prompts of 1,024 tokens or more).\n\n",
		e.CharsPerToken, e.ReplyTokens)
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "newcomer\trequests\tprompt tokens\tof them uncached\tcompletion tokens\tper visit: prompt\tuncached\tlargest visit\tlargest request (chars)\ttrimmed visits\t\n")
	for _, n := range e.Newcomers {
		v := float64(max(e.Visits, 1))
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t\n", n.Newcomer, n.Requests, human(n.PromptTokens), human(n.UncachedTokens),
			human(n.CompletionTokens), human(int(float64(n.PromptTokens)/v)), human(int(float64(n.UncachedTokens)/v)),
			human(n.MaxVisitChars/e.CharsPerToken), n.MaxRequestChars, n.TrimmedVisits)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if e.MaxTokens > 0 {
		fmt.Fprintf(w, "\nAt most --max-tokens %d a reply: up to %s completion tokens (greedy).\n", e.MaxTokens, human(e.Newcomers[0].MaxCompletionTokens))
	}
	p := e.Prices
	if p.Input > 0 || p.Output > 0 {
		fmt.Fprintf(w, "\nAt $%g / $%g cached / $%g output per million tokens:\n", p.Input, p.Cached, p.Output)
		for i := range e.Newcomers {
			n := &e.Newcomers[i]
			n.USD = (float64(n.PromptTokens)*p.Input + float64(n.CompletionTokens)*p.Output) / 1e6
			n.USDCached = (float64(n.UncachedTokens)*p.Input + float64(n.CachedTokens)*p.Cached + float64(n.CompletionTokens)*p.Output) / 1e6
			fmt.Fprintf(w, "  %-7s $%.2f without prefix caching, $%.2f with prefix caching\n", n.Newcomer, n.USD, n.USDCached)
		}
	}
	return nil
}

// human writes a count with a k/M suffix.
func human(n int) string {
	switch {
	case n >= 10_000_000:
		return fmt.Sprintf("%.0fM", float64(n)/1e6)
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 10_000:
		return fmt.Sprintf("%.0fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}
