package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/normgym/normgym/serve/llm"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/agents"
	"github.com/normgym/normgym/sim/prompt"
)

// demoLine is one line of demos' output, read strictly.
type demoLineOut struct {
	Messages []prompt.Message `json:"messages"`
	Metadata demoMeta         `json:"metadata"`
}

// readDemos reads a demos file strictly, checking each line's size.
func readDemos(t *testing.T, path string, maxTokens int) []demoLineOut {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	var out []demoLineOut
	for i := 1; sc.Scan(); i++ {
		if n := (len(sc.Bytes()) + 1 + 3) / 4; n > maxTokens {
			t.Fatalf("line %d: %d tokens (characters / 4), over %d", i, n, maxTokens)
		}
		var d demoLineOut
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&d); err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
		out = append(out, d)
	}
	return out
}

// TestDemos: one line per visit, in the selection's order, is the visit's
// last request (system prompt, past steps as recaps, the last view) with
// the baseline's reply, every assistant turn the baseline's action, and
// metadata naming the visit, the agent and its scores.
func TestDemos(t *testing.T) {
	for _, tt := range []struct {
		agent   string
		variant prompt.Variant
	}{{"oracle", prompt.Plain}, {"observer", prompt.NormAware}} {
		t.Run(tt.agent, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "demos.jsonl")
			code, _, stderr := runCLI(t, "", "demos", "--agent", tt.agent, "--suite", "train", "--limit", "3", "--prompt", string(tt.variant), "--out", out)
			if code != 0 || !strings.Contains(stderr, "wrote 3 examples of 3 visits") {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			suite, _ := sim.LookupSuite("train")
			lines := readDemos(t, out, 16000)
			if len(lines) != 3 {
				t.Fatalf("%d lines, want 3", len(lines))
			}
			for i, d := range lines {
				checkDemo(t, suite.Visits[i], tt.agent, tt.variant, d)
			}
		})
	}
}

// checkDemo compares a visit's demo with the baseline's own run of it.
func checkDemo(t *testing.T, visit, agent string, v prompt.Variant, d demoLineOut) {
	t.Helper()
	env, err := agents.Play(visit, agent)
	if err != nil {
		t.Fatal(err)
	}
	rec := env.Record(agent, "baseline")
	m := d.Metadata
	if m.Visit != visit || m.Agent != agent || m.Prompt != string(v) || m.PromptVersion != prompt.PromptVersion || m.Scores.Joint != rec.Scores.Joint ||
		m.Suite != "train" || m.Requests != m.Request || m.ContextBudget != 16000*4*7/8 {
		t.Fatalf("%s: metadata %+v", visit, m)
	}
	ms := d.Messages
	if ms[0].Role != "system" || ms[0].Content != prompt.SystemPrompt(v, nil) {
		t.Fatalf("%s: the first message is not the system prompt", visit)
	}
	var acts []string
	for _, msg := range ms[1:] {
		if msg.Role == "assistant" && strings.HasPrefix(msg.Content, "ACTION: ") {
			acts = append(acts, strings.TrimPrefix(msg.Content, "ACTION: "))
		}
	}
	last := ms[len(ms)-1]
	if pr := env.Probe(); pr != nil {
		if want := fmt.Sprintf("ANSWER: %d", rec.Probe.Answer+1); last.Content != want || m.Kind != "probe" {
			t.Fatalf("%s: the last reply %q (%s), want %q", visit, last.Content, m.Kind, want)
		}
	} else {
		acts = acts[:len(acts)-1] // the control visit's last action closes the line
	}
	if len(acts) < len(rec.Actions)-1 || !slicesEqualPrefix(acts, rec.Actions) {
		t.Fatalf("%s: the assistant turns' actions differ from the baseline's %d actions", visit, len(rec.Actions))
	}
}

func slicesEqualPrefix(a, b []string) bool {
	if len(a) > len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestDemosUsage(t *testing.T) {
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"reflect", []string{"demos", "--prompt", "reflect"}, "cannot use the reflect prompt"},
		{"unknown agent", []string{"demos", "--agent", "wizard"}, "needs one baseline"},
		{"several agents", []string{"demos", "--agent", "oracle,observer"}, "needs one baseline"},
		{"bad suite", []string{"demos", "--suite", "huge"}, `unknown suite "huge"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, "", tt.args...)
			if code != 2 || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, tt.want)
			}
		})
	}
	if code, _, stderr := runCLI(t, "", "demos", "-h"); code != 0 || !strings.Contains(stderr, "Usage: normgym demos") {
		t.Errorf("demos -h: exit %d, %q", code, stderr)
	}
}

// TestDemosAreEvalRequests: demos --per-step on a stratified sample of
// standard writes lines of at most 16k tokens, and each line's messages
// are byte for byte the request eval sends for the same visit and actions:
// an endpoint that answers eval's requests from the demos (and fails on a
// request no line holds) makes eval play the baseline's visits, and every
// request it receives is a line's, in order.
func TestDemosAreEvalRequests(t *testing.T) {
	setKey(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "demos.jsonl")
	code, _, stderr := runCLI(t, "", "demos", "--agent", "observer", "--suite", "standard", "--sample", "3", "--seed", "1", "--per-step", "--out", out)
	if code != 0 {
		t.Fatalf("demos: exit %d, stderr %q", code, stderr)
	}
	lines := readDemos(t, out, 16000)
	answer := map[string]string{}
	var visits []string
	for _, d := range lines {
		req, _ := json.Marshal(d.Messages[:len(d.Messages)-1])
		answer[string(req)] = d.Messages[len(d.Messages)-1].Content
		if len(visits) == 0 || visits[len(visits)-1] != d.Metadata.Visit {
			visits = append(visits, d.Metadata.Visit)
		}
		if d.Metadata.Request == d.Metadata.Requests && d.Metadata.Kind == "probe" && d.Metadata.ProbeCorrect == nil {
			t.Errorf("%s: the probe's line has no probe_correct", d.Metadata.Visit)
		}
	}
	su, _ := sim.LookupSuite("standard")
	if want := sim.Sample(su.Visits, 3, 1); !slices.Equal(visits, want) {
		t.Fatalf("demos wrote visits %v, want the sample %v", visits, want)
	}
	f := newFakeLLM(t, testKey, "fake-demo")
	f.policy = func(req llm.Request) string {
		b, _ := json.Marshal(req.Messages)
		a, ok := answer[string(b)]
		if !ok {
			t.Errorf("eval sent a request no demo line holds (%d messages)", len(req.Messages))
			return "ACTION: wait"
		}
		return a
	}
	budget := fmt.Sprint(lines[0].Metadata.ContextBudget)
	code, _, stderr = evalCLI(context.Background(), evalArgs(f, dir, "--native", "--parallel", "1", "--sample", "3", "--seed", "1",
		"--context-budget", budget, "--suite", "standard")...)
	if code != 0 {
		t.Fatalf("eval: exit %d, stderr %q", code, stderr)
	}
	reqs := f.requests()
	if len(reqs) != len(lines) {
		t.Fatalf("eval sent %d requests, demos wrote %d lines", len(reqs), len(lines))
	}
	for i, r := range reqs {
		if !slices.Equal(r.Messages, lines[i].Messages[:len(lines[i].Messages)-1]) {
			t.Fatalf("request %d differs from line %d", i+1, i+1)
		}
	}
}
