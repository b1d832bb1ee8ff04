package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/normgym/normgym/serve/harness"
	"github.com/normgym/normgym/serve/llm"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/prompt"
	"github.com/normgym/normgym/wasm/simwasm"
)

// fakeLLM is a local OpenAI-compatible endpoint (loopback only). It checks
// each request's shape — POST /v1/chat/completions, the bearer key, a JSON
// body with model and well-formed messages — and answers from a scripted
// policy unless fault handles the call first.
type fakeLLM struct {
	t     testing.TB
	srv   *httptest.Server
	key   string
	model string
	// latency delays every answer (ended early if the client gives up).
	latency time.Duration
	// record keeps every decoded request in arrival order.
	record bool
	// fault, if set, may answer call n (1-based) itself and return true.
	fault func(n int, w http.ResponseWriter, r *http.Request) bool
	// onCall runs at the start of each call.
	onCall func(n int)
	// policy returns the reply to a well-formed request (default scripted).
	policy func(req llm.Request) string
	// cachedShare, if positive, is the share of prompt tokens reported
	// as cached (usage.prompt_tokens_details.cached_tokens).
	cachedShare float64
	// reasoning, if not empty, is sent as every answer's
	// message.reasoning_content.
	reasoning string
	// light skips checking and decoding requests (for benchmarks: the
	// endpoint's own cost is not the harness's) and replies with actions
	// in rotation.
	light bool

	calls   atomic.Int64
	answers atomic.Int64 // well-formed requests answered
	mu      sync.Mutex
	reqs    []llm.Request
}

func newFakeLLM(t testing.TB, key, model string) *fakeLLM {
	f := &fakeLLM{t: t, key: key, model: model, record: true}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

// baseURL is what --base-url gets.
func (f *fakeLLM) baseURL() string { return f.srv.URL + "/v1" }

func (f *fakeLLM) requests() []llm.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]llm.Request(nil), f.reqs...)
}

func (f *fakeLLM) serve(w http.ResponseWriter, r *http.Request) {
	n := int(f.calls.Add(1))
	if f.onCall != nil {
		f.onCall(n)
	}
	if f.fault != nil && f.fault(n, w, r) {
		return
	}
	if f.light {
		if _, err := io.Copy(io.Discard, r.Body); err != nil {
			return // the client hung up
		}
		if f.latency > 0 {
			select {
			case <-time.After(f.latency):
			case <-r.Context().Done():
				return
			}
		}
		f.answers.Add(1)
		writeCompletion(w, "ACTION: "+scriptVerbs[n%len(scriptVerbs)], 1000)
		return
	}
	bad := func(format string, a ...any) {
		f.t.Errorf("fake endpoint: call %d: "+format, append([]any{n}, a...)...)
		http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
	}
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		bad("%s %s, want POST /v1/chat/completions", r.Method, r.URL.Path)
		return
	}
	if got, want := r.Header.Get("Authorization"), "Bearer "+f.key; f.key != "" && got != want {
		bad("Authorization header %q, want the bearer key", got)
		return
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		bad("Content-Type %q", ct)
		return
	}
	var req llm.Request
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		if r.Context().Err() != nil || errors.Is(err, io.ErrUnexpectedEOF) {
			return // the client hung up mid-request (a killed run)
		}
		bad("body: %v", err)
		return
	}
	if req.Model != f.model {
		bad("model %q, want %q", req.Model, f.model)
		return
	}
	if err := checkMessages(req.Messages); err != nil {
		bad("%v", err)
		return
	}
	if f.record {
		f.mu.Lock()
		f.reqs = append(f.reqs, req)
		f.mu.Unlock()
	}
	if f.latency > 0 {
		select {
		case <-time.After(f.latency):
		case <-r.Context().Done():
			return
		}
	}
	content := scriptedReply(req)
	if f.policy != nil {
		content = f.policy(req)
	}
	f.answers.Add(1)
	promptTokens := prompt.Chars(req.Messages) / 4
	if f.reasoning != "" {
		writeCompletionReasoning(w, content, f.reasoning, promptTokens)
		return
	}
	if f.cachedShare > 0 {
		writeCompletionCached(w, content, promptTokens, int(f.cachedShare*float64(promptTokens)))
		return
	}
	writeCompletion(w, content, promptTokens)
}

// checkMessages wants a system prompt, then user and assistant turns
// alternating, ending with a user turn.
func checkMessages(ms []prompt.Message) error {
	if len(ms) < 2 || ms[0].Role != "system" {
		return fmt.Errorf("messages must start with the system prompt and hold a user turn (%d messages)", len(ms))
	}
	for i, m := range ms[1:] {
		want := "user"
		if i%2 == 1 {
			want = "assistant"
		}
		if m.Role != want {
			return fmt.Errorf("message %d has role %q, want %q", i+1, m.Role, want)
		}
	}
	if ms[len(ms)-1].Role != "user" {
		return fmt.Errorf("the last message is not a user turn")
	}
	return nil
}

func writeCompletion(w http.ResponseWriter, content string, promptTokens int) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-test", "object": "chat.completion", "model": "fake",
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": content}}},
		"usage": map[string]int{"prompt_tokens": promptTokens, "completion_tokens": 7, "total_tokens": promptTokens + 7},
	})
}

// writeCompletionReasoning answers with the model's reasoning beside the
// content, as DeepSeek's and vLLM's endpoints send it.
func writeCompletionReasoning(w http.ResponseWriter, content, reasoning string, promptTokens int) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-test", "object": "chat.completion", "model": "fake",
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": content, "reasoning_content": reasoning}}},
		"usage": map[string]int{"prompt_tokens": promptTokens, "completion_tokens": 7, "total_tokens": promptTokens + 7},
	})
}

// writeCompletionCached answers with cached prompt tokens reported.
func writeCompletionCached(w http.ResponseWriter, content string, promptTokens, cached int) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-test", "object": "chat.completion", "model": "fake",
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": content}}},
		"usage": map[string]any{"prompt_tokens": promptTokens, "completion_tokens": 7, "total_tokens": promptTokens + 7,
			"prompt_tokens_details": map[string]int{"cached_tokens": cached}},
	})
}

