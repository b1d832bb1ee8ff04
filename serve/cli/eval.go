package cli

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime"
	"sync"
	"time"

	"github.com/normgym/normgym/serve/harness"
	"github.com/normgym/normgym/serve/llm"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/prompt"
	"github.com/normgym/normgym/sim/report"
)

// maxParallel bounds --parallel: the wasm engine holds at most 256 open
// visits per instance.
const maxParallel = 256

const evalAbout = "Runs a language model as the newcomer over a suite, one chat request per step, through any\n" +
	"OpenAI-compatible chat-completions endpoint (\"<base-url>/chat/completions\"). Steps run in the\n" +
	"sim.wasm module (or the native core with --native). The prompts, history policy and reply format\n" +
	"are documented in sim/prompt/PROMPTS.md. The API key is read from the environment variable named by\n" +
	"--api-key-env, never from a flag.\n\n" +
	"--dry-run sends nothing: it prints what the run would cost (requests, prompt and completion tokens,\n" +
	"with and without prefix caching), from baselines' visits replayed through the same prompt builder.\n\n" +
	"Records (one per finished visit, in the format of normgym run) go to --out as each visit finishes.\n" +
	"Re-running with the same --out skips the visits already there and runs the rest; with the request\n" +
	"cache on, re-asked requests cost nothing. A results file holds one run's settings: resuming under\n" +
	"another prompt, prompt version, sim, sampling or history budget is refused. Each record's transcript (every\n" +
	"reply as returned, with the provider's reasoning, usage, latency and retries) goes to the transcripts file\n" +
	"beside --out (out/MODEL.transcripts.jsonl).\n\n" +
	"--server URL plays on a NormGym server instead, through its OpenEnv WebSocket sessions: the server steps\n" +
	"the sim and the model is sent only what the server renders. With a submitter key (--key-env names the\n" +
	"variable that holds it) each visit is the key's next sealed visit of --suite, assigned by the server in the\n" +
	"suite's stratified order under a secret seed and stored there under the key's label; --sample N or --limit N\n" +
	"say how many (default: the whole suite), one at a time. Without a key the chosen visits are practice."

// evalFlags are eval's flags.
type evalFlags struct {
	model, baseURL, keyEnv, variant, out, submit, cacheDir *string
	server, serverKeyEnv                                   *string
	sel                                                    *visitFlags
	parallel, maxTokens, retries, budget, replyTokens      *int
	temperature, priceIn, priceCached, priceOut            *float64
	timeout, backoff                                       *time.Duration
	asJSON, native, fullReplies, dryRun                    *bool
}

