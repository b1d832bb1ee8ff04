//go:build !js

package chat_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/normgym/normgym/sim"
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

// TestRunner plays a visit with a scripted endpoint: every request carries
// the system prompt and ends with the sim's text; failures leave the run
// where it was; unparseable replies become "wait" and are counted.
func TestRunner(t *testing.T) {
	id := "park/place.color=red/solo/s102"
	env, err := agents.Play(id, "greedy")
	if err != nil {
		t.Fatal(err)
	}
	base := env.Record("greedy", "baseline")

	c := wasmtest.Client(t)
	r, err := chat.NewRunner(c, ui.Resolved{ID: id}, chat.Config{BaseURL: "", Model: "m", APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Play.Close()

	var script []string                // replies, in order
	script = append(script, "", "hmm") // two format errors: two waits
	for _, a := range base.Actions {
		script = append(script, "ACTION: "+a)
	}
	calls, fails := 0, map[int]int{3: 500, 9: 429}
	var lastPrompt string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		calls++
		var body chat.Request
		if err := json.NewDecoder(req.Body).Decode(&body); err != nil {
			t.Error(err)
		}
		if body.Messages[0].Content != prompt.SystemPrompt(prompt.Plain, nil) || req.Header.Get("Authorization") != "Bearer k" {
			t.Error("request without the system prompt or the key")
		}
		lastPrompt = body.Messages[len(body.Messages)-1].Content
		if code, ok := fails[calls]; ok {
			w.WriteHeader(code)
			fmt.Fprintf(w, `{"error":{"message":"failure %d"}}`, code)
			return
		}
		reply := "ANSWER: 1"
		if !strings.Contains(lastPrompt, "\nOne last question.") {
			reply = "ACTION: wait"
			if len(script) > 0 {
				reply, script = script[0], script[1:]
			}
		}
		json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]string{"role": "assistant", "content": reply}}}})
	}))
	defer srv.Close()
	r.Config.BaseURL = srv.URL

	errs := 0
	for !r.Done() {
		want := r.Play.Last.Text
		_, err := r.Next(httpPoster{})
		if err != nil {
			errs++
			if _, ok := err.(*chat.EndpointError); !ok {
				t.Fatalf("error %T %v, want an EndpointError", err, err)
			}
			continue
		}
		if r.Turns[len(r.Turns)-1].Kind == "step" && lastPrompt != want {
			t.Fatalf("prompt %q, want the sim's text %q", lastPrompt, want)
		}
		if errs > 10 {
			t.Fatal("too many errors")
		}
	}
	if errs != 2 {
		t.Errorf("%d endpoint errors, want 2", errs)
	}
	rec := r.Play.Record
	if r.FormatErrors != 2 || rec.Extra["format_errors"] != 2 {
		t.Errorf("format errors %d / %v, want 2", r.FormatErrors, rec.Extra["format_errors"])
	}
	if got, want := strings.Join(rec.Actions[2:], ","), strings.Join(base.Actions[:len(rec.Actions)-2], ","); got != want {
		t.Errorf("actions after the two waits differ from the script")
	}
	if rec.Client != "model" || rec.Agent != "m" || rec.Probe == nil || rec.Probe.Answer != 0 {
		t.Errorf("record %q %q probe %+v", rec.Client, rec.Agent, rec.Probe)
	}
	if rec.Extra["prompt"] != "plain" || rec.Extra["prompt_version"] != prompt.PromptVersion {
		t.Errorf("extra.prompt %v prompt_version %v, want plain %s", rec.Extra["prompt"], rec.Extra["prompt_version"], prompt.PromptVersion)
	}
	b, _ := json.Marshal(rec)
	if bytes.Contains(b, []byte(`"k"`)) {
		t.Error("the key is in the record")
	}
}