var scriptVerbs = []string{sim.North, sim.South, sim.East, sim.West, sim.Wait, sim.Pick, sim.Drop, sim.Use, sim.Bow}

// scriptedReply answers the probe with option 2, a notes request with a
// fixed note, and an observation with an action chosen by a hash of it
// (so that replies are a pure function of the request).
func scriptedReply(req llm.Request) string {
	last := req.Messages[len(req.Messages)-1].Content
	switch {
	case strings.Contains(last, "\nANSWER: <1-"):
		return "The elder frowned at the flower beds.\nANSWER: 2"
	case strings.Contains(last, "Write notes for yourself"):
		return "NOTES: keep off the coloured band; watch the elder."
	}
	h := fnv.New32a()
	h.Write([]byte(last))
	return "Let me think about where to go.\n**ACTION: " + scriptVerbs[h.Sum32()%uint32(len(scriptVerbs))] + "**"
}

// evalCLI runs the command in-process under ctx.
func evalCLI(ctx context.Context, args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := Main(ctx, args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// nativeTexts replays a record's actions natively and returns the text
// observation before each action, and the last one.
func nativeTexts(t testing.TB, rec sim.Record) ([]string, string, *sim.Visit) {
	t.Helper()
	env, obs, err := sim.NewVisit(rec.Visit)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, s := range rec.Actions {
		texts = append(texts, obs.Text())
		a, err := sim.ParseAction(s)
		if err != nil {
			t.Fatal(err)
		}
		res, err := env.Step(a)
		if err != nil {
			t.Fatal(err)
		}
		obs = res.Observation
	}
	return texts, obs.Text(), env
}

const testKey = "sk-normgym-TEST-key-7f3a9c"

// setKey puts the test key in the environment variable eval reads.
func setKey(t *testing.T) {
	t.Setenv("NORMGYM_TEST_KEY", testKey)
}

// evalArgs are the flags every eval test passes, plus extra (an --out in
// extra overrides the one in dir).
func evalArgs(f *fakeLLM, dir string, extra ...string) []string {
	return append([]string{"eval", "--model", f.model, "--base-url", f.baseURL(), "--api-key-env", "NORMGYM_TEST_KEY",
		"--suite", "mini", "--backoff", "1ms", "--cache", filepath.Join(dir, "cache"), "--out", filepath.Join(dir, "records.jsonl")}, extra...)
}

// readOut reads an --out file strictly.
func readOut(t *testing.T, path string) []sim.Record {
	t.Helper()
	recs, err := readRecords(path)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// noKey fails if the API key appears in any of the strings or in any file under dirs.
func noKey(t *testing.T, texts []string, paths ...string) {
	t.Helper()
	for i, s := range texts {
		if strings.Contains(s, testKey) {
			t.Errorf("output %d contains the API key", i)
		}
	}
	for _, root := range paths {
		filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
			if err != nil || info.IsDir() {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if bytes.Contains(b, []byte(testKey)) {
				t.Errorf("%s contains the API key", p)
			}
			return nil
		})
	}
}

// checkPrompts checks that the requests of one visit (in order) sent the
// system prompt, each step's observation text as the last user turn, and
// the probe at the end.
func checkPrompts(t *testing.T, reqs []llm.Request, rec sim.Record, v prompt.Variant) {
	t.Helper()
	texts, last, env := nativeTexts(t, rec)
	steps := 0
	for _, r := range reqs {
		user := r.Messages[len(r.Messages)-1].Content
		if strings.HasPrefix(user, "Day 1 of 2 is over.") {
			continue // notes under reflect, checked elsewhere
		}
		if steps < len(texts) {
			if user != texts[steps] {
				t.Fatalf("request for action %d: user turn differs from the sim's text observation:\n got %q\nwant %q", steps+1, user, texts[steps])
			}
			if v != prompt.Reflect || steps == 0 {
				if got, want := r.Messages[0].Content, prompt.SystemPrompt(v, nil); got != want {
					t.Fatalf("request %d: system prompt differs:\n got %q\nwant %q", steps+1, got, want)
				}
			}
			steps++
			continue
		}
		p := env.Probe()
		if p == nil {
			t.Fatalf("a request after the last action of a control visit")
		}
		if got, want := user, prompt.ProbePrompt(last, p); got != want {
			t.Fatalf("probe request:\n got %q\nwant %q", got, want)
		}
		steps++
	}
	want := len(texts)
	if env.Probe() != nil {
		want++
	}
	if steps != want {
		t.Fatalf("%d step and probe requests, want %d", steps, want)
	}
}

func TestEvalFullVisit(t *testing.T) {
	setKey(t)
	f := newFakeLLM(t, testKey, "fake-model-1")
	dir := t.TempDir()
	out := filepath.Join(dir, "out.jsonl")
	code, stdout, stderr := evalCLI(context.Background(), evalArgs(f, dir, "--native", "--limit", "1", "--parallel", "1", "--out", out)...)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	recs := readOut(t, out)
	if len(recs) != 1 {
		t.Fatalf("%d records, want 1", len(recs))
	}
	r := recs[0]
	suite, _ := sim.LookupSuite("mini")
	if r.Visit != suite.Visits[0] || r.Client != "model" || r.Agent != "fake-model-1" || r.Suite != "mini" || r.SimSHA256 != "native" {
		t.Errorf("record header: visit %s client %s agent %s suite %s sim %s", r.Visit, r.Client, r.Agent, r.Suite, r.SimSHA256)
	}
	if r.Probe == nil || r.Probe.Answer != 1 {
		t.Errorf("probe = %+v, want answer 1 (the script says ANSWER: 2)", r.Probe)
	}
	reqs := f.requests()
	checkPrompts(t, reqs, r, prompt.Plain)
	x, ok := prompt.ReadExtra(r.Extra)
	if !ok {
		t.Fatalf("record extra unreadable: %v", r.Extra)
	}
	u, _ := url.Parse(f.srv.URL)
	if x.Model != "fake-model-1" || x.Endpoint != u.Host || x.Prompt != "plain" || x.PromptVersion != prompt.PromptVersion {
		t.Errorf("extra: model %q endpoint %q prompt %q version %q", x.Model, x.Endpoint, x.Prompt, x.PromptVersion)
	}
	if got, want := x.Usage.Requests, len(reqs); got != want {
		t.Errorf("usage.requests = %d, want %d", got, want)
	}
	if got, want := len(x.StepLog), len(reqs); got != want {
		t.Errorf("%d step_log entries, want %d", got, want)
	}
	if x.Usage.PromptTokens == 0 || x.Usage.CompletionTokens != 7*len(reqs) || x.FormatErrors != 0 {
		t.Errorf("usage %+v, format errors %d", x.Usage, x.FormatErrors)
	}
	if x.Sampling.Temperature == nil || *x.Sampling.Temperature != 0 || x.Sampling.MaxTokens != 1024 || x.History.BudgetChars != prompt.DefaultBudget {
		t.Errorf("sampling %+v history %+v", x.Sampling, x.History)
	}
	if !strings.Contains(stdout, "format errors: 0 of") || !strings.Contains(stdout, "fake-model-1") {
		t.Errorf("summary lacks the model or format errors:\n%s", stdout)
	}
	noKey(t, []string{stdout, stderr, fmt.Sprint(r.Extra)}, out, filepath.Join(dir, "cache"))
	// The records work with replay and report unchanged.
	if code, _, stderr := runCLI(t, "", "replay", "--native", out); code != 0 {
		t.Errorf("replay: exit %d, %s", code, stderr)
	}
	if code, stdout, stderr := runCLI(t, "", "report", out); code != 0 || !strings.Contains(stdout, "fake-model-1") {
		t.Errorf("report: exit %d, %s %s", code, stdout, stderr)
	}
}

func TestEvalJSONSummary(t *testing.T) {
	setKey(t)
	f := newFakeLLM(t, testKey, "m")
	dir := t.TempDir()
	code, stdout, stderr := evalCLI(context.Background(), evalArgs(f, dir, "--native", "--limit", "2", "--json")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var s harness.Summary
	if err := json.Unmarshal([]byte(stdout), &s); err != nil {
		t.Fatalf("not a summary: %v\n%s", err, stdout)
	}
	if s.Agent != "m" || s.Visits != 2 || s.Eval.Usage.Requests != int(f.answers.Load()) || s.Eval.Steps == 0 || s.Eval.ProbeAsked != 2 {
		t.Errorf("summary: agent %q visits %d eval %+v (endpoint answered %d)", s.Agent, s.Visits, s.Eval, f.answers.Load())
	}
}

func TestEvalReflect(t *testing.T) {
	setKey(t)
	f := newFakeLLM(t, testKey, "m")
	dir := t.TempDir()
	out := filepath.Join(dir, "out.jsonl")
	code, _, stderr := evalCLI(context.Background(), evalArgs(f, dir, "--native", "--limit", "1", "--parallel", "1", "--prompt", "reflect", "--out", out)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	r := readOut(t, out)[0]
	reqs := f.requests()
	checkPrompts(t, reqs, r, prompt.Reflect)
	practice := r.Scores.Steps[0]
	notesReq := reqs[practice]
	if !strings.HasPrefix(notesReq.Messages[len(notesReq.Messages)-1].Content, "Day 1 of 2 is over.") {
		t.Fatalf("request %d is not the notes request", practice+1)
	}
	next := reqs[practice+1]
	const note = "keep off the coloured band; watch the elder."
	if len(next.Messages) != 2 || !strings.Contains(next.Messages[0].Content, "Day 1:\n"+note) {
		t.Errorf("the test day's first request has %d messages and system prompt %q; want 2 and the notes", len(next.Messages), next.Messages[0].Content)
	}
	if got, want := next.Messages[0].Content, prompt.SystemPrompt(prompt.Reflect, []string{note}); got != want {
		t.Errorf("system prompt with notes:\n got %q\nwant %q", got, want)
	}
	x, _ := prompt.ReadExtra(r.Extra)
	if len(x.Notes) != 1 || x.Notes[0] != note || x.StepLog[practice].Kind != "notes" {
		t.Errorf("extra notes %q, step_log[%d] %+v", x.Notes, practice, x.StepLog[practice])
	}
}

// TestEvalContextBudget: under a small budget the requests stay under it
// (the summary keeps every sanction, so a request may exceed it only by
// those) and the record says what was trimmed.
func TestEvalContextBudget(t *testing.T) {
	setKey(t)
	f := newFakeLLM(t, testKey, "m")
	dir := t.TempDir()
	out := filepath.Join(dir, "out.jsonl")
	const budget = 12000
	code, _, stderr := evalCLI(context.Background(), evalArgs(f, dir, "--native", "--limit", "1", "--context-budget", fmt.Sprint(budget), "--out", out)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for i, r := range f.requests() {
		if n := prompt.Chars(r.Messages); n > budget && !strings.HasPrefix(r.Messages[1].Content, prompt.SummaryHeaderShort) {
			t.Fatalf("request %d: %d characters in %d messages, over the budget %d", i+1, n, len(r.Messages), budget)
		}
	}
	x, _ := prompt.ReadExtra(readOut(t, out)[0].Extra)
	if len(x.History.Trims) == 0 || x.History.CollapsedTurns == 0 || x.History.BudgetChars != budget {
		t.Errorf("history %+v: want trims and budget %d", x.History, budget)
	}
}

func TestEvalControlVisit(t *testing.T) {
	f := newFakeLLM(t, "", "m")
	client, err := llm.New(f.baseURL(), llm.Options{BaseDelay: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	suite, _ := sim.LookupSuite("mini")
	control := suite.Visits[len(suite.Visits)-1]
	if !strings.Contains(control, "/control/") {
		t.Fatalf("%s is not a control visit", control)
	}
	h := &harness.Harness{Chat: client.Chat, Endpoint: client.Host(), Model: "m", Suite: suite, NewEnv: nativeEngine{}.NewEnv,
		Settings: harness.Settings{Variant: prompt.NormAware, Options: prompt.DefaultOptions()}}
	r, err := h.Visit(context.Background(), control)
	if err != nil {
		t.Fatal(err)
	}
	if r.Probe != nil {
		t.Errorf("control visit has a probe answer")
	}
	checkPrompts(t, f.requests(), r, prompt.NormAware)
}

func TestEvalFaults(t *testing.T) {
	status := func(code int, body string) func(w http.ResponseWriter) {
		return func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(code)
			fmt.Fprint(w, body)
		}
	}
	tests := []struct {
		name  string
		calls map[int]func(w http.ResponseWriter) // faulty answers by call number
		sleep int                                 // this call sleeps past --timeout
		args  []string
		// wantRetries is the retries the record shows; wantCode the exit code.
		wantRetries, wantCode int
		wantFormatErrors      int
		minTime               time.Duration
		wantErr               string
	}{
		{name: "429 with Retry-After", calls: map[int]func(http.ResponseWriter){
			3: func(w http.ResponseWriter) {
				w.Header().Set("Retry-After", "1")
				status(429, `{"error":{"message":"slow down"}}`)(w)
			}}, wantRetries: 1, minTime: time.Second},
		{name: "500s", calls: map[int]func(http.ResponseWriter){
			2: status(500, "oops"), 3: status(502, "<html>bad gateway</html>"), 9: status(503, "")}, wantRetries: 3},
		{name: "timeout", sleep: 2, wantRetries: 1, args: []string{"--timeout", "1s"}},
		{name: "malformed JSON", calls: map[int]func(http.ResponseWriter){2: status(200, `{"choices": [{"message": `)}, wantRetries: 1},
		{name: "empty choices", calls: map[int]func(http.ResponseWriter){2: status(200, `{"choices": []}`)}, wantRetries: 1},
		{name: "unparseable action", calls: map[int]func(http.ResponseWriter){
			2: func(w http.ResponseWriter) { writeCompletion(w, "I will walk north now.\nACTION: fly north", 10) },
			4: func(w http.ResponseWriter) { writeCompletion(w, "", 10) }}, wantFormatErrors: 2},
		{name: "retries exhausted", calls: map[int]func(http.ResponseWriter){
			5: status(500, "a"), 6: status(500, "b"), 7: status(500, "c")},
			args: []string{"--retries", "2"}, wantCode: 1, wantErr: "500 Internal Server Error"},
		{name: "401 is not retried", calls: map[int]func(http.ResponseWriter){
			1: status(401, `{"error":{"message":"Incorrect API key provided: `+testKey+`"}}`)}, wantCode: 1, wantErr: "401 Unauthorized"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			setKey(t)
			f := newFakeLLM(t, testKey, "m")
			f.fault = func(n int, w http.ResponseWriter, r *http.Request) bool {
				if n == tt.sleep {
					io.Copy(io.Discard, r.Body) // so that the server notices the client hang up
					select {
					case <-time.After(5 * time.Second):
					case <-r.Context().Done():
					}
					return true
				}
				if h, ok := tt.calls[n]; ok {
					h(w)
					return true
				}
				return false
			}
			dir := t.TempDir()
			out := filepath.Join(dir, "out.jsonl")
			// A generous --timeout (the last flag wins): under load a sound
			// answer must not time out and add a retry the case does not expect.
			args := evalArgs(f, dir, append([]string{"--native", "--limit", "1", "--parallel", "1", "--out", out, "--timeout", "10s", "--cache", "off"}, tt.args...)...)
			start := time.Now()
			code, stdout, stderr := evalCLI(context.Background(), args...)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d; stderr %q", code, tt.wantCode, stderr)
			}
			noKey(t, []string{stdout, stderr}, dir)
			if tt.wantCode != 0 {
				if !strings.Contains(stderr, tt.wantErr) {
					t.Errorf("stderr %q, want it to contain %q", stderr, tt.wantErr)
				}
				if recs := readOut(t, out); len(recs) != 0 {
					t.Errorf("%d records written for a failed visit", len(recs))
				}
				return
			}
			if el := time.Since(start); el < tt.minTime {
				t.Errorf("took %v, want at least %v (Retry-After)", el, tt.minTime)
			}
			r := readOut(t, out)[0]
			x, _ := prompt.ReadExtra(r.Extra)
			if got, want := x.Usage.Retries, tt.wantRetries; got != want {
				t.Errorf("retries = %d, want %d", got, want)
			}
			if got, want := int(f.calls.Load()), x.Usage.Requests+x.Usage.Retries; got != want {
				t.Errorf("endpoint saw %d calls, want %d requests + retries", got, want)
			}
			if got, want := x.FormatErrors, tt.wantFormatErrors; got != want {
				t.Errorf("format errors = %d, want %d", got, want)
			}
			if tt.wantFormatErrors > 0 {
				if r.Actions[1] != sim.Wait || r.Actions[3] != sim.Wait || !x.StepLog[1].FormatError || len(x.FormatErrorReplies) != 2 {
					t.Errorf("unparseable replies: actions %v, step_log[1] %+v, replies %q", r.Actions[:4], x.StepLog[1], x.FormatErrorReplies)
				}
				if !strings.Contains(stdout, fmt.Sprintf("format errors: 2 of %d steps", len(r.Actions))) {
					t.Errorf("summary lacks the format-error rate:\n%s", stdout)
				}
			}
		})
	}
}

func TestEvalResume(t *testing.T) {
	setKey(t)
	f := newFakeLLM(t, testKey, "m")
	f.record = false
	dir := t.TempDir()
	out := filepath.Join(dir, "out.jsonl")
	args := evalArgs(f, dir, "--native", "--limit", "6", "--parallel", strconv.Itoa(evalTestParallel), "--out", out, "--cache", "off")

	// Run 1 is killed (its context cancelled) after 500 requests: two
	// visits finished, two in flight.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f.onCall = func(n int) {
		if n == 500 {
			cancel()
		}
	}
	code, _, stderr := evalCLI(ctx, args...)
	if code != 1 || !strings.Contains(stderr, "interrupted") {
		t.Fatalf("killed run: exit %d, stderr %q", code, stderr)
	}
	first := readOut(t, out)
	if len(first) == 0 || len(first) >= 6 {
		t.Fatalf("killed run left %d records, want some but not all", len(first))
	}
	before, _ := os.ReadFile(out)
	// A kill in the middle of a write leaves a torn last line.
	fa, _ := os.OpenFile(out, os.O_APPEND|os.O_WRONLY, 0)
	fa.WriteString(`{"visit":"orchard/place.color=red/obs`)
	fa.Close()

	// Run 2 resumes: it drops the torn line, keeps the finished visits
	// and runs the others once each.
	f.onCall = nil
	f.calls.Store(0)
	code, _, stderr = evalCLI(context.Background(), args...)
	if code != 0 {
		t.Fatalf("resumed run: exit %d, stderr %q", code, stderr)
	}
	if !strings.Contains(stderr, "dropping an unfinished last line") || !strings.Contains(stderr, fmt.Sprintf("%d of 6 visits already", len(first))) {
		t.Errorf("resumed run's stderr %q", stderr)
	}
	all := readOut(t, out)
	after, _ := os.ReadFile(out)
	if !bytes.HasPrefix(after, before) {
		t.Errorf("the resumed run changed the finished records")
	}
	suite, _ := sim.LookupSuite("mini")
	seen := map[string]int{}
	for _, r := range all {
		seen[r.Visit]++
	}
	for _, v := range suite.Visits[:6] {
		if seen[v] != 1 {
			t.Errorf("visit %s has %d records, want 1", v, seen[v])
		}
	}
	if len(all) != 6 {
		t.Errorf("%d records, want 6", len(all))
	}
	var want int
	for _, r := range all[len(first):] {
		x, _ := prompt.ReadExtra(r.Extra)
		want += x.Usage.Requests
	}
	// A request the killed run had in flight may reach the endpoint after
	// the counter was reset: allow one per worker of the first run.
	if got := int(f.calls.Load()); got < want || got > want+evalTestParallel {
		t.Errorf("resumed run made %d requests, want %d (the unfinished visits', once each; up to %d more in flight from the killed run)", got, want, evalTestParallel)
	}

	// Run 3 has nothing left to do.
	f.calls.Store(0)
	code, stdout, stderr := evalCLI(context.Background(), args...)
	if code != 0 || f.calls.Load() != 0 || !strings.Contains(stdout, "format errors") {
		t.Errorf("third run: exit %d, %d requests, stderr %q", code, f.calls.Load(), stderr)
	}
}

func TestEvalCacheRerun(t *testing.T) {
	setKey(t)
	f := newFakeLLM(t, testKey, "m")
	f.record = false
	dir := t.TempDir()
	out1, out2 := filepath.Join(dir, "1.jsonl"), filepath.Join(dir, "2.jsonl")
	if code, _, stderr := evalCLI(context.Background(), evalArgs(f, dir, "--native", "--limit", "2", "--out", out1)...); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	n := f.calls.Load()
	if code, _, stderr := evalCLI(context.Background(), evalArgs(f, dir, "--native", "--limit", "2", "--out", out2)...); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if got := f.calls.Load(); got != n {
		t.Errorf("the re-run made %d requests, want 0 (all cached)", got-n)
	}
	a, b := readOut(t, out1), readOut(t, out2)
	byVisit := map[string]sim.Record{}
	for _, r := range a {
		byVisit[r.Visit] = r
	}
	for _, r := range b {
		if byVisit[r.Visit].Hash != r.Hash {
			t.Errorf("%s: the cached re-run's trajectory differs", r.Visit)
		}
		x, _ := prompt.ReadExtra(r.Extra)
		if x.Usage.Cached != x.Usage.Requests {
			t.Errorf("%s: %d of %d requests cached", r.Visit, x.Usage.Cached, x.Usage.Requests)
		}
	}
	noKey(t, nil, dir)
}

func TestEvalWasm(t *testing.T) {
	setKey(t)
	f := newFakeLLM(t, testKey, "m")
	dir := t.TempDir()
	out := filepath.Join(dir, "out.jsonl")
	code, _, stderr := evalCLI(context.Background(), evalArgs(f, dir, "--limit", "1", "--parallel", "1", "--out", out, "--prompt", "norm-aware")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	r := readOut(t, out)[0]
	if r.SimSHA256 != simwasm.SHA256() {
		t.Errorf("sim_sha256 %q, want the module's", r.SimSHA256)
	}
	checkPrompts(t, f.requests(), r, prompt.NormAware)
	if code, _, stderr := runCLI(t, "", "replay", "--native", out); code != 0 {
		t.Errorf("replay: exit %d, %s", code, stderr)
	}
}

func TestEvalUsage(t *testing.T) {
	base := []string{"eval", "--model", "m", "--base-url", "http://127.0.0.1:1/v1", "--native", "--cache", "off"}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no model", []string{"eval", "--base-url", "http://x/v1"}, "needs --model"},
		{"no base url", []string{"eval", "--model", "m"}, "needs --base-url"},
		{"bad base url", []string{"eval", "--model", "m", "--base-url", "localhost:8000"}, "base URL"},
		{"key as a flag", append(base, "--api-key", "sk-x"), "flag provided but not defined"},
		{"bad prompt", append(base, "--prompt", "clever"), `unknown prompt variant "clever"`},
		{"bad parallel", append(base, "--parallel", "0"), "--parallel"},
		{"bad suite", append(base, "--suite", "huge"), `unknown suite "huge"`},
		{"argument", append(base, "extra"), "takes no arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, "", tt.args...)
			if code != 2 || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, tt.want)
			}
		})
	}
	if code, _, stderr := runCLI(t, "", "eval", "-h"); code != 0 || !strings.Contains(stderr, "Usage: normgym eval") {
		t.Errorf("eval -h: exit %d, %q", code, stderr)
	}
}

