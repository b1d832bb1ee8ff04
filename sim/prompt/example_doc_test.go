package prompt

import (
	"os"
	"strings"
	"testing"

	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/agents"
)

// TestPromptsExampleIsReal holds PROMPTS.md's example conversation to the
// fourth request of the visit it names, played by greedy: every line it
// shows, up to the map it cuts, is what the conversation sends.
func TestPromptsExampleIsReal(t *testing.T) {
	b, err := os.ReadFile("PROMPTS.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	const visit = "orchard/place.color=blue/observe/s17"
	if !strings.Contains(doc, "the fourth request of a visit (`"+visit+"` played by greedy;") {
		t.Fatalf("PROMPTS.md no longer names the example's visit %s", visit)
	}
	_, rest, _ := strings.Cut(doc, "system prompt left out, map cut):\n\n```text\n")
	example, _, _ := strings.Cut(rest, "…\n```")
	env, obs, err := sim.NewVisit(visit)
	if err != nil {
		t.Fatal(err)
	}
	p, err := agents.New("greedy")
	if err != nil {
		t.Fatal(err)
	}
	c := NewConversation(Plain, DefaultOptions())
	var req []Message
	for range 4 {
		req = c.Ask(obs.Text())
		a := p.Act(obs)
		c.Reply("ACTION: " + a.String())
		res, err := env.Step(a)
		if err != nil {
			t.Fatal(err)
		}
		obs = res.Observation
	}
	var got strings.Builder
	for _, m := range req[1:] {
		got.WriteString("[" + m.Role + "]\n" + strings.TrimSuffix(m.Content, "\n") + "\n")
	}
	want, _, _ := strings.Cut(got.String(), "\n\nMap (")
	want += "\n\nMap (x grows east, y grows south):\n"
	if example != want {
		t.Errorf("PROMPTS.md's example:\n%s\nthe fourth request of %s, cut at the map:\n%s", example, visit, want)
	}
}
