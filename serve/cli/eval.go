package cli

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/normgym/normgym/serve/llm"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/prompt"
	"github.com/normgym/normgym/sim/report"
	"github.com/normgym/normgym/wasm/host"
)

func init() {
	commands["eval"] = command{"run a language model (any OpenAI-compatible endpoint) over a suite", cmdEval}
}

// maxParallel bounds --parallel: the wasm engine holds at most 256 open
// visits per instance.
const maxParallel = 256

func cmdEval(e *env) error {
	fs := e.flags("eval", "--model NAME --base-url URL --suite S [flags]",
		"Runs a language model as the newcomer over a suite, one chat request per step, through any\n"+
			"OpenAI-compatible chat-completions endpoint (\"<base-url>/chat/completions\"). Steps run in the\n"+
			"sim.wasm module (or the native core with --native). The prompts, history policy and reply format\n"+
			"are documented in sim/prompt/PROMPTS.md. The API key is read from the environment variable named by\n"+
			"--api-key-env, never from a flag.\n\n"+
			"--dry-run sends nothing: it prints what the run would cost (requests, prompt and completion tokens,\n"+
			"with and without prefix caching), from baselines' visits replayed through the same prompt builder.\n\n"+
			"Records (one per finished visit, in the format of normgym run) go to --out as each visit finishes.\n"+
			"Re-running with the same --out skips the visits already there and runs the rest; with the request\n"+
			"cache on, re-asked requests cost nothing. A results file holds one run's settings: resuming under\n"+
			"another prompt, prompt version, sim, sampling or history budget is refused.")
	model := fs.String("model", "", "model name sent to the endpoint; also the records' agent name (required)")
	baseURL := fs.String("base-url", "", "endpoint base URL, e.g. http://localhost:8000/v1 or https://api.openai.com/v1 (required)")
	keyEnv := fs.String("api-key-env", "OPENAI_API_KEY", "environment variable holding the API key (unset or empty: no key is sent)")
	sel := addVisitFlags(fs, "mini", "run")
	variantName := fs.String("prompt", string(prompt.Plain), "prompt variant: plain, norm-aware or reflect")
	parallel := fs.Int("parallel", 8, "visits run at once")
	out := fs.String("out", "", "JSON Lines file of records: appended to as visits finish, and resumed from")
	asJSON := fs.Bool("json", false, "print the summary (or the --dry-run estimate) as JSON")
	submit := fs.String("submit", "", "after the run, submit the records to the NormGym server at this URL")
	native := fs.Bool("native", false, "run the native Go core instead of sim.wasm")
	maxTokens := fs.Int("max-tokens", 1024, "max_tokens per reply (0: not sent)")
	temperature := fs.Float64("temperature", 0, "sampling temperature (negative: not sent, the endpoint's default)")
	timeout := fs.Duration("timeout", 2*time.Minute, "time limit of each HTTP request")
	retries := fs.Int("retries", 6, "retries of a request after 429, 5xx, network errors, timeouts or malformed answers")
	backoff := fs.Duration("backoff", time.Second, "first retry delay; doubles each retry (max 60s), with jitter; Retry-After overrides it")
	cacheDir := fs.String("cache", "", "request cache directory (default: <user cache dir>/normgym/llm; \"off\" disables it)")
	budget := fs.Int("context-budget", prompt.DefaultBudget, "safety cap on the characters of message content per request: beyond it the oldest steps are\ncollapsed into a summary that keeps every sanction (0: no cap; no standard visit reaches the default)")
	fullReplies := fs.Bool("full-replies", false, "keep the model's earlier replies whole (default: cut to their ACTION line)")
	dryRun := fs.Bool("dry-run", false, "send nothing: print the expected requests and tokens of this run and exit")
	replyTokens := fs.Int("reply-tokens", 150, "with --dry-run: completion tokens assumed per reply")
	priceIn := fs.Float64("price-input", 0, "with --dry-run: USD per million prompt tokens (0: no cost printed)")
	priceCached := fs.Float64("price-cached", 0, "with --dry-run: USD per million cached prompt tokens")
	priceOut := fs.Float64("price-output", 0, "with --dry-run: USD per million completion tokens")
	pos, err := e.parse(fs)
	if err != nil {
		return err
	}
	switch {
	case len(pos) > 0:
		return usageError("eval takes no arguments, got %q", pos[0])
	case *model == "" && !*dryRun:
		return usageError("eval needs --model")
	case *baseURL == "" && !*dryRun:
		return usageError("eval needs --base-url, as in http://localhost:8000/v1")
	case *parallel < 1 || *parallel > maxParallel:
		return usageError("--parallel must be 1 to %d", maxParallel)
	case *keyEnv == "":
		return usageError("--api-key-env must name an environment variable")
	case *budget < 0 || *maxTokens < 0 || *retries < 0 || *timeout <= 0:
		return usageError("--context-budget, --max-tokens and --retries must not be negative, --timeout must be positive")
	case *replyTokens < 0 || *priceIn < 0 || *priceCached < 0 || *priceOut < 0:
		return usageError("--reply-tokens and the prices must not be negative")
	}
	variant, err := prompt.ParseVariant(*variantName)
	if err != nil {
		return usageError("%v", err)
	}
	suite, visits, err := sel.resolve()
	if err != nil {
		return err
	}
	var temp *float64
	if *temperature >= 0 {
		temp = temperature
	}
	opt := prompt.Options{Budget: *budget, FullReplies: *fullReplies}
	settings := runSettings{variant: variant, opt: opt, temperature: temp, maxTokens: *maxTokens}

	// Resume: the visits of this model already in --out are done, if they
	// were made under this run's settings.
	var have []sim.Record
	if *out != "" {
		if have, err = loadResults(*out, e, !*dryRun); err != nil {
			return err
		}
	}
	want := make(map[string]bool, len(visits))
	for _, v := range visits {
		want[v] = true
	}
	done := map[string]bool{}
	var recs []sim.Record
	for _, r := range have {
		if r.Agent != *model || r.Client != "model" || !want[r.Visit] || done[r.Visit] {
			continue
		}
		done[r.Visit] = true
		recs = append(recs, r)
	}
	prior := len(recs)
	var todo []string
	for _, v := range visits {
		if !done[v] {
			todo = append(todo, v)
		}
	}
	if *dryRun {
		if err := settings.check(recs, "", *out); err != nil {
			return err
		}
		if prior > 0 {
			fmt.Fprintf(e.stderr, "normgym: %d of %d visits already in %s; estimating the other %d\n", prior, len(visits), *out, len(todo))
		}
		est, err := estimateRun(e.ctx, todo, settings, *replyTokens, runtime.GOMAXPROCS(0), e.stderr)
		if err != nil {
			return err
		}
		est.Suite, est.SuiteVersion = suite.Name, suite.Version
		est.Prices = prices{Input: *priceIn, Cached: *priceCached, Output: *priceOut}
		if *asJSON {
			return writeJSON(e.stdout, est)
		}
		return est.print(e.stdout)
	}

	simSHA := "native"
	var eng engine
	if len(todo) > 0 || prior > 0 {
		if eng, err = openEngine(e.ctx, *native, false); err != nil {
			return err
		}
		defer eng.Close()
		simSHA = eng.SHA256()
	}
	if err := settings.check(recs, simSHA, *out); err != nil {
		return err
	}
	var cache *llm.Cache
	if *cacheDir != "off" {
		dir := *cacheDir
		if dir == "" {
			if dir, err = llm.DefaultCacheDir(); err != nil {
				return err
			}
		}
		if cache, err = llm.OpenCache(dir); err != nil {
			return err
		}
	}
	key := os.Getenv(*keyEnv)
	client, err := llm.New(*baseURL, llm.Options{APIKey: key, Timeout: *timeout, Retries: *retries,
		BaseDelay: *backoff, Cache: cache, MaxConns: *parallel})
	if err != nil {
		return usageError("%v", err)
	}
	defer client.CloseIdle()
	ev := &evaluator{client: client, model: *model, variant: variant, opt: opt,
		temperature: temp, maxTokens: *maxTokens, suite: suite}
	var outF *os.File
	if *out != "" {
		if outF, err = os.OpenFile(*out, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644); err != nil {
			return err
		}
		defer outF.Close()
	}
	if key == "" {
		fmt.Fprintf(e.stderr, "normgym: $%s is empty or unset: no API key is sent\n", *keyEnv)
	}
	if prior > 0 {
		fmt.Fprintf(e.stderr, "normgym: %d of %d visits already in %s; running the other %d\n", prior, len(visits), *out, len(todo))
	}
	if len(todo) > 0 {
		if ev.steps, err = stepEngineFor(eng); err != nil {
			return err
		}
	}
	var mu sync.Mutex
	prog := newProgress(e.stderr, len(todo))
	n, err := ev.runVisits(e.ctx, todo, *parallel, func(r sim.Record) error {
		mu.Lock()
		defer mu.Unlock()
		recs = append(recs, r)
		prog.add(r.Scores.Joint)
		if outF == nil {
			return nil
		}
		return writeRecord(outF, r) // one write per line: a kill leaves at most a torn last line
	})
	prog.finish()
	if err != nil {
		hint := ""
		if *out != "" {
			hint = fmt.Sprintf("; the %d finished visits are in %s: re-run the same command to continue", prior+n, *out)
		}
		if e.ctx.Err() != nil {
			return fmt.Errorf("interrupted after %d of %d visits%s: %w", prior+n, len(visits), hint, e.ctx.Err())
		}
		return fmt.Errorf("%w%s", err, hint)
	}
	sum := summarizeEval(recs, *model, client.Host(), variant, prior)
	if *submit != "" {
		st, err := submitRecords(e.ctx, *submit, recs, "model:"+*model)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "normgym: submitted %d records to %s (%d new, %d already stored)\n", st.Stored+st.Duplicates, *submit, st.Stored, st.Duplicates)
	}
	if *asJSON {
		return writeJSON(e.stdout, sum)
	}
	fmt.Fprintf(e.stdout, "suite %s@%s · %s · sim %s · model %s at %s · prompt %s\n\n",
		suite.Name, suite.Version, describeSelection(suite, len(visits)), short(simSHA), *model, client.Host(), variant)
	if err := report.Table(e.stdout, []report.Summary{sum.Summary}); err != nil {
		return err
	}
	sum.Eval.print(e.stdout)
	return nil
}