// TestHistoryPolicy checks that requests follow prompt.Conversation's
// policy: the plain system prompt, the earlier turns cut back, the new
// turn, and an unanswered turn asked again is sent unchanged.
func TestHistoryPolicy(t *testing.T) {
	c := wasmtest.Client(t)
	r, err := chat.NewRunner(c, ui.Resolved{ID: "orchard/none/control/s1"}, chat.Config{Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Play.Close()
	msgs := r.Messages("now")
	if len(msgs) != 2 || msgs[0].Role != "system" || msgs[0].Content != prompt.SystemPrompt(prompt.Plain, nil) || msgs[1].Content != "now" {
		t.Fatalf("first request %+v", msgs)
	}
	if again := r.Messages("now"); len(again) != 2 {
		t.Errorf("a retried turn was asked twice: %d messages", len(again))
	}
}

// TestSameMessagesAsHarness plays visits in the browser's model mode (the
// sim.wasm module under wazero, as in the browser) and through
// prompt.Play, the reference that `normgym eval` is held to
// (serve/cli TestEvalMatchesReference), with the same replies: every
// request's messages are byte-identical, across both days, with format
// errors and an endpoint error in between; so is the history recorded.
func TestSameMessagesAsHarness(t *testing.T) {
	for _, id := range []string{"market/place.terrain=grass/observe/s104", "park/place.color=red/solo/s102"} {
		t.Run(id, func(t *testing.T) {
			// The replies: a reasoning line and the greedy baseline's
			// action, every 13th reply without an ACTION line.
			env, err := agents.Play(id, "greedy")
			if err != nil {
				t.Fatal(err)
			}
			acts := env.Actions()
			reply := func(ms []prompt.Message, n int) string {
				if strings.Contains(ms[len(ms)-1].Content, "\nOne last question.") {
					return "I think so.\nANSWER: 2"
				}
				if n%13 == 12 {
					return "Let me look around first."
				}
				a := "wait"
				if n < len(acts) {
					a = acts[n]
				}
				return fmt.Sprintf("Step %d: on with the errand.\n**ACTION: %s**", n, a)
			}

			var browser [][]prompt.Message
			calls := 0
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
				var body chat.Request
				if err := json.NewDecoder(req.Body).Decode(&body); err != nil {
					t.Error(err)
				}
				if calls++; calls == 6 { // an endpoint error: the runner sends the same request again
					w.WriteHeader(503)
					return
				}
				browser = append(browser, body.Messages)
				content := reply(body.Messages, len(browser)-1)
				json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]string{"role": "assistant", "content": content}}}})
			}))
			defer srv.Close()
			r, err := chat.NewRunner(wasmtest.Client(t), ui.Resolved{ID: id}, chat.Config{BaseURL: srv.URL, Model: "m"})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Play.Close()
			errs := 0
			for !r.Done() {
				if _, err := r.Next(httpPoster{}); err != nil {
					if errs++; errs > 1 {
						t.Fatal(err)
					}
				}
			}

			var harness [][]prompt.Message
			penv, conv, err := prompt.Play(id, chat.Variant, chat.Options(), func(_ prompt.Kind, ms []prompt.Message) string {
				harness = append(harness, ms)
				return reply(ms, len(harness)-1)
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(browser) != len(harness) || len(harness) < sim.PracticeSteps {
				t.Fatalf("the browser sent %d requests, the harness %d", len(browser), len(harness))
			}
			for i := range harness {
				a, _ := json.Marshal(browser[i])
				b, _ := json.Marshal(harness[i])
				if !bytes.Equal(a, b) {
					t.Fatalf("request %d: the browser's messages differ from the harness's", i+1)
				}
			}
			rec := r.Play.Record
			if rec.Hash != penv.Hash() {
				t.Errorf("hash %s, harness %s", rec.Hash, penv.Hash())
			}
			got, _ := json.Marshal(rec.Extra["history"])
			want, _ := json.Marshal(conv.History())
			if !bytes.Equal(got, want) {
				t.Errorf("extra.history\n%s\nwant\n%s", got, want)
			}
		})
	}
}