// TestEvalResumeRefusesOtherSettings: a results file holds one run, so
// resuming it under other settings — or from records another prompt
// version, sim or module made — is refused, saying what differs and what
// to do.
func TestEvalResumeRefusesOtherSettings(t *testing.T) {
	setKey(t)
	f := newFakeLLM(t, testKey, "m")
	f.record = false
	dir := t.TempDir()
	out := filepath.Join(dir, "out.jsonl")
	base := []string{"--native", "--limit", "1", "--out", out}
	if code, _, stderr := evalCLI(context.Background(), evalArgs(f, dir, base...)...); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	good, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		args   []string
		edit   func(r *sim.Record) // applied to the stored record first
		wantIn string
	}{
		{"prompt variant", []string{"--prompt", "norm-aware"}, nil, "prompt plain (this run: norm-aware)"},
		{"temperature", []string{"--temperature", "0.7"}, nil, "temperature 0 (this run: 0.7)"},
		{"endpoint's temperature", []string{"--temperature", "-1"}, nil, "temperature 0 (this run: the endpoint's default)"},
		{"max tokens", []string{"--max-tokens", "64"}, nil, "max_tokens 1024 (this run: 64)"},
		{"budget", []string{"--context-budget", "50000"}, nil, fmt.Sprintf("context budget %d (this run: 50000)", prompt.DefaultBudget)},
		{"full replies", []string{"--full-replies"}, nil, "full replies false (this run: true)"},
		{"old prompt version", nil, func(r *sim.Record) { r.Extra["prompt_version"] = "1" }, "prompt version 1 (this run: " + prompt.PromptVersion + ")"},
		{"old sim version", nil, func(r *sim.Record) { r.SimVersion = "3" }, "sim version 3 (this run: " + sim.Version + ")"},
		{"another module", nil, func(r *sim.Record) { r.SimSHA256 = strings.Repeat("ab", 32) }, "sim_sha256 abababababab (this run: native)"},
		{"dry run checks too", []string{"--dry-run", "--prompt", "reflect"}, nil, "prompt plain (this run: reflect)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := good
			if tt.edit != nil {
				r, err := harness.DecodeRecord(bytes.TrimSpace(good))
				if err != nil {
					t.Fatal(err)
				}
				tt.edit(&r)
				if b, err = json.Marshal(r); err != nil {
					t.Fatal(err)
				}
				b = append(b, '\n')
			}
			if err := os.WriteFile(out, b, 0o644); err != nil {
				t.Fatal(err)
			}
			n := f.calls.Load()
			code, _, stderr := evalCLI(context.Background(), evalArgs(f, dir, append(base, tt.args...)...)...)
			if code != 2 || !strings.Contains(stderr, tt.wantIn) || !strings.Contains(stderr, "use another --out") {
				t.Errorf("exit %d, stderr %q; want a usage error saying %q and what to do", code, stderr, tt.wantIn)
			}
			if f.calls.Load() != n {
				t.Errorf("the refused run made requests")
			}
		})
	}
	// The same settings resume (nothing left to run).
	os.WriteFile(out, good, 0o644)
	if code, _, stderr := evalCLI(context.Background(), evalArgs(f, dir, base...)...); code != 0 {
		t.Errorf("resuming under the same settings: exit %d, %s", code, stderr)
	}
}

