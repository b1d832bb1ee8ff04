package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/serve/internal/workers"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/agents"
	"github.com/normgym/normgym/sim/prompt"
)

const demosAbout = "Writes a baseline's visits as chat-format JSON Lines for fine-tuning, in exactly the messages normgym\n" +
	"eval sends a model (sim/prompt/PROMPTS.md): the baseline plays each visit through eval's own loop, so every\n" +
	"request of the visit (system prompt, past steps cut to their recaps, the latest view whole, the same collapse\n" +
	"beyond the context budget) is what eval would send for the same visit and actions, and each reply is\n" +
	"\"ACTION: <action>\" (or \"ANSWER: <k>\" to the probe). One line per visit: the visit's last request and its\n" +
	"reply, so every assistant turn of the visit; with --per-step, one line per request: that request and its\n" +
	"reply. Each line is {\"messages\": [...], \"metadata\": {visit, agent, scores, …}} and at most --max-tokens\n" +
	"(characters / 4, the whole line): the context budget is chosen to keep it so (metadata.context_budget; run\n" +
	"eval with --context-budget of that value to send the same requests). Visits run in the native Go core.\n" +
	"Agents: "

// demosConfig is how demos plays and writes each visit.
type demosConfig struct {
	agent     string
	suite     sim.Suite
	catalog   *norms.Catalog // the visits' norms (nil: the public catalog)
	settings  prompt.Settings
	perStep   bool
	maxTokens int
}

func cmdDemos(e *env) error {
	fs := e.flags("demos", "--agent A --suite S [--per-step] [--out F.jsonl] [--prompt V]",
		demosAbout+strings.Join(agents.Names(), ", ")+" (observer and oracle are the useful teachers).")
	agent := fs.String("agent", "observer", "baseline whose visits to write")
	sel := addVisitFlags(fs, "train", "write")
	out := fs.String("out", defaultDemosOut, "write to this file, creating its folder (\"-\": standard output)")
	variantName := fs.String("prompt", string(prompt.Plain), "prompt variant: plain or norm-aware (reflect needs the model's own notes)")
	parallel := fs.Int("parallel", runtime.GOMAXPROCS(0), "visits run at once")
	perStep := fs.Bool("per-step", false, "one line per request (each assistant turn with the request it answers) instead of one per visit")
	maxTokens := fs.Int("max-tokens", 16000, "the most tokens (characters / 4) a line may hold")
	budget := fs.Int("context-budget", 0, "eval's --context-budget for the requests (0: 7/8 of --max-tokens × 4 characters, leaving room for the reply\nand the line's JSON)")
	pos, err := e.parse(fs)
	if err != nil {
		return err
	}
	cfg, err := demosSetup(pos, *agent, *variantName, *parallel, *maxTokens, *budget)
	if err != nil {
		return err
	}
	cfg.perStep = *perStep
	suite, visits, err := sel.resolve()
	if err != nil {
		return err
	}
	cfg.suite, cfg.catalog = suite, sel.catalog
	w := e.stdout
	if *out != "-" {
		f, err := createOut(*out)
		if err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	bw := bufio.NewWriter(w)
	st, err := writeDemos(e.ctx, bw, visits, cfg, *parallel)
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		return err
	}
	if *out != "-" {
		fmt.Fprintf(e.stderr, "normgym: wrote %d examples of %d visits (%s, %s prompt, context budget %d; the largest %d tokens) to %s\n",
			st.lines, st.visits, cfg.agent, cfg.settings.Variant, cfg.settings.Options.Budget, st.maxTokens, *out)
		fmt.Fprintf(e.stderr, "normgym: %s\n", sel.describe(suite, visits))
	}
	return nil
}

// demosSetup checks demos' flags and makes its configuration.
func demosSetup(pos []string, agent, variantName string, parallel, maxTokens, budget int) (demosConfig, error) {
	switch {
	case len(pos) > 0:
		return demosConfig{}, usageError("demos takes no arguments, got %q", pos[0])
	case parallel < 1:
		return demosConfig{}, usageError("--parallel must be at least 1")
	case maxTokens < 1000:
		return demosConfig{}, usageError("--max-tokens must be at least 1000")
	case budget < 0:
		return demosConfig{}, usageError("--context-budget must not be negative")
	}
	if _, err := agentNames(agent); err != nil || strings.Contains(agent, ",") || agent == "all" {
		return demosConfig{}, usageError("demos needs one baseline, one of %s", strings.Join(agents.Names(), ", "))
	}
	variant, err := prompt.ParseVariant(variantName)
	if err != nil {
		return demosConfig{}, usageError("%v", err)
	}
	if variant == prompt.Reflect {
		return demosConfig{}, usageError("demos cannot use the reflect prompt: its notes are the model's own (use plain or norm-aware)")
	}
	if budget == 0 {
		budget = maxTokens * 4 * 7 / 8
	}
	s := prompt.Settings{Variant: variant, Options: prompt.Options{Budget: budget}, Model: agent}
	return demosConfig{agent: agent, settings: s, maxTokens: maxTokens}, nil
}

// demosStats sum what demos wrote.
type demosStats struct{ visits, lines, maxTokens int }

