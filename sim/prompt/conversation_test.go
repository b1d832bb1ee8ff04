package prompt

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/agents"
)

func TestCutBackAndShortReply(t *testing.T) {
	for _, tt := range []struct{ name, in, want string }{
		{"recap and view", "Step 3, noon. you, mara wait;\nNow: day 1 of 2\nmap\n", "Step 3, noon. you, mara wait;\n"},
		{"no view", "Day 1 of 2 is over.\nWrite notes.", "Day 1 of 2 is over.\nWrite notes."},
		{"view only", "Now: day 1 of 2\nmap\n", "Now: day 1 of 2\nmap\n"},
		{"mark mid-line is not a view", "said Now: hello\n", "said Now: hello\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := CutBack(tt.in)
			if got != tt.want || !strings.HasPrefix(tt.in, got) {
				t.Errorf("CutBack(%q) = %q, want %q (a prefix of it)", tt.in, got, tt.want)
			}
		})
	}
	for _, tt := range []struct{ reply, want string }{
		{"I go north.\n**ACTION: n**", "ACTION: north"},
		{"ACTION: give Mara", "ACTION: give mara"},
		{"ACTION: fly", NoActionReply},
		{"", NoActionReply},
	} {
		if got := ShortReply(tt.reply); got != tt.want {
			t.Errorf("ShortReply(%q) = %q, want %q", tt.reply, got, tt.want)
		}
	}
}

func TestSharedPrefix(t *testing.T) {
	sys := Message{"system", "sys"}
	for _, tt := range []struct {
		name       string
		prev, next []Message
		want       int
	}{
		{"first request", nil, []Message{sys, {"user", "abc"}}, 0},
		{"cut back", []Message{sys, {"user", "recap\nNow: v"}}, []Message{sys, {"user", "recap\n"}, {"assistant", "x"}, {"user", "r2"}}, 3 + 6},
		{"system changed", []Message{sys, {"user", "a"}}, []Message{{"system", "syX"}, {"user", "a"}}, 2},
		{"role differs", []Message{sys, {"user", "a"}}, []Message{sys, {"assistant", "a"}}, 3},
		{"identical", []Message{sys, {"user", "a"}}, []Message{sys, {"user", "a"}}, 4},
	} {
		if got := SharedPrefix(tt.prev, tt.next); got != tt.want {
			t.Errorf("%s: SharedPrefix = %d, want %d", tt.name, got, tt.want)
		}
	}
}

func TestSummarizeLines(t *testing.T) {
	in := "Step 5, morning. you north to 10,6 (yellow stone); mara east to 6,0 (path); olek wait;\n" +
		`Mara sanctioned you; you had just walked north onto 10,6 (yellow stone): "Tsk!"` + "\n" +
		"Day 2 of 2 begins (test day): a new layout.\nMembers today: mara (elder, red hat) at 1,1 (floor).\n"
	want := []string{
		"Step 5, morning. you north to 10,6 (yellow stone);",
		`Mara sanctioned you; you had just walked north onto 10,6 (yellow stone): "Tsk!"`,
		"Day 2 of 2 begins (test day): a new layout.",
		"Members today: mara (elder, red hat) at 1,1 (floor).",
	}
	if got := summarize(in); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("summarize:\n got %q\nwant %q", got, want)
	}
	for line, want := range map[string]bool{"Step 5, noon. x": true, "Day 1 of 2 begins": false, "Step x, y": false, "Steps 2, z": false} {
		if isStepLine(line) != want {
			t.Errorf("isStepLine(%q) = %v", line, !want)
		}
	}
}

