//go:build !js

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/normgym/normgym/sim/prompt"
	"github.com/normgym/normgym/wasm/host"
	"github.com/normgym/normgym/web/internal/ui"
	"github.com/normgym/normgym/web/internal/wasmtest"
)

// fakeLLM is an OpenAI-compatible endpoint that plays a script of actions.
// It runs the same visit in the wazero host in lockstep, so it can check
// that every prompt is exactly the sim's text observation, and fails one
// request on purpose.
type fakeLLM struct {
	t       *testing.T
	key     string
	mu      sync.Mutex
	visit   *host.Visit
	text    string
	actions []string
	next    int
	// fails answers request number k (1-based) with status fails[k]; a
	// 429 carries Retry-After: 1 (exposed to the page, as CORS requires).
	fails  map[int]int
	delay  time.Duration
	answer int
	calls  int
	probed bool
	bad    []string
}

func (f *fakeLLM) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Access-Control-Allow-Origin", "*")
	w.Header().Set("Access-Control-Allow-Headers", "authorization, content-type")
	w.Header().Set("Access-Control-Allow-Methods", "POST, OPTIONS")
	w.Header().Set("Access-Control-Expose-Headers", "Retry-After")
	if r.Method == http.MethodOptions {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	time.Sleep(f.delay)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	var req prompt.Request
	if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
		f.bad = append(f.bad, "request to "+r.Method+" "+r.URL.Path)
	}
	if got := r.Header.Get("Authorization"); got != "Bearer "+f.key {
		f.bad = append(f.bad, "authorization header "+got)
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) < 2 {
		f.bad = append(f.bad, fmt.Sprintf("body: %v", err))
		http.Error(w, "bad body", 400)
		return
	}
	if req.Messages[0].Role != "system" || req.Messages[0].Content != prompt.SystemPrompt(prompt.Plain, nil) || req.Model != "fake-model" {
		f.bad = append(f.bad, "system prompt or model name")
	}
	last := req.Messages[len(req.Messages)-1]
	if code, ok := f.fails[f.calls]; ok {
		w.Header().Set("Content-Type", "application/json")
		if code == 429 {
			w.Header().Set("Retry-After", "1")
		}
		w.WriteHeader(code)
		fmt.Fprintf(w, `{"error":{"message":"injected failure %d","type":"server_error"}}`, code)
		return
	}
	var reply string
	if strings.Contains(last.Content, "\nOne last question.") {
		f.probed = true
		// The headless harness's probe turn: the last observation, then
		// the question (sim/prompt/PROMPTS.md).
		if !strings.HasPrefix(last.Content, f.text) || !strings.HasSuffix(last.Content, "ANSWER: <1-4>") {
			f.bad = append(f.bad, fmt.Sprintf("probe turn is not prompt.ProbePrompt's:\n%q", last.Content))
		}
		reply = fmt.Sprintf("It must be this one.\nANSWER: %d", f.answer+1)
	} else {
		if last.Role != "user" || last.Content != f.text {
			f.bad = append(f.bad, fmt.Sprintf("request %d: the prompt is not the sim's text observation:\n%q\nwant\n%q", f.calls, last.Content, f.text))
		}
		if f.next >= len(f.actions) {
			f.bad = append(f.bad, "more step requests than actions")
			http.Error(w, "script over", 500)
			return
		}
		a := f.actions[f.next]
		f.next++
		res, err := f.visit.Step(context.Background(), a)
		if err != nil {
			f.bad = append(f.bad, err.Error())
		}
		f.text = res.Text
		reply = "I will go on with my task.\n**ACTION: " + a + "**"
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"id": "fake", "object": "chat.completion", "model": req.Model,
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]string{"role": "assistant", "content": reply}}},
		"usage": map[string]int{"prompt_tokens": len(last.Content) / 4, "completion_tokens": 10},
	})
}

// TestModelMode runs a visit with a scripted model behind a local
// endpoint: prompts must be the sim's text; a 429 and a 500 are retried
// by themselves (the wait on screen), as the headless harness does; a
// 401 pauses the run until Resume; and the record must carry the host's
// hash.
func TestModelMode(t *testing.T) {
	for _, sz := range [][2]int{{1280, 800}, {390, 844}} {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) { modelMode(t, sz[0], sz[1]) })
	}
}

func modelMode(t *testing.T, w, h int) {
	runModel(t, open(t, w, h), fmt.Sprintf("%dx%d", w, h))
}