// TestEvalDryRun: --dry-run needs no endpoint, sends nothing, writes
// nothing, and its figures hold together.
func TestEvalDryRun(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "none.jsonl")
	code, stdout, stderr := runCLI(t, "", "eval", "--dry-run", "--suite", "mini", "--limit", "3", "--json", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var est harness.Estimate
	if err := json.Unmarshal([]byte(stdout), &est); err != nil {
		t.Fatalf("not an estimate: %v\n%s", err, stdout)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("--dry-run created %s", out)
	}
	if est.Visits != 3 || len(est.Newcomers) != 2 || est.BudgetChars != prompt.DefaultBudget || est.PromptVersion != prompt.PromptVersion {
		t.Fatalf("estimate %+v", est)
	}
	greedy, wait := est.Newcomers[0], est.Newcomers[1]
	if wait.Requests != 3*(sim.PracticeSteps+sim.TestSteps)+3 {
		t.Errorf("the waiting newcomer made %d requests, want every step of 3 visits and 3 probes", wait.Requests)
	}
	for _, n := range est.Newcomers {
		if n.PromptTokens != n.PromptChars/4 || n.CachedTokens+n.UncachedTokens != n.PromptTokens || n.UncachedTokens <= 0 ||
			n.UncachedTokens > n.PromptTokens/5 || n.CompletionTokens != 150*n.Requests || n.TrimmedVisits != 0 {
			t.Errorf("%s: %+v", n.Newcomer, n)
		}
	}
	if greedy.Requests >= wait.Requests {
		t.Errorf("greedy made %d requests, wait %d: waiting is the worst case", greedy.Requests, wait.Requests)
	}
	// The text form prints the table and, given prices, the costs.
	code, stdout, _ = runCLI(t, "", "eval", "--dry-run", "--suite", "mini", "--limit", "1", "--price-input", "1", "--price-cached", "0.1", "--price-output", "4")
	if code != 0 || !strings.Contains(stdout, "prompt tokens") || !strings.Contains(stdout, "with prefix caching") || !strings.Contains(stdout, "/ 4") {
		t.Errorf("exit %d:\n%s", code, stdout)
	}
}