// TestConversationShape checks the cut-back rule on a few turns: past user
// turns keep their recap, past replies their ACTION line, the latest turn
// is whole.
func TestConversationShape(t *testing.T) {
	c := NewConversation(Plain, DefaultOptions())
	c.Ask("r1\nNow: v1\n")
	c.Reply("thinking\nACTION: n")
	c.Ask("r2\nNow: v2\n")
	c.Reply("no idea")
	ms := c.Ask("r3\nNow: v3\n")
	want := []Message{{"system", SystemPrompt(Plain, nil)}, {"user", "r1\n"}, {"assistant", "ACTION: north"},
		{"user", "r2\n"}, {"assistant", NoActionReply}, {"user", "r3\nNow: v3\n"}}
	if fmt.Sprint(ms) != fmt.Sprint(want) {
		t.Errorf("messages\n got %q\nwant %q", ms, want)
	}
	full := NewConversation(Plain, Options{FullReplies: true})
	full.Ask("r1\nNow: v1\n")
	full.Reply("thinking\nACTION: n")
	if ms := full.Ask("r2\nNow: v2\n"); ms[2].Content != "thinking\nACTION: n" || ms[1].Content != "r1\n" {
		t.Errorf("full replies: %q", ms)
	}
	h := c.History()
	sys := len(want[0].Content)
	sent := sys + len("r1\nNow: v1\n") + sys + len("r1\n"+"ACTION: north"+"r2\nNow: v2\n") + Chars(ms)
	unshared := sys + len("r1\nNow: v1\n") + len("ACTION: north"+"r2\nNow: v2\n") + len(NoActionReply+"r3\nNow: v3\n")
	if h.Requests != 3 || h.SentChars != sent || h.UnsharedChars != unshared || h.MaxRequestChars != Chars(ms) {
		t.Errorf("history %+v", h)
	}
}

func TestConversationReflect(t *testing.T) {
	c := NewConversation(Reflect, DefaultOptions())
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
	if h := c.History(); h.DroppedTurns != 4 {
		t.Errorf("dropped %d turns, want 4", h.DroppedTurns)
	}
	// Other variants keep the transcript.
	p := NewConversation(Plain, DefaultOptions())
	p.Ask("a")
	p.Reply("b")
	p.EndDay("ignored")
	if ms := p.Ask("c"); len(ms) != 4 || strings.Contains(ms[0].Content, "ignored") {
		t.Errorf("plain after EndDay: %+v", ms)
	}
}

// sample returns every k-th visit of a suite: with k prime to the suite's
// 16 visits per norm, it spans conditions, families and worlds.
func sample(t testing.TB, suite string, k int) []string {
	s, err := sim.LookupSuite(suite)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for i := 0; i < len(s.Visits); i += k {
		out = append(out, s.Visits[i])
	}
	return out
}

// Model answers a request's messages with a reply's text: the tests'
// scripted models.
type Model func(kind Kind, messages []Message) string

// play plays visit id natively under Run with model as the newcomer and
// returns the finished visit and the record's extra.
func play(id string, v Variant, opt Options, model Model) (*sim.Visit, Extra, error) {
	env := new(sim.Native)
	chat := func(_ context.Context, req Request) (Reply, error) {
		return Reply{Content: model(req.Kind, req.Messages)}, nil
	}
	_, x, err := Run(context.Background(), env, id, Settings{Variant: v, Options: opt, Model: "m"}, chat, nil)
	return env.Visit(), x, err
}

// scripted returns a Model that plays the actions of baseline name on
// visit id (its trajectory, whatever the prompts say), writing some
// reasoning before each ACTION line and, every badEvery-th step (0:
// never), a reply without one.
func scripted(t testing.TB, id, name string, badEvery int) Model {
	env, err := agents.Play(id, name)
	if err != nil {
		t.Fatal(err)
	}
	acts := env.Actions()
	step := 0
	return func(kind Kind, ms []Message) string {
		switch kind {
		case AskNotes:
			return "NOTES: the elder frowned when I crossed the band."
		case AskProbe:
			return "ANSWER: 2"
		}
		step++
		if badEvery > 0 && step%badEvery == 0 {
			return "I am not sure what to do."
		}
		a := sim.Wait
		if step-1 < len(acts) {
			a = acts[step-1]
		}
		return fmt.Sprintf("Step %d. I will keep to my errand.\nACTION: %s", step, a)
	}
}

// recorder wraps a Model and keeps every request and reply.
type recorder struct {
	model   Model
	kinds   []Kind
	reqs    [][]Message
	replies []string
}

func (r *recorder) ask(kind Kind, ms []Message) string {
	reply := r.model(kind, ms)
	r.kinds = append(r.kinds, kind)
	r.reqs = append(r.reqs, ms)
	r.replies = append(r.replies, reply)
	return reply
}