// runModel runs the scripted model through Model mode in the tab s.
func runModel(t *testing.T, s *session, size string) {
	id := "market/place.terrain=grass/observe/s104"
	base := greedy(t, id)
	ctx := context.Background()
	v, _, text, err := wasmtest.Runtime(t).Reset(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close(ctx)
	f := &fakeLLM{t: t, key: "sk-test-123", visit: v, text: text, actions: base.Actions, fails: map[int]int{3: 429, 6: 500, 9: 401},
		answer: base.Probe.Answer, delay: 15 * time.Millisecond}
	llm := httptest.NewServer(f)
	defer llm.Close()

	s.load("#mode=model&visit=" + id)
	s.waitStage(10*time.Second, "model-form")
	s.eval(`document.getElementById("m-url").value = "` + llm.URL + `/v1/";
		document.getElementById("m-model").value = "fake-model";
		document.getElementById("m-key").value = "` + f.key + `"; "ok"`)
	s.shot("model-form-" + size)
	checkStory(t, s, "model form", ui.DataModel, 2)
	s.do(5*time.Second, chromedp.Click(chromedp.CSS(`[data-act="m-start"]`)))
	// The 429 is retried after its Retry-After, with the wait on screen.
	s.poll(30*time.Second, `document.getElementById("m-state").textContent.includes("Trying again in")`)
	if got := s.eval(`document.getElementById("m-state").textContent`); !strings.Contains(got, "429") {
		t.Errorf("the wait says %q, want the 429 named", got)
	}
	s.waitStage(30*time.Second, "model-error")
	msg := s.eval(`document.getElementById("m-error").textContent`)
	if !strings.Contains(msg, "401") || !strings.Contains(msg, "injected failure") || !strings.Contains(msg, "Resume") {
		t.Errorf("the endpoint error is shown as %q", msg)
	}
	f.mu.Lock()
	if f.calls != 9 {
		t.Errorf("the run paused after %d requests, want 9 (the 429 and the 500 retried, the 401 not)", f.calls)
	}
	f.mu.Unlock()
	s.shot("model-error-" + size)
	s.do(5*time.Second, chromedp.Click(chromedp.CSS(`[data-act="m-resume"]`)))
	s.waitStage(5*time.Second, "model-run")
	// Stop mid-run, then resume to the end.
	s.do(5*time.Second, chromedp.Click(chromedp.CSS(`[data-act="m-stop"]`)))
	if st := s.waitStage(10*time.Second, "model-stopped", "model-done"); st != "model-stopped" {
		t.Error("the run did not stop")
	} else {
		s.do(5*time.Second, chromedp.Click(chromedp.CSS(`[data-act="m-resume"]`)))
	}
	s.waitStage(60*time.Second, "model-done")
	s.shot("model-done-" + size)
	checkStory(t, s, "model result", ui.DataModel, 2)

	recJSON := s.eval(`globalThis.normgymLastRecord`)
	var rec ui.Record
	if err := json.Unmarshal([]byte(recJSON), &rec); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, b := range f.bad {
		t.Error(b)
	}
	if !f.probed {
		t.Error("the model was not asked the probe")
	}
	sc, err := v.Score(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Hash != sc.Hash || rec.Hash != base.Hash {
		t.Errorf("record hash %s, host %s, native greedy %s", rec.Hash, sc.Hash, base.Hash)
	}
	if rec.Agent != "fake-model" || rec.Client != "model" || rec.Probe == nil || rec.Probe.Answer != base.Probe.Answer {
		t.Errorf("record agent %q client %q probe %+v", rec.Agent, rec.Client, rec.Probe)
	}
	if strings.Contains(recJSON, f.key) {
		t.Error("the API key is in the record")
	}
	if host := rec.Extra["endpoint"]; host != strings.TrimPrefix(llm.URL, "http://") {
		t.Errorf("extra.endpoint %v", host)
	}
	if v := rec.Extra["prompt_version"]; v != prompt.PromptVersion || rec.Extra["prompt"] != string(prompt.Plain) {
		t.Errorf("extra.prompt %v, prompt_version %v; want %s, %s as eval records", rec.Extra["prompt"], v, prompt.Plain, prompt.PromptVersion)
	}
	if got := s.eval(`localStorage.getItem("normgym.model.apiKey")`); got != f.key {
		t.Errorf("the key is not kept in localStorage (%q)", got)
	}
}

// TestModelCORS runs the model mode against an endpoint that answers but
// sends no CORS headers, as Ollama, LM Studio and others do by default:
// the browser refuses the answer with a bare "Failed to fetch", and the
// page must explain what to set.
func TestModelCORS(t *testing.T) {
	llm := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"choices":[{"message":{"role":"assistant","content":"ACTION: wait"}}]}`)
	}))
	defer llm.Close()
	s := open(t, 1280, 800)
	s.load("#mode=model&visit=orchard/none/control/s1")
	s.waitStage(10*time.Second, "model-form")
	s.eval(`document.getElementById("m-url").value = "` + llm.URL + `/v1"; document.getElementById("m-model").value = "m"; "ok"`)
	s.do(5*time.Second, chromedp.Click(chromedp.CSS(`[data-act="m-start"]`)))
	s.waitStage(30*time.Second, "model-error")
	msg := s.eval(`document.getElementById("m-error").innerText`)
	for _, want := range []string{"CORS", "OLLAMA_ORIGINS=" + s.srv.URL, "--allowed-origins", "lms server start --cors", "llama-server", "Resume"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the CORS failure is explained as %q: it lacks %q", msg, want)
		}
	}
	s.shot("model-cors-1280x800")
}