// addEvalFlags registers eval's flags on the FlagSet of e.
func addEvalFlags(e *env) (*evalFlags, *flag.FlagSet) {
	fs := e.flags("eval", "--model NAME --base-url URL --suite S [flags]", evalAbout)
	return &evalFlags{
		model:        fs.String("model", "", "model name sent to the endpoint; also the records' agent name (required)"),
		baseURL:      fs.String("base-url", "", "endpoint base URL, e.g. http://localhost:8000/v1 or https://api.openai.com/v1 (required)"),
		keyEnv:       fs.String("api-key-env", "OPENAI_API_KEY", "environment variable holding the API key (unset or empty: no key is sent)"),
		sel:          addVisitFlags(fs, "mini", "run"),
		variant:      fs.String("prompt", string(prompt.Plain), "prompt variant: plain, norm-aware or reflect"),
		parallel:     fs.Int("parallel", 8, "visits run at once"),
		out:          fs.String("out", "", "JSON Lines file of records: appended to as visits finish, and resumed from; its folder is created\n(default out/MODEL.jsonl, the model's name with '_' for characters such as '/')"),
		asJSON:       fs.Bool("json", false, "print the summary (or the --dry-run estimate) as JSON"),
		submit:       fs.String("submit", "", "after the run, submit the records to the NormGym server at this URL"),
		server:       fs.String("server", "", "play on the NormGym server at this URL (its OpenEnv /ws sessions) instead of the local sim"),
		serverKeyEnv: fs.String("key-env", "", "with --server: environment variable holding a submitter key (ngk_…): the key's sealed visits of\n--suite, stored under its label (unset: practice on the chosen visits, nothing stored)"),
		native:       fs.Bool("native", false, "run the native Go core instead of sim.wasm"),
		maxTokens:    fs.Int("max-tokens", 1024, "max_tokens per reply (0: not sent)"),
		temperature:  fs.Float64("temperature", 0, "sampling temperature (negative: not sent, the endpoint's default)"),
		timeout:      fs.Duration("timeout", 2*time.Minute, "time limit of each HTTP request"),
		retries:      fs.Int("retries", 6, "retries of a request after 429, 5xx, network errors, timeouts or malformed answers"),
		backoff:      fs.Duration("backoff", time.Second, "first retry delay; doubles each retry (max 60s), with jitter; Retry-After overrides it"),
		cacheDir:     fs.String("cache", "", "request cache directory (default: <user cache dir>/normgym/llm; \"off\" disables it)"),
		budget:       fs.Int("context-budget", prompt.DefaultBudget, "safety cap on the characters of message content per request: beyond it the oldest steps are\ncollapsed into a summary that keeps every sanction (0: no cap; no standard visit reaches the default)"),
		fullReplies:  fs.Bool("full-replies", false, "keep the model's earlier replies whole (default: cut to their ACTION line)"),
		dryRun:       fs.Bool("dry-run", false, "send nothing: print the expected requests and tokens of this run and exit"),
		replyTokens:  fs.Int("reply-tokens", 150, "with --dry-run: completion tokens assumed per reply"),
		priceIn:      fs.Float64("price-input", 0, "with --dry-run: USD per million prompt tokens (0: no cost printed)"),
		priceCached:  fs.Float64("price-cached", 0, "with --dry-run: USD per million cached prompt tokens"),
		priceOut:     fs.Float64("price-output", 0, "with --dry-run: USD per million completion tokens"),
	}, fs
}

// check refuses flags that do not go together.
func (f *evalFlags) check(pos []string) error {
	switch {
	case len(pos) > 0:
		return usageError("eval takes no arguments, got %q", pos[0])
	case *f.model == "" && !*f.dryRun:
		return usageError("eval needs --model")
	case *f.baseURL == "" && !*f.dryRun:
		return usageError("eval needs --base-url, as in http://localhost:8000/v1")
	case *f.parallel < 1 || *f.parallel > maxParallel:
		return usageError("--parallel must be 1 to %d", maxParallel)
	case *f.keyEnv == "":
		return usageError("--api-key-env must name an environment variable")
	case *f.budget < 0 || *f.maxTokens < 0 || *f.retries < 0 || *f.timeout <= 0:
		return usageError("--context-budget, --max-tokens and --retries must not be negative, --timeout must be positive")
	case *f.replyTokens < 0 || *f.priceIn < 0 || *f.priceCached < 0 || *f.priceOut < 0:
		return usageError("--reply-tokens and the prices must not be negative")
	case *f.server == "" && *f.serverKeyEnv != "":
		return usageError("--key-env names a submitter key for --server: give --server too")
	case *f.server != "" && *f.sel.catalogFile != "":
		return usageError("--catalog plays a private suite file here; a server's private suite is played with --server and --key-env (the file stays on the server)")
	case *f.server != "" && (*f.submit != "" || *f.native || *f.dryRun):
		return usageError("--server plays on the server, which stores a key's runs itself: --submit, --native and --dry-run do not apply")
	}
	return nil
}

// evalRun is what one eval run is about: its visits, settings and results
// file, with what the file holds already.
type evalRun struct {
	f        *evalFlags
	suite    sim.Suite
	visits   []string
	settings harness.Settings
	recs     []sim.Record // the model's records, those resumed first
	prior    int          // how many of recs came from the file
	todo     []string     // the visits still to run ("": a server's sealed visit)
	// sealed: a key's sealed visits on a server, which assigns them.
	sealed bool
}