// TestEvidenceKept plays a sample of standard's visits with a scripted
// model under the default settings: at the first step of the test day,
// every line of the practice day's sanctions and blocked actions is in the
// messages.
func TestEvidenceKept(t *testing.T) {
	visits := sample(t, "standard", 17)
	sanctions := 0
	for _, id := range visits {
		for _, v := range []Variant{Plain, NormAware} {
			rec := &recorder{model: scripted(t, id, "greedy", 23)}
			env, x, err := play(id, v, DefaultOptions(), rec.ask)
			if err != nil {
				t.Fatal(err)
			}
			first := -1
			for i, ms := range rec.reqs {
				if strings.Contains(ms[len(ms)-1].Content, sim.ViewMark+"day 2 of 2") {
					first = i
					break
				}
			}
			if first < 0 {
				t.Fatalf("%s: no request of the test day", id)
			}
			var all strings.Builder
			for _, m := range rec.reqs[first] {
				all.WriteString(m.Content)
				all.WriteByte('\n')
			}
			text := all.String()
			for _, ev := range env.Events() {
				if ev.Day != 1 || ev.Kind == "day" {
					continue
				}
				if ev.Kind == "sanction" {
					sanctions++
				}
				if !strings.Contains(text, ev.Line()+"\n") {
					t.Errorf("%s (%s): at the first step of the test day the messages lack the practice day's %q", id, v, ev.Line())
				}
			}
			if h := x.History; len(h.Trims) > 0 || h.CollapsedTurns > 0 {
				t.Errorf("%s: the default budget trimmed: %+v", id, h.Trims)
			}
		}
	}
	if sanctions < len(visits) {
		t.Errorf("only %d practice-day sanctions in %d visits: the sample tests little", sanctions, len(visits))
	}
}

// checkAppendOnly checks the cut-back rule between two consecutive
// requests: next is prev with its last user message cut back to that
// message's recap (a byte prefix of it), plus reply shortened and the new
// user turn.
func checkAppendOnly(prev, next []Message, reply string, opt Options) error {
	n := len(prev)
	if len(next) != n+2 {
		return fmt.Errorf("%d messages after %d, want %d", len(next), n, n+2)
	}
	for i := 0; i < n-1; i++ {
		if prev[i] != next[i] {
			return fmt.Errorf("message %d changed", i)
		}
	}
	last, cut := prev[n-1].Content, next[n-1]
	if cut.Role != "user" || cut.Content != CutBack(last) || !strings.HasPrefix(last, cut.Content) {
		return fmt.Errorf("message %d is not the recap of the previous last user turn:\n%q\nof\n%q", n-1, cut.Content, last)
	}
	want := ShortReply(reply)
	if opt.FullReplies {
		want = reply
	}
	if next[n] != (Message{"assistant", want}) {
		return fmt.Errorf("message %d is %q, want the reply %q", n, next[n], want)
	}
	if next[n+1].Role != "user" {
		return fmt.Errorf("the new turn is not a user turn")
	}
	return nil
}

// TestAppendOnly plays whole visits (both days) and checks every request
// against the one before it: the cut-back rule, for every variant (reflect
// within each day; its test day starts from the notes).
func TestAppendOnly(t *testing.T) {
	visits := sample(t, "standard", 61)
	for _, v := range Variants() {
		for _, opt := range []Options{DefaultOptions(), {Budget: DefaultBudget, FullReplies: true}} {
			for _, id := range visits {
				rec := &recorder{model: scripted(t, id, "greedy", 11)}
				if _, _, err := play(id, v, opt, rec.ask); err != nil {
					t.Fatal(err)
				}
				days := 1
				for i := 1; i < len(rec.reqs); i++ {
					prev, next := rec.reqs[i-1], rec.reqs[i]
					if rec.kinds[i-1] == AskNotes {
						days++
						if len(next) != 2 || next[0].Content != systemPrompt(Reflect, []string{"the elder frowned when I crossed the band."}, opt) {
							t.Fatalf("%s: the test day under reflect starts with %d messages", id, len(next))
						}
						continue
					}
					if err := checkAppendOnly(prev, next, rec.replies[i-1], opt); err != nil {
						t.Fatalf("%s (%s, %+v): request %d: %v", id, v, opt, i+1, err)
					}
					if strings.Contains(next[len(next)-1].Content, sim.ViewMark+"day 2 of 2") && v != Reflect {
						days = 2
					}
				}
				if days != 2 {
					t.Errorf("%s (%s): the requests did not span both days", id, v)
				}
			}
		}
	}
}