// TestEvalCachedTokens: the cached prompt tokens an endpoint reports
// (usage.prompt_tokens_details.cached_tokens) reach the record and the
// summary, with the requests' bytes.
func TestEvalCachedTokens(t *testing.T) {
	setKey(t)
	f := newFakeLLM(t, testKey, "m")
	f.record = false
	f.cachedShare = 0.75
	dir := t.TempDir()
	out := filepath.Join(dir, "out.jsonl")
	code, stdout, stderr := evalCLI(context.Background(), evalArgs(f, dir, "--native", "--limit", "1", "--out", out, "--cache", "off")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	x, _ := prompt.ReadExtra(readOut(t, out)[0].Extra)
	u := x.Usage
	if u.CacheReported != u.Requests || u.CachedPromptTokens == 0 || u.RequestBytes == 0 || u.UnsharedBytes == 0 || u.UnsharedBytes > u.RequestBytes/5 {
		t.Errorf("usage %+v", u)
	}
	if x.History.Requests != u.Requests || x.History.SentChars == 0 || x.History.UnsharedChars > x.History.SentChars/5 {
		t.Errorf("history %+v", x.History)
	}
	for _, want := range []string{"75% of them cached, as the endpoint reported", "MB of requests", "outside the prefix shared with the previous request"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("summary lacks %q:\n%s", want, stdout)
		}
	}
}

