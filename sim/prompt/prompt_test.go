package prompt

import (
	"os"
	"strings"
	"testing"

	"github.com/normgym/normgym/sim"
)

// TestPromptsDocumented keeps PROMPTS.md quoting the templates exactly.
func TestLLMPromptsDocumented(t *testing.T) {
	b, err := os.ReadFile("PROMPTS.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	probe := &sim.Probe{Question: "Which of these was the community's unwritten rule?", Options: []string{"A", "B", "C", "D"}}
	for name, text := range map[string]string{
		"plain system prompt": SystemPrompt(Plain, nil),
		"norm-aware text":     strings.TrimSpace(normAwareText),
		"reflect text":        strings.TrimSpace(reflectText),
		"notes heading":       "Your notes from earlier days:\nDay 1:\n",
		"notes request": NotesPrompt(1, 2, []sim.Event{{Kind: "sanction", By: "mara", To: sim.NewcomerID, Text: "Tsk!"},
			{Kind: "day", Text: "Day 2 of 2 begins"}}),
		"probe":          ProbePrompt("<the last observation text>\n", probe),
		"prompt version": "now **" + PromptVersion + "**",
	} {
		if !strings.Contains(doc, text) {
			t.Errorf("PROMPTS.md does not quote the %s:\n%s", name, text)
		}
	}
}

func TestLLMSystemPromptVariants(t *testing.T) {
	plain := SystemPrompt(Plain, nil)
	aware := SystemPrompt(NormAware, nil)
	reflect := SystemPrompt(Reflect, []string{"note-one", "note-two"})
	if !strings.HasSuffix(plain, actionFormat) || !strings.HasSuffix(aware, actionFormat) || !strings.HasSuffix(reflect, actionFormat) {
		t.Errorf("every system prompt must end with the action format")
	}
	if strings.Contains(plain, "unwritten") || !strings.Contains(aware, "unwritten rules") {
		t.Errorf("only norm-aware mentions unwritten rules")
	}
	if !strings.Contains(reflect, "Day 1:\nnote-one\nDay 2:\nnote-two\n") || strings.Contains(SystemPrompt(Plain, []string{"note-one"}), "note-one") {
		t.Errorf("notes appear under reflect only:\n%s", reflect)
	}
	if !strings.Contains(plain, "within 4 tiles") {
		t.Errorf("the system prompt does not state SanctionRadius")
	}
	for _, s := range []string{"plain", "norm-aware", "reflect"} {
		if v, err := ParseVariant(s); err != nil || string(v) != s {
			t.Errorf("ParseVariant(%q) = %q, %v", s, v, err)
		}
	}
	if _, err := ParseVariant("Plain"); err == nil {
		t.Errorf("ParseVariant accepted a wrong case")
	}
}

func size(ms []Message) int {
	n := 0
	for _, m := range ms {
		n += len(m.Content)
	}
	return n
}

func TestLLMConversationBudget(t *testing.T) {
	sys := len(SystemPrompt(Plain, nil))
	c := NewConversation(Plain, sys+250)
	obs := strings.Repeat("o", 100)
	for i := 0; i < 5; i++ {
		ms := c.Ask(obs)
		if size(ms) > sys+250 {
			t.Fatalf("turn %d: %d characters, over the budget", i, size(ms))
		}
		if ms[0].Role != "system" || ms[len(ms)-1].Content != obs || ms[1].Role != "user" {
			t.Fatalf("turn %d: bad shape %+v", i, ms)
		}
		c.Reply("ACTION: north")
	}
	// 100+13 per pair: two pairs and the new turn (326) exceed 250, so one
	// old pair (and the current user turn) remain.
	if got, want := len(c.Ask(obs)), 4; got != want {
		t.Errorf("%d messages, want %d", got, want)
	}
	if c.Dropped() != 8 {
		t.Errorf("dropped %d turns, want 8", c.Dropped())
	}
	// A single turn over the budget is still sent.
	big := NewConversation(Plain, 10)
	if ms := big.Ask(obs); len(ms) != 2 {
		t.Errorf("an oversized first turn: %d messages, want 2", len(ms))
	}
	// No budget keeps everything.
	all := NewConversation(Plain, 0)
	for i := 0; i < 50; i++ {
		all.Ask(obs)
		all.Reply("x")
	}
	if got := len(all.Transcript()); got != 101 {
		t.Errorf("unbounded transcript has %d messages, want 101", got)
	}
}

func TestLLMConversationReflect(t *testing.T) {
	c := NewConversation(Reflect, 0)
	c.Ask("day 1 obs")
	c.Reply("ACTION: wait")
	c.Ask(NotesPrompt(1, 2, nil))
	c.Reply("NOTES:  avoid the band  ")
	c.EndDay("NOTES:  avoid the band  ")
	ms := c.Ask("day 2 obs")
	if len(ms) != 2 || !strings.Contains(ms[0].Content, "Day 1:\navoid the band\n") || ms[1].Content != "day 2 obs" {
		t.Errorf("after EndDay: %+v", ms)
	}
	if n := c.Notes(); len(n) != 1 || n[0] != "avoid the band" {
		t.Errorf("notes %q", n)
	}
	// Other variants keep the transcript.
	p := NewConversation(Plain, 0)
	p.Ask("a")
	p.Reply("b")
	p.EndDay("ignored")
	if ms := p.Ask("c"); len(ms) != 4 || strings.Contains(ms[0].Content, "ignored") {
		t.Errorf("plain after EndDay: %+v", ms)
	}
}