// evaluator plays visits with a model.
type evaluator struct {
	client      *llm.Client
	steps       stepEngine
	model       string
	variant     prompt.Variant
	opt         prompt.Options
	temperature *float64
	maxTokens   int
	suite       sim.Suite
}

// runVisits plays visits on parallel workers and hands each finished
// record to emit (called from the workers, one at a time per worker). The
// first error stops the others; visits in flight are then lost, not
// emitted. It returns how many records were emitted.
func (ev *evaluator) runVisits(ctx context.Context, visits []string, parallel int, emit func(sim.Record) error) (int, error) {
	var (
		mu sync.Mutex
		n  int
	)
	err := forEach(ctx, len(visits), parallel, func(ctx context.Context, i int) error {
		r, err := ev.runVisit(ctx, visits[i])
		if err != nil {
			if ctx.Err() != nil {
				return nil // stopped: another visit failed, or the run was interrupted
			}
			return fmt.Errorf("%s: %w", visits[i], err)
		}
		if err := emit(r); err != nil {
			return err
		}
		mu.Lock()
		n++
		mu.Unlock()
		return nil
	})
	if err != nil {
		return n, err
	}
	return n, ctx.Err()
}

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

// runVisit plays one visit: one request per step with the observation
// text as the user turn, notes at the end of each practice day under
// reflect, and the probe at the end.
func (ev *evaluator) runVisit(ctx context.Context, id string) (sim.Record, error) {
	v, obs, text, err := ev.steps.start(ctx, id)
	if err != nil {
		return sim.Record{}, err
	}
	defer v.close()
	conv := prompt.NewConversation(ev.variant, ev.opt)
	x := &evalExtra{Model: ev.model, Endpoint: ev.client.Host(), Prompt: string(ev.variant), PromptVersion: prompt.PromptVersion}
	x.Sampling.Temperature, x.Sampling.MaxTokens = ev.temperature, ev.maxTokens
	x.StepLog = make([]stepLog, 0, sim.PracticeSteps+sim.TestSteps+2)
	var prev []byte // the visit's previous request body
	ask := func(kind, user string) (string, error) {
		req := llm.Request{Model: ev.model, Messages: conv.Ask(user), Temperature: ev.temperature, MaxTokens: ev.maxTokens}
		body, err := req.Body()
		if err != nil {
			return "", err
		}
		r, err := ev.client.Chat(ctx, req)
		if err != nil {
			return "", err
		}
		conv.Reply(r.Content)
		x.add(kind, r, len(body), len(body)-commonPrefix(prev, body))
		prev = body
		return r.Content, nil
	}
	day, step, done, days := obs.Day, obs.Frame.Step, obs.Done, obs.Days
	for !done {
		reply, err := ask("", text)
		if err != nil {
			return sim.Record{}, fmt.Errorf("day %d step %d: %w", day, step, err)
		}
		a, perr := prompt.ExtractAction(reply)
		if perr != nil {
			a = sim.Action{Verb: sim.Wait}
			x.formatError(reply)
		}
		res, err := v.step(ctx, a.String())
		if err != nil {
			return sim.Record{}, err
		}
		if res.dayOver && !res.done && ev.variant == prompt.Reflect {
			notes, err := ask("notes", prompt.NotesPrompt(day, days, res.events))
			if err != nil {
				return sim.Record{}, fmt.Errorf("notes after day %d: %w", day, err)
			}
			conv.EndDay(notes)
		}
		text, day, step, done = res.text, res.day, res.step, res.done
	}
	p, err := v.probe(ctx)
	if err != nil {
		return sim.Record{}, err
	}
	if p != nil {
		reply, err := ask("probe", prompt.ProbePrompt(text, p))
		if err != nil {
			return sim.Record{}, fmt.Errorf("probe: %w", err)
		}
		if k, perr := prompt.ExtractAnswer(reply, len(p.Options)); perr != nil {
			x.ProbeFormatError = true
			x.StepLog[len(x.StepLog)-1].FormatError = true
		} else if err := v.answer(ctx, k); err != nil {
			return sim.Record{}, err
		}
	}
	rec, err := v.record(ctx, ev.model)
	if err != nil {
		return sim.Record{}, err
	}
	rec.Suite, rec.SuiteVersion = ev.suite.Name, ev.suite.Version
	x.Notes, x.History = conv.Notes(), conv.History()
	x.RunID = newRunID()
	if rec.Extra, err = toMap(x); err != nil {
		return sim.Record{}, err
	}
	return rec, nil
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

// newRunID returns a random submission id (see api.Submission).
func newRunID() string {
	var b [16]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func toMap(v any) (map[string]any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	return m, json.Unmarshal(b, &m)
}

// evalSummary is eval's summary: report's, plus the model's run figures.
type evalSummary struct {
	report.Summary
	Eval evalStats `json:"eval"`
}

type evalStats struct {
	Model    string `json:"model"`
	Endpoint string `json:"endpoint"`
	Prompt   string `json:"prompt"`
	// Steps counts actions; FormatErrors those played as wait because the
	// reply had no valid ACTION line.
	Steps           int         `json:"steps"`
	FormatErrors    int         `json:"format_errors"`
	FormatErrorRate float64     `json:"format_error_rate"`
	ProbeAsked      int         `json:"probe_asked"`
	ProbeUnanswered int         `json:"probe_unanswered"`
	Usage           usageTotals `json:"usage"`
	// MeanLatencyMS is over requests not answered from the cache.
	MeanLatencyMS float64 `json:"mean_latency_ms"`
	// Visits counts the records with eval's usage; PerVisit is Usage
	// divided by it.
	Visits   int      `json:"visits"`
	PerVisit perVisit `json:"per_visit"`
	// CachedShare is the endpoint-reported cached share of the prompt
	// tokens of the requests that reported one (null: none did).
	CachedShare *float64 `json:"cached_share"`
	// Trimmed counts visits where the context budget trimmed the history.
	Trimmed int `json:"trimmed"`
	// Resumed counts visits taken from --out rather than run.
	Resumed int `json:"resumed"`
}

// perVisit are a run's mean figures per visit.
type perVisit struct {
	Requests         float64 `json:"requests"`
	PromptTokens     float64 `json:"prompt_tokens"`
	CompletionTokens float64 `json:"completion_tokens"`
	RequestBytes     float64 `json:"request_bytes"`
	UnsharedBytes    float64 `json:"unshared_bytes"`
}

func summarizeEval(recs []sim.Record, model, endpoint string, v prompt.Variant, resumed int) evalSummary {
	s := evalStats{Model: model, Endpoint: endpoint, Prompt: string(v), Resumed: resumed}
	var reportedPrompt int
	for _, r := range recs {
		s.Steps += len(r.Actions)
		x, ok := readExtra(r)
		if !ok {
			continue
		}
		s.Visits++
		s.FormatErrors += x.FormatErrors
		s.Usage.add(x.Usage)
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
		s.PerVisit = perVisit{Requests: float64(u.Requests) / n, PromptTokens: float64(u.PromptTokens) / n,
			CompletionTokens: float64(u.CompletionTokens) / n, RequestBytes: float64(u.RequestBytes) / n,
			UnsharedBytes: float64(u.UnsharedBytes) / n}
	}
	if s.Usage.CacheReported > 0 && reportedPrompt > 0 {
		share := float64(s.Usage.CachedPromptTokens) / float64(reportedPrompt)
		s.CachedShare = &share
	}
	sum := report.SummarizeAgent(model, recs)
	return evalSummary{Summary: sum, Eval: s}
}

// print writes the run's figures below the scores table.
func (s evalStats) print(w io.Writer) {
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

// stepEngine starts visits that a model plays step by step.
type stepEngine interface {
	start(ctx context.Context, visit string) (stepVisit, *sim.Observation, string, error)
}

// stepVisit is a visit in progress in either engine.
type stepVisit interface {
	step(ctx context.Context, action string) (stepResult, error)
	// probe returns nil for a control visit.
	probe(ctx context.Context) (*sim.Probe, error)
	answer(ctx context.Context, k int) error
	record(ctx context.Context, agent string) (sim.Record, error)
	close()
}

type stepResult struct {
	text          string
	events        []sim.Event
	dayOver, done bool
	day, step     int // where the visit stands after the step
}

func stepEngineFor(eng engine) (stepEngine, error) {
	switch e := eng.(type) {
	case nativeEngine:
		return nativeSteps{}, nil
	case *wasmEngine:
		return wasmSteps{e.rt}, nil
	}
	return nil, fmt.Errorf("eval: engine %T cannot run visits step by step", eng)
}

type nativeSteps struct{}

func (nativeSteps) start(_ context.Context, id string) (stepVisit, *sim.Observation, string, error) {
	env, obs, err := sim.NewEnv(id)
	if err != nil {
		return nil, nil, "", err
	}
	return nativeVisit{env}, obs, obs.Text(), nil
}

type nativeVisit struct{ env *sim.Env }

func (v nativeVisit) step(_ context.Context, action string) (stepResult, error) {
	a, err := sim.ParseAction(action)
	if err != nil {
		return stepResult{}, err
	}
	res, err := v.env.Step(a)
	if err != nil {
		return stepResult{}, err
	}
	o := res.Observation
	return stepResult{o.Text(), res.Events, res.DayOver, res.Done(), o.Day, o.Frame.Step}, nil
}

func (v nativeVisit) probe(context.Context) (*sim.Probe, error) { return v.env.Probe(), nil }

func (v nativeVisit) answer(_ context.Context, k int) error {
	_, err := v.env.Answer(k)
	return err
}

func (v nativeVisit) record(_ context.Context, agent string) (sim.Record, error) {
	r := v.env.Record(agent, "model")
	r.SimSHA256 = "native"
	return r, nil
}

func (nativeVisit) close() {}

type wasmSteps struct{ rt *host.Runtime }

func (w wasmSteps) start(ctx context.Context, id string) (stepVisit, *sim.Observation, string, error) {
	vid, err := sim.ParseVisitID(id)
	if err != nil {
		return nil, nil, "", err
	}
	v, obs, text, err := w.rt.Reset(ctx, id)
	if err != nil {
		return nil, nil, "", err
	}
	return &wasmVisit{v: v, control: vid.Condition == sim.Control}, obs, text, nil
}

type wasmVisit struct {
	v       *host.Visit
	control bool
}

func (w *wasmVisit) step(ctx context.Context, action string) (stepResult, error) {
	res, err := w.v.StepText(ctx, action)
	if err != nil {
		return stepResult{}, err
	}
	return stepResult{res.Text, res.Events, res.DayOver, res.Done(), res.Day, res.Step}, nil
}

func (w *wasmVisit) probe(ctx context.Context) (*sim.Probe, error) {
	if w.control {
		return nil, nil
	}
	return w.v.Probe(ctx)
}

func (w *wasmVisit) answer(ctx context.Context, k int) error {
	_, err := w.v.Answer(ctx, k)
	return err
}

func (w *wasmVisit) record(ctx context.Context, agent string) (sim.Record, error) {
	return w.v.Record(ctx, agent, "model")
}

func (w *wasmVisit) close() { w.v.Close(context.Background()) }