// waitOnlyVisit plays one whole visit of standard with a model that only
// waits (160 steps, one request at a time) through eval's harness, and
// returns its record's extra.
func waitOnlyVisit(tb testing.TB) prompt.Extra {
	f := newFakeLLM(tb, "", "m")
	f.record = false
	f.policy = func(llm.Request) string { return "ACTION: wait" }
	client, err := llm.New(f.baseURL(), llm.Options{BaseDelay: time.Millisecond})
	if err != nil {
		tb.Fatal(err)
	}
	suite, _ := sim.LookupSuite("standard")
	temp := 0.0
	h := &harness.Harness{Chat: client.Chat, Endpoint: client.Host(), Model: "gpt-4o-mini", Suite: suite, NewEnv: nativeEngine{}.NewEnv,
		Settings: harness.Settings{Variant: prompt.Plain, Options: prompt.DefaultOptions(), Temperature: &temp, MaxTokens: 1024}}
	f.model = h.Model
	r, err := h.Visit(context.Background(), suite.Visits[0])
	if err != nil {
		tb.Fatal(err)
	}
	if len(r.Actions) != sim.PracticeSteps+sim.TestSteps {
		tb.Fatalf("%d steps, want %d", len(r.Actions), sim.PracticeSteps+sim.TestSteps)
	}
	x, _ := prompt.ReadExtra(r.Extra)
	return x
}