func cmdEval(e *env) error {
	f, fs := addEvalFlags(e)
	pos, err := e.parse(fs)
	if err != nil {
		return err
	}
	if err := f.check(pos); err != nil {
		return err
	}
	if *f.server != "" {
		return f.playRemote(e, fs)
	}
	run, err := f.plan(e)
	if err != nil {
		return err
	}
	if *f.dryRun {
		return run.estimate(e)
	}
	return run.play(e)
}

// plan resolves the flags into a run and reads what --out holds of it.
func (f *evalFlags) plan(e *env) (*evalRun, error) {
	variant, err := prompt.ParseVariant(*f.variant)
	if err != nil {
		return nil, usageError("%v", err)
	}
	suite, visits, err := f.sel.resolve()
	if err != nil {
		return nil, err
	}
	var temp *float64
	if *f.temperature >= 0 {
		temp = f.temperature
	}
	if *f.out == "" && *f.model != "" {
		*f.out = defaultEvalOut(*f.model)
	}
	r := &evalRun{f: f, suite: suite, visits: visits, settings: harness.Settings{Variant: variant,
		Options: prompt.Options{Budget: *f.budget, FullReplies: *f.fullReplies}, Temperature: temp, MaxTokens: *f.maxTokens,
		Catalog: f.sel.catalog}}
	return r, r.resume(e)
}

// resume takes the visits of this model already in --out as done.
func (r *evalRun) resume(e *env) error {
	var have []sim.Record
	if out := *r.f.out; out != "" {
		var err error
		if have, err = harness.LoadResults(out, e.stderr, !*r.f.dryRun); err != nil {
			return err
		}
	}
	want := make(map[string]bool, len(r.visits))
	for _, v := range r.visits {
		want[v] = true
	}
	done := map[string]bool{}
	for _, rec := range have {
		if rec.Agent != *r.f.model || rec.Client != "model" || !want[rec.Visit] || done[rec.Visit] {
			continue
		}
		done[rec.Visit] = true
		r.recs = append(r.recs, rec)
	}
	r.prior = len(r.recs)
	for _, v := range r.visits {
		if !done[v] {
			r.todo = append(r.todo, v)
		}
	}
	return nil
}

// check refuses a results file of another run (simSHA "": not checked).
func (r *evalRun) check(simSHA string) error {
	if err := r.settings.Check(r.recs, simSHA, *r.f.out); errors.Is(err, harness.ErrOtherSettings) {
		return usageError("%v", err)
	} else if err != nil {
		return err
	}
	return nil
}

// estimate prints what the run would cost (--dry-run).
func (r *evalRun) estimate(e *env) error {
	if err := r.check(""); err != nil {
		return err
	}
	if r.prior > 0 {
		fmt.Fprintf(e.stderr, "normgym: %d of %d visits already in %s; estimating the other %d\n", r.prior, len(r.visits), *r.f.out, len(r.todo))
	}
	prog := newProgress(e.stderr, len(r.todo))
	prog.noJoint = true
	est, err := harness.EstimateRun(e.ctx, r.todo, r.settings, *r.f.replyTokens, runtime.GOMAXPROCS(0), func() { prog.add(false) })
	prog.finish()
	if err != nil {
		return err
	}
	if err := e.ctx.Err(); err != nil {
		return err
	}
	est.Suite, est.SuiteVersion = r.suite.Name, r.suite.Version
	est.Prices = harness.Prices{Input: *r.f.priceIn, Cached: *r.f.priceCached, Output: *r.f.priceOut}
	if *r.f.asJSON {
		return writeJSON(e.stdout, est)
	}
	return est.Print(e.stdout)
}

// play runs the visits still to run, then sums the run up.
func (r *evalRun) play(e *env) error {
	simSHA := "native"
	var eng engine
	if len(r.todo) > 0 || r.prior > 0 {
		var err error
		if r.f.sel.catalog != nil {
			fmt.Fprint(e.stderr, catalogNote(*r.f.native))
		}
		if eng, err = openEngine(e.ctx, *r.f.native, false, r.f.sel.catalog); err != nil {
			return err
		}
		defer eng.Close()
		simSHA = eng.SHA256()
	}
	if err := r.check(simSHA); err != nil {
		return err
	}
	client, err := r.client(e)
	if err != nil {
		return err
	}
	defer client.CloseIdle()
	if len(r.todo) > 0 {
		h := &harness.Harness{Chat: client.Chat, Endpoint: client.Host(), Model: *r.f.model, Settings: r.settings,
			Suite: r.suite, NewEnv: eng.NewEnv}
		if err := r.runVisits(e, h); err != nil {
			return err
		}
	}
	return r.summary(e, client.Host(), simSHA)
}

