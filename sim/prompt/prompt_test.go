package prompt

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/normgym/normgym/sim"
)

// TestPromptsDocumented keeps PROMPTS.md quoting the templates exactly.
func TestPromptsDocumented(t *testing.T) {
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
		"full-replies line":   historyFull,
		"notes heading":       "Your notes from earlier days:\nDay 1:\n",
		"notes request": NotesPrompt(1, 2, []sim.Event{{Kind: "sanction", By: "mara", To: sim.NewcomerID, Text: "Tsk!",
			Did: "had just walked north onto 3,4 (blue grass, garden)"}, {Kind: "day", Text: "Day 2 of 2 begins"}}),
		"probe":           ProbePrompt("<the last observation text>\n", probe),
		"prompt version":  "now **" + PromptVersion + "**",
		"no-action reply": NoActionReply,
		"summary header":  SummaryHeader,
		"default budget":  "default " + thousands(DefaultBudget) + " characters",
	} {
		if !strings.Contains(doc, text) {
			t.Errorf("PROMPTS.md does not quote the %s:\n%s", name, text)
		}
	}
}

// thousands writes n with commas, as PROMPTS.md does.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func TestSystemPromptVariants(t *testing.T) {
	plain := SystemPrompt(Plain, nil)
	aware := SystemPrompt(NormAware, nil)
	reflect := SystemPrompt(Reflect, []string{"note-one", "note-two"})
	for _, p := range []string{plain, aware, reflect} {
		if !strings.HasSuffix(p, actionFormat) {
			t.Errorf("every system prompt must end with the action format")
		}
		for _, want := range []string{
			"Bows mean something here: people bow only when a custom of the community calls for it; a bow that no custom calls for is out of place.",
			"Positions are written x,y",
			"(source, basket, bell, well, bin, litter)",
			"give one each to some of the members, and get rid of the litter",
			`"Step S, <phase>."`,
			`"Now:"`,
			historyCompact,
		} {
			if !strings.Contains(p, want) {
				t.Errorf("a system prompt lacks %q", want)
			}
		}
	}
	if strings.Contains(plain, "unwritten") || !strings.Contains(aware, "unwritten rules") {
		t.Errorf("only norm-aware mentions unwritten rules")
	}
	if !strings.Contains(reflect, "Day 1:\nnote-one\nDay 2:\nnote-two\n") || strings.Contains(SystemPrompt(Plain, []string{"note-one"}), "note-one") {
		t.Errorf("notes appear under reflect only:\n%s", reflect)
	}
	if !strings.Contains(plain, fmt.Sprintf("within %d tiles", sim.SanctionRadius)) {
		t.Errorf("the system prompt does not state SanctionRadius")
	}
	if full := systemPrompt(Plain, nil, Options{FullReplies: true}); !strings.Contains(full, historyFull) || strings.Contains(full, historyCompact) {
		t.Errorf("full replies are not said so")
	}
	if !strings.Contains(plain, sim.ViewMark[:len(sim.ViewMark)-1]) {
		t.Errorf("the system prompt does not name the view's mark %q", sim.ViewMark)
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