// writeDemos plays visits on parallel workers and writes their lines in
// the order of visits.
func writeDemos(ctx context.Context, w io.Writer, visits []string, cfg demosConfig, parallel int) (demosStats, error) {
	lines := make([][][]byte, len(visits))
	ready := make([]bool, len(visits))
	var (
		mu   sync.Mutex
		next int
		st   demosStats
	)
	err := workers.ForEach(ctx, len(visits), parallel, func(ctx context.Context, i int) error {
		ls, err := demoLines(ctx, visits[i], cfg)
		if err != nil {
			return fmt.Errorf("%s: %w", visits[i], err)
		}
		mu.Lock()
		defer mu.Unlock()
		lines[i], ready[i] = ls, true
		for next < len(visits) && ready[next] && ctx.Err() == nil {
			for _, l := range lines[next] {
				if _, err := w.Write(l); err != nil {
					return err
				}
				st.lines++
				st.maxTokens = max(st.maxTokens, tokens(l))
			}
			lines[next] = nil
			next++
			st.visits++
		}
		return nil
	})
	if err != nil {
		return st, err
	}
	return st, ctx.Err()
}

// tokens is a line's size in tokens: characters / 4, rounded up.
func tokens(line []byte) int { return (len(line) + 3) / 4 }

// demoRequest is one request of a demo visit and the baseline's reply.
type demoRequest struct {
	req   prompt.Request
	reply string
	day   int
	step  int
}

// demoLines plays visit with the baseline through eval's own loop
// (prompt.Run: the baseline is the Chat) and returns its lines.
func demoLines(ctx context.Context, visit string, cfg demosConfig) ([][]byte, error) {
	env := &sim.Native{Catalog: cfg.catalog}
	var (
		pol  agents.Policy
		reqs []demoRequest
	)
	chat := func(ctx context.Context, req prompt.Request) (prompt.Reply, error) {
		if pol == nil {
			var err error
			if pol, err = agents.ForEnv(cfg.agent, env.Visit()); err != nil {
				return prompt.Reply{}, err
			}
		}
		reply, err := baselineReply(ctx, env, pol, req.Kind)
		if err != nil {
			return prompt.Reply{}, err
		}
		o, _ := env.Observe(ctx)
		d := demoRequest{req: req, reply: reply}
		if o != nil {
			d.day, d.step = o.Day, o.Frame.Step
		}
		reqs = append(reqs, d)
		return prompt.Reply{Content: reply}, nil
	}
	rec, _, err := prompt.Run(ctx, env, visit, cfg.settings, chat, nil)
	if err != nil {
		return nil, err
	}
	rec.Suite, rec.SuiteVersion = cfg.suite.Name, cfg.suite.Version
	total, first := len(reqs), 0
	if !cfg.perStep {
		first = total - 1
	}
	out := make([][]byte, 0, total-first)
	for k := first; k < total; k++ {
		b, err := demoLine(reqs[k], rec, cfg, k+1, total)
		if err != nil {
			return nil, err
		}
		if n := tokens(b); n > cfg.maxTokens {
			return nil, fmt.Errorf("cli: demos: a line of %d tokens (characters / 4), over --max-tokens %d: lower --context-budget (now %d)",
				n, cfg.maxTokens, cfg.settings.Options.Budget)
		}
		out = append(out, b)
	}
	return out, nil
}

// baselineReply is the baseline's reply to a request of kind: its action
// on the observation of the moment, or its probe answer.
func baselineReply(ctx context.Context, env sim.Env, pol agents.Policy, kind prompt.Kind) (string, error) {
	switch kind {
	case prompt.AskStep:
		o, err := env.Observe(ctx)
		if err != nil {
			return "", err
		}
		return "ACTION: " + pol.Act(o).String(), nil
	case prompt.AskProbe:
		pr, err := env.Probe(ctx)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("ANSWER: %d", pol.Answer(pr)+1), nil
	}
	return "", errors.New("cli: demos: a baseline writes no notes")
}

// demoMeta is a line's metadata: which visit, who played it and how it
// went, and under which settings its requests were made.
type demoMeta struct {
	Visit         string     `json:"visit"`
	Suite         string     `json:"suite"`
	SuiteVersion  string     `json:"suite_version"`
	Agent         string     `json:"agent"`
	Condition     string     `json:"condition"`
	Prompt        string     `json:"prompt"`
	PromptVersion string     `json:"prompt_version"`
	ContextBudget int        `json:"context_budget"`
	Scores        sim.Scores `json:"scores"`
	ProbeCorrect  *bool      `json:"probe_correct,omitempty"`
	// Kind, Request (1-based), Day and Step say which request the line
	// ends with (one line per visit ends with the last); Requests counts
	// the visit's requests.
	Kind     string `json:"kind"`
	Request  int    `json:"request"`
	Requests int    `json:"requests"`
	Day      int    `json:"day"`
	Step     int    `json:"step"`
}

// demoLine is one line: the request's messages, the reply, the metadata.
func demoLine(d demoRequest, rec sim.Record, cfg demosConfig, k, n int) ([]byte, error) {
	m := demoMeta{Visit: rec.Visit, Suite: rec.Suite, SuiteVersion: rec.SuiteVersion, Agent: cfg.agent, Condition: rec.Condition,
		Prompt: string(cfg.settings.Variant), PromptVersion: prompt.PromptVersion, ContextBudget: cfg.settings.Options.Budget,
		Scores: rec.Scores, Kind: string(d.req.Kind), Request: k, Requests: n, Day: d.day, Step: d.step}
	if rec.Probe != nil {
		c := rec.Probe.Correct
		m.ProbeCorrect = &c
	}
	msgs := append(d.req.Messages[:len(d.req.Messages):len(d.req.Messages)], prompt.Message{Role: "assistant", Content: d.reply})
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	err := enc.Encode(struct {
		Messages []prompt.Message `json:"messages"`
		Metadata demoMeta         `json:"metadata"`
	}{msgs, m})
	return b.Bytes(), err
}