// client is the endpoint's client, with the request cache and the key.
func (r *evalRun) client(e *env) (*llm.Client, error) {
	var cache *llm.Cache
	if dir := *r.f.cacheDir; dir != "off" {
		var err error
		if dir == "" {
			if dir, err = llm.DefaultCacheDir(); err != nil {
				return nil, err
			}
		}
		if cache, err = llm.OpenCache(dir); err != nil {
			return nil, err
		}
	}
	key := os.Getenv(*r.f.keyEnv)
	client, err := llm.New(*r.f.baseURL, llm.Options{APIKey: key, Timeout: *r.f.timeout, Retries: *r.f.retries,
		BaseDelay: *r.f.backoff, Cache: cache, MaxConns: *r.f.parallel})
	if err != nil {
		return nil, usageError("%v", err)
	}
	if key == "" {
		fmt.Fprintf(e.stderr, "normgym: $%s is empty or unset: no API key is sent\n", *r.f.keyEnv)
	}
	return client, nil
}

// runVisits plays the visits still to run with h, appending each record to
// --out as it finishes, its transcript first to the transcripts file
// beside it.
func (r *evalRun) runVisits(e *env, h *harness.Harness) error {
	sink, err := openEvalSink(*r.f.out)
	if err != nil {
		return err
	}
	defer sink.close()
	if r.prior > 0 {
		fmt.Fprintf(e.stderr, "normgym: %d of %s visits already in %s; running the other %s\n", r.prior, r.count(len(r.visits)), *r.f.out, r.count(len(r.todo)))
	}
	var mu sync.Mutex
	prog := newProgress(e.stderr, len(r.todo))
	n, err := h.Visits(e.ctx, r.todo, *r.f.parallel, func(p harness.Played) error {
		mu.Lock()
		defer mu.Unlock()
		r.recs = append(r.recs, p.Record)
		prog.add(p.Record.Scores.Joint)
		return sink.write(p)
	})
	prog.finish()
	if err == nil {
		return nil
	}
	hint := ""
	if *r.f.out != "" {
		hint = fmt.Sprintf("; the %d finished visits are in %s: re-run the same command to continue", r.prior+n, *r.f.out)
	}
	if e.ctx.Err() != nil {
		return fmt.Errorf("interrupted after %d of %d visits%s: %w", r.prior+n, len(r.visits), hint, e.ctx.Err())
	}
	return fmt.Errorf("%w%s", err, hint)
}

// summary submits the records if asked and prints the run's summary.
func (r *evalRun) summary(e *env, endpoint, simSHA string) error {
	sum := harness.Summarize(r.recs, *r.f.model, endpoint, r.settings.Variant, r.prior)
	if *r.f.submit != "" {
		st, err := submitRecords(e.ctx, *r.f.submit, r.recs, "model:"+*r.f.model)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "normgym: submitted %d records to %s (%d new, %d already stored)\n", st.Stored+st.Duplicates, *r.f.submit, st.Stored, st.Duplicates)
	}
	if *r.f.asJSON {
		return writeJSON(e.stdout, sum)
	}
	sel := r.f.sel.describe(r.suite, r.visits)
	if r.sealed {
		sel = fmt.Sprintf("%d sealed visits of %s asked for, assigned and stored by %s", len(r.recs), r.count(len(r.visits)), *r.f.server)
	}
	fmt.Fprintf(e.stdout, "suite %s@%s · %s · sim %s · model %s at %s · prompt %s\n\n",
		r.suite.Name, r.suite.Version, sel, short(simSHA), *r.f.model, endpoint, r.settings.Variant)
	if err := report.Table(e.stdout, []report.Summary{sum.Summary}); err != nil {
		return err
	}
	sum.Eval.Print(e.stdout)
	return nil
}