// Issue 9's targets for a visit of a newcomer that only waits, set when a
// visit had 160 steps: at most 3.5 MB of message content over the visit,
// and at most 0.6 MB of it outside the prefix each request shares with the
// previous one. The content grows with the square of the visit's length
// (each request repeats every recap before it), so its cap scales with it
// (issue 25 lengthened the test day so that every visit is solvable); the
// unshared part grows linearly and keeps its cap.
var maxVisitContent = int(3_500_000 * math.Pow(float64(sim.PracticeSteps+sim.TestSteps)/160, 2))

const maxVisitUnshared = 600_000

func TestEvalWaitOnlyVisitSize(t *testing.T) {
	x := waitOnlyVisit(t)
	h := x.History
	if h.SentChars > maxVisitContent || h.UnsharedChars > maxVisitUnshared || x.Usage.UnsharedBytes > maxVisitUnshared {
		t.Errorf("a wait-only visit sends %d characters of message content (%d outside the shared prefix) in %d bytes of requests (%d unshared); want at most %d and %d",
			h.SentChars, h.UnsharedChars, x.Usage.RequestBytes, x.Usage.UnsharedBytes, maxVisitContent, maxVisitUnshared)
	}
	t.Logf("wait-only visit: %d requests, %d characters of message content (%d unshared), %d bytes of request bodies (%d unshared)",
		h.Requests, h.SentChars, h.UnsharedChars, x.Usage.RequestBytes, x.Usage.UnsharedBytes)
}

// benchHarness returns a harness on a fake endpoint with the given
// latency, the endpoint, and the time its Envs spend in the sim.
func benchHarness(b *testing.B, native bool, latency time.Duration, cacheDir string, parallel int) (*harness.Harness, *fakeLLM, *atomic.Int64) {
	f := newFakeLLM(b, "", "m")
	f.record, f.latency, f.light = false, latency, true
	opt := llm.Options{Retries: llm.NoRetries, MaxConns: parallel}
	if cacheDir != "" {
		c, err := llm.OpenCache(cacheDir)
		if err != nil {
			b.Fatal(err)
		}
		opt.Cache = c
	}
	client, err := llm.New(f.baseURL(), opt)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(client.CloseIdle)
	eng, err := openEngine(context.Background(), native, false, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { eng.Close() })
	suite, _ := sim.LookupSuite("mini")
	temp := 0.0
	ns := new(atomic.Int64)
	h := &harness.Harness{Chat: client.Chat, Endpoint: client.Host(), Model: "m", Suite: suite,
		NewEnv:   func() sim.Env { return timedEnv{eng.NewEnv(), ns} },
		Settings: harness.Settings{Variant: prompt.Plain, Options: prompt.DefaultOptions(), Temperature: &temp, MaxTokens: 1024}}
	return h, f, ns
}

// timedEnv sums the time an Env spends in the sim into ns.
type timedEnv struct {
	sim.Env
	ns *atomic.Int64
}

func (t timedEnv) since(start time.Time) { t.ns.Add(int64(time.Since(start))) }

func (t timedEnv) Reset(ctx context.Context, visit string) (sim.Turn, error) {
	defer t.since(time.Now())
	return t.Env.Reset(ctx, visit)
}

func (t timedEnv) Step(ctx context.Context, action string) (sim.Turn, error) {
	defer t.since(time.Now())
	return t.Env.Step(ctx, action)
}

func (t timedEnv) Probe(ctx context.Context) (*sim.Probe, error) {
	defer t.since(time.Now())
	return t.Env.Probe(ctx)
}

func (t timedEnv) Answer(ctx context.Context, k int, c *float64) (bool, error) {
	defer t.since(time.Now())
	return t.Env.Answer(ctx, k, c)
}

func (t timedEnv) Record(ctx context.Context, agent, client string) (sim.Record, error) {
	defer t.since(time.Now())
	return t.Env.Record(ctx, agent, client)
}

