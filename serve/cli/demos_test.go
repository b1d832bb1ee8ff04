package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/agents"
	"github.com/normgym/normgym/sim/prompt"
)

func TestDemos(t *testing.T) {
	for _, tt := range []struct {
		agent   string
		variant prompt.Variant
	}{{"oracle", prompt.Plain}, {"observer", prompt.NormAware}} {
		t.Run(tt.agent, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "demos.jsonl")
			code, _, stderr := runCLI(t, "", "demos", "--agent", tt.agent, "--suite", "train", "--limit", "3", "--prompt", string(tt.variant), "--out", out)
			if code != 0 || !strings.Contains(stderr, "wrote 3 conversations") {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			f, err := os.Open(out)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			sc := bufio.NewScanner(f)
			sc.Buffer(nil, 16<<20)
			suite, _ := sim.LookupSuite("train")
			i := 0
			for ; sc.Scan(); i++ {
				var d struct {
					Messages []prompt.Message `json:"messages"`
				}
				dec := json.NewDecoder(strings.NewReader(sc.Text()))
				dec.DisallowUnknownFields()
				if err := dec.Decode(&d); err != nil {
					t.Fatalf("line %d: %v", i+1, err)
				}
				checkDemo(t, suite.Visits[i], tt.agent, tt.variant, d.Messages)
			}
			if i != 3 {
				t.Errorf("%d lines, want 3", i)
			}
		})
	}
}

// checkDemo compares a demo with the baseline's own run of the visit: the
// system prompt a model gets, each observation text, each action, the
// probe and its answer.
func checkDemo(t *testing.T, visit, agent string, v prompt.Variant, ms []prompt.Message) {
	t.Helper()
	env, err := agents.Play(visit, agent)
	if err != nil {
		t.Fatal(err)
	}
	rec := env.Record(agent, "baseline")
	texts, last, _ := nativeTexts(t, rec)
	want := []prompt.Message{{Role: "system", Content: prompt.SystemPrompt(v, nil)}}
	for k, a := range rec.Actions {
		want = append(want, prompt.Message{Role: "user", Content: texts[k]}, prompt.Message{Role: "assistant", Content: "ACTION: " + a})
	}
	if pr := env.Probe(); pr != nil {
		want = append(want, prompt.Message{Role: "user", Content: prompt.ProbePrompt(last, pr)},
			prompt.Message{Role: "assistant", Content: fmt.Sprintf("ANSWER: %d", rec.Probe.Answer+1)})
	}
	if len(ms) != len(want) {
		t.Fatalf("%s: %d messages, want %d", visit, len(ms), len(want))
	}
	for k := range want {
		if ms[k] != want[k] {
			t.Fatalf("%s: message %d:\n got %+v\nwant %+v", visit, k, ms[k], want[k])
		}
	}
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
