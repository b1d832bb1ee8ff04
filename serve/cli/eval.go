package cli

import (
	"fmt"
	"os"
	"runtime"
	"sync"
	"time"

	"github.com/normgym/normgym/serve/llm"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/prompt"
	"github.com/normgym/normgym/sim/report"
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
	out := fs.String("out", "", "JSON Lines file of records: appended to as visits finish, and resumed from; its folder is created\n(default out/MODEL.jsonl, the model's name with '_' for characters such as '/')")
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
	if *out == "" && *model != "" {
		*out = defaultEvalOut(*model)
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
		if outF, err = appendOut(*out); err != nil {
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