// BenchmarkEvalStep is the harness overhead per step against an endpoint
// that answers at once over loopback (reading the body and replying,
// nothing more): the sim step with its observation text (in the module or
// natively; sim-ms/step), and the rest (harness-ms/step): history, JSON
// encoding, the HTTP round trip, action extraction, records. Target: ≤ 1
// ms per step in all. "cache-hit" answers every request from the on-disk
// cache.
func BenchmarkEvalStep(b *testing.B) {
	suite, _ := sim.LookupSuite("mini")
	visit := suite.Visits[0]
	for _, c := range []struct {
		name   string
		native bool
		cache  bool
	}{{"native", true, false}, {"wasm", false, false}, {"wasm/cache-hit", false, true}} {
		b.Run(c.name, func(b *testing.B) {
			dir := ""
			if c.cache {
				dir = b.TempDir()
			}
			h, f, ns := benchHarness(b, c.native, 0, dir, 1)
			if c.cache {
				if _, err := h.Visit(context.Background(), visit); err != nil { // fill the cache
					b.Fatal(err)
				}
			}
			steps, calls := 0, f.calls.Load()
			ns.Store(0)
			b.ResetTimer()
			for b.Loop() {
				r, err := h.Visit(context.Background(), visit)
				if err != nil {
					b.Fatal(err)
				}
				steps += len(r.Actions)
			}
			total := b.Elapsed().Seconds() * 1e3 / float64(steps)
			simMS := float64(ns.Load()) / 1e6 / float64(steps)
			b.ReportMetric(total, "ms/step")
			b.ReportMetric(simMS, "sim-ms/step")
			b.ReportMetric(total-simMS, "harness-ms/step")
			b.ReportMetric(float64(f.calls.Load()-calls)/float64(steps), "requests/step")
		})
	}
}

// BenchmarkEvalThroughput runs 32 visits at once through the wasm engine
// against an endpoint that takes 200 ms per answer, for 4 s of wall time,
// and reports the steps per second (after a 0.5 s warm-up) against the
// ideal 32 / 0.2 s = 160. Target: ≥ 90% of it. The native core is there
// for comparison.
func BenchmarkEvalThroughput(b *testing.B) {
	const (
		parallel = 32
		latency  = 200 * time.Millisecond
		window   = 4 * time.Second
	)
	for _, native := range []bool{false, true} {
		name := "wasm"
		if native {
			name = "native"
		}
		b.Run(name, func(b *testing.B) { benchThroughput(b, native, parallel, latency, window) })
	}
}

func benchThroughput(b *testing.B, native bool, parallel int, latency, window time.Duration) {
	h, f, _ := benchHarness(b, native, latency, "", parallel)
	suite, _ := sim.LookupSuite("mini")
	var rate float64
	for b.Loop() {
		// Steady state: answers counted from warm-up (every visit started)
		// to the end of the window.
		const warm = 500 * time.Millisecond
		ctx, cancel := context.WithTimeout(context.Background(), window)
		measured := make(chan float64, 1)
		go func() {
			span := window - warm - 20*time.Millisecond
			time.Sleep(warm)
			n0 := f.answers.Load()
			time.Sleep(span)
			measured <- float64(f.answers.Load()-n0) / span.Seconds()
		}()
		h.Visits(ctx, suite.Visits[:parallel], parallel, func(harness.Played) error { return nil })
		cancel()
		rate = <-measured
	}
	ideal := float64(parallel) / latency.Seconds()
	b.ReportMetric(rate, "steps/s")
	b.ReportMetric(100*rate/ideal, "%ideal")
}

// evalTestParallel is the resume test's --parallel.
const evalTestParallel = 2

// BenchmarkEvalVisitCost prints what a model's visit costs under the
// default settings (issue 9's figures):
//
//   - wait-only: one whole visit of standard (160 steps) by a model that
//     only waits, through eval's harness: the message content and request
//     bodies of all its requests (MB/visit; target ≤ 3.5 MB of content),
//     and the part outside the prefix each request shares with the
//     previous one (unshared-MB/visit; target ≤ 0.6 MB), what a
//     prefix-caching provider processes in full;
//   - mini: eval --dry-run's estimate of prompt tokens per visit on mini,
//     for greedy and wait-only newcomers, without caching (tokens/visit)
//     and the uncached part with prefix caching (uncached-tokens/visit).
func BenchmarkEvalVisitCost(b *testing.B) {
	b.Run("wait-only", func(b *testing.B) {
		var x prompt.Extra
		for b.Loop() {
			x = waitOnlyVisit(b)
		}
		b.ReportMetric(float64(x.History.SentChars)/1e6, "MB/visit")
		b.ReportMetric(float64(x.History.UnsharedChars)/1e6, "unshared-MB/visit")
		b.ReportMetric(float64(x.Usage.RequestBytes)/1e6, "body-MB/visit")
		b.ReportMetric(float64(x.Usage.UnsharedBytes)/1e6, "unshared-body-MB/visit")
		b.ReportMetric(float64(x.History.MaxRequestChars), "max-request-chars")
	})
	b.Run("mini", func(b *testing.B) {
		suite, _ := sim.LookupSuite("mini")
		s := harness.Settings{Variant: prompt.Plain, Options: prompt.DefaultOptions(), MaxTokens: 1024}
		var est *harness.Estimate
		for b.Loop() {
			var err error
			if est, err = harness.EstimateRun(context.Background(), suite.Visits, s, 150, 2, func() {}); err != nil {
				b.Fatal(err)
			}
		}
		v := float64(est.Visits)
		for _, n := range est.Newcomers {
			b.ReportMetric(float64(n.PromptTokens)/v, n.Newcomer+"-tokens/visit")
			b.ReportMetric(float64(n.UncachedTokens)/v, n.Newcomer+"-uncached-tokens/visit")
			b.ReportMetric(float64(n.MaxVisitChars)/1e6, n.Newcomer+"-largest-visit-MB")
		}
	})
}