// TestBudgetKeepsSanctions plays visits under a small budget: trims come
// in large chunks, are recorded, and never drop a sanction or blocked
// line seen earlier; between trims the requests stay append-only.
func TestBudgetKeepsSanctions(t *testing.T) {
	const budget = 16000
	for _, tt := range []struct {
		agent    string
		maxTrims int // random is sanctioned and blocked so often that their lines alone come near the budget
	}{{"greedy", 6}, {"random", 40}} {
		for _, id := range sample(t, "standard", 97) {
			budgetVisit(t, id, tt.agent, budget, tt.maxTrims)
		}
	}
}

func budgetVisit(t *testing.T, id, agent string, budget, maxTrims int) {
	{
		rec := &recorder{model: scripted(t, id, agent, 7)}
		_, x, err := play(id, Plain, Options{Budget: budget}, rec.ask)
		if err != nil {
			t.Fatal(err)
		}
		h := x.History
		if len(h.Trims) == 0 {
			t.Fatalf("%s: no trim under a budget of %d", id, budget)
		}
		if len(h.Trims) > maxTrims {
			t.Errorf("%s (%s): %d trims: not in large chunks", id, agent, len(h.Trims))
		}
		trimmed := map[int]bool{}
		for _, tr := range h.Trims {
			trimmed[tr.Request] = true
			if tr.After >= tr.Before {
				t.Errorf("%s: trim %+v", id, tr)
			}
		}
		seen := map[string]bool{}
		for i, ms := range rec.reqs {
			if err := checkMessages(ms); err != nil {
				t.Fatalf("%s: request %d: %v", id, i+1, err)
			}
			var all strings.Builder
			for _, m := range ms {
				all.WriteString(m.Content + "\n")
			}
			for line := range seen {
				if !strings.Contains(all.String(), line+"\n") {
					t.Fatalf("%s: request %d lost %q", id, i+1, line)
				}
			}
			for _, line := range strings.Split(ms[len(ms)-1].Content, "\n") {
				if strings.Contains(line, " sanctioned ") || strings.HasPrefix(line, "Your action ") {
					seen[line] = true
				}
			}
			if i > 0 && !trimmed[i+1] && rec.kinds[i] == AskStep {
				if err := checkAppendOnly(rec.reqs[i-1], ms, rec.replies[i-1], Options{}); err != nil {
					t.Fatalf("%s: request %d (no trim): %v", id, i+1, err)
				}
			}
			if trimmed[i+1] && !strings.HasPrefix(ms[1].Content, SummaryHeader+"\n") && !strings.HasPrefix(ms[1].Content, SummaryHeaderShort+"\n") {
				t.Fatalf("%s: request %d after a trim does not start with the summary", id, i+1)
			}
		}
		if len(seen) == 0 {
			t.Errorf("%s: no sanction or blocked line: the test tests little", id)
		}
	}
}

// checkMessages wants the system prompt, then user and assistant turns
// alternating, ending with a user turn.
func checkMessages(ms []Message) error {
	if len(ms) < 2 || ms[0].Role != "system" || ms[len(ms)-1].Role != "user" {
		return fmt.Errorf("bad shape (%d messages)", len(ms))
	}
	for i, m := range ms[1:] {
		if want := [2]string{"user", "assistant"}[i%2]; m.Role != want {
			return fmt.Errorf("message %d has role %q, want %q", i+1, m.Role, want)
		}
	}
	return nil
}

// TestDefaultBudgetIsASafetyCap: no request of the sampled standard visits
// comes near the default budget, for a newcomer that only waits (the
// longest visits) and for the baselines.
func TestDefaultBudgetIsASafetyCap(t *testing.T) {
	most := 0
	for _, id := range sample(t, "standard", 13) {
		for _, name := range []string{"wait", "greedy", "random"} {
			model := Model(func(kind Kind, ms []Message) string { return "ACTION: wait" })
			if name != "wait" {
				model = scripted(t, id, name, 0)
			}
			_, x, err := play(id, NormAware, DefaultOptions(), model)
			if err != nil {
				t.Fatal(err)
			}
			h := x.History
			most = max(most, h.MaxRequestChars)
			if len(h.Trims) > 0 || h.MaxRequestChars > DefaultBudget/2 {
				t.Errorf("%s (%s): largest request %d characters, trims %v; the default budget %d must be a safety cap",
					id, name, h.MaxRequestChars, h.Trims, DefaultBudget)
			}
		}
	}
	t.Logf("largest request: %d characters (default budget %d)", most, DefaultBudget)
}
