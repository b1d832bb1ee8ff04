//go:build !js

package chat_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/normgym/normgym/sim/agents"
	"github.com/normgym/normgym/sim/prompt"
	"github.com/normgym/normgym/web/internal/chat"
	"github.com/normgym/normgym/web/internal/ui"
	"github.com/normgym/normgym/web/internal/wasmtest"
)

// httpPoster is chat.Poster over net/http.
type httpPoster struct{}

func (httpPoster) Post(url string, h map[string]string, body []byte) (chat.HTTPResponse, error) {
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return chat.HTTPResponse{}, err
	}
	for k, v := range h {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return chat.HTTPResponse{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return chat.HTTPResponse{Status: resp.StatusCode, Body: b, RetryAfter: resp.Header.Get("Retry-After")}, err
}

// endpoint is a scripted chat-completions endpoint: it answers with
// reply(request number, messages), or with the status fails[n] for the
// n-th request (1-based).
type endpoint struct {
	t     *testing.T
	mu    sync.Mutex
	calls int
	fails map[int]int
	reply func(n int, ms []prompt.Message) string
	sent  [][]prompt.Message // the requests answered
}

func (e *endpoint) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.calls++
	var body prompt.Request
	if err := json.NewDecoder(req.Body).Decode(&body); err != nil {
		e.t.Error(err)
	}
	if body.Messages[0].Content != prompt.SystemPrompt(prompt.Plain, nil) || req.Header.Get("Authorization") != "Bearer k" {
		e.t.Error("request without the system prompt or the key")
	}
	if code, ok := e.fails[e.calls]; ok {
		w.WriteHeader(code)
		fmt.Fprintf(w, `{"error":{"message":"failure %d"}}`, code)
		return
	}
	e.sent = append(e.sent, body.Messages)
	content := e.reply(len(e.sent)-1, body.Messages)
	json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]string{"role": "assistant", "content": content}}}})
}

// TestRunner plays a visit with a scripted endpoint: the prompts are the
// sim's text; a 500 and a 429 are retried by the policy (Hooks.Wait), a
// 401 holds the run until Resume, and so does Stop; unparseable replies
// become "wait" and are counted; the record is the model's, with eval's
// extra.
func TestRunner(t *testing.T) {
	id := "park/place.color=red/solo/s102"
	v, err := agents.Play(id, "greedy")
	if err != nil {
		t.Fatal(err)
	}
	base := v.Record("greedy", "baseline")
	script := append([]string{"", "hmm"}, base.Actions...) // two format errors: two waits
	e := &endpoint{t: t, fails: map[int]int{3: 500, 9: 429, 12: 401}, reply: func(n int, ms []prompt.Message) string {
		if strings.Contains(ms[len(ms)-1].Content, "\nOne last question.") {
			return "ANSWER: 1"
		}
		if n < len(script) {
			return "ACTION: " + script[n]
		}
		return "ACTION: wait"
	}}
	srv := httptest.NewServer(e)
	defer srv.Close()
	r, err := chat.NewRunner(wasmtest.Client(t), ui.Resolved{ID: id}, chat.Config{BaseURL: srv.URL, Model: "m", APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	var waits, holds []string
	steps := 0
	r.Stop() // held before the first request
	err = r.Run(httpPoster{}, chat.Hooks{
		Turn: func(turn chat.Turn, shown ui.StepResponse) {
			if turn.Kind == "step" {
				steps++
				if shown.Text == "" || shown.Observation == nil || shown.Text != r.Last.Text {
					t.Errorf("turn %d: the screen after the step is empty", steps)
				}
			}
		},
		Wait: func(err error, d time.Duration, attempt int) bool {
			waits = append(waits, fmt.Sprint(err.(*chat.EndpointError).Status))
			return true
		},
		Hold: func(err error) {
			holds = append(holds, fmt.Sprint(err))
			r.Resume()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(waits, " "), "500 429"; got != want {
		t.Errorf("waits before retries after %s, want %s", got, want)
	}
	if len(holds) != 2 || holds[0] != "<nil>" || !strings.Contains(holds[1], "401") {
		t.Errorf("holds %q, want Stop's, then the 401's", holds)
	}
	rec := r.Record
	x, ok := prompt.ReadExtra(rec.Extra)
	if !ok || r.FormatErrors != 2 || x.FormatErrors != 2 || x.App != "normgym-web" || x.Prompt != "plain" || x.PromptVersion != prompt.PromptVersion {
		t.Errorf("format errors %d, extra %+v", r.FormatErrors, x)
	}
	if got, want := strings.Join(rec.Actions[2:], ","), strings.Join(base.Actions[:len(rec.Actions)-2], ","); got != want {
		t.Errorf("actions after the two waits differ from the script")
	}
	if rec.Client != "model" || rec.Agent != "m" || rec.Probe == nil || rec.Probe.Answer != 0 || rec.Probe.Confidence != nil {
		t.Errorf("record %q %q probe %+v", rec.Client, rec.Agent, rec.Probe)
	}
	if steps != len(rec.Actions) || len(r.Turns) != steps+1 || x.Usage.Requests != steps+1 {
		t.Errorf("%d step turns, %d turns, %d requests for %d actions", steps, len(r.Turns), x.Usage.Requests, len(rec.Actions))
	}
	if b, _ := json.Marshal(rec); bytes.Contains(b, []byte(`"k"`)) {
		t.Error("the key is in the record")
	}
}

// TestRunnerClose: a run closed while it holds ends with ErrClosed.
func TestRunnerClose(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(401) }))
	defer srv.Close()
	r, err := chat.NewRunner(wasmtest.Client(t), ui.Resolved{ID: "orchard/none/control/s1"}, chat.Config{BaseURL: srv.URL, Model: "m", APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	err = r.Run(httpPoster{}, chat.Hooks{Hold: func(error) { r.Close() }})
	if !errors.Is(err, chat.ErrClosed) || r.Done() {
		t.Errorf("Run = %v, done %v; want ErrClosed", err, r.Done())
	}
}
