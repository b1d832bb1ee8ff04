package prompt

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/normgym/normgym/sim"
)

// DefaultBudget is the default cap on the characters of one request's
// message contents (about 30k tokens at four characters a token): eval's
// --context-budget and the browser's model mode. It is a safety cap
// against runaway requests, not a window: the longest request of a
// standard visit, by the baselines and by a newcomer that only waits,
// stays under half of it (about 50,000 characters; eval --dry-run prints
// the largest over a whole suite, TestDefaultBudgetIsASafetyCap checks a
// sample), so no standard visit triggers it.
const DefaultBudget = 120000

// Options are a conversation's history settings.
type Options struct {
	// Budget caps the characters of one request's message contents (0:
	// no cap). When a request would exceed it, the oldest half of the past
	// steps is collapsed into one summary message that keeps every day
	// start, sanction and blocked line word for word (see PROMPTS.md).
	Budget int
	// FullReplies keeps the model's earlier replies whole; by default each
	// is cut to its ACTION line.
	FullReplies bool
}

// DefaultOptions are the history settings of eval's defaults and of the
// browser's model mode.
func DefaultOptions() Options { return Options{Budget: DefaultBudget} }

// History is what a record's extra.history says about a visit's
// conversation: the policy it ran under, what the budget trimmed, and how
// much message content its requests carried.
type History struct {
	Policy      string `json:"policy"`
	BudgetChars int    `json:"budget_chars"`
	FullReplies bool   `json:"full_replies"`
	// Trims lists the budget's trims, in order (none on a standard visit
	// under the default budget).
	Trims []Trim `json:"trims,omitempty"`
	// CollapsedTurns counts the user and assistant turns the trims folded
	// into the summary.
	CollapsedTurns int `json:"collapsed_turns"`
	// DroppedTurns counts the turns forgotten at the end of a day
	// (reflect: its notes carry the day instead).
	DroppedTurns int `json:"dropped_turns"`
	// Requests counts the requests built; SentChars sums their message
	// contents; UnsharedChars sums the characters of each request outside
	// the prefix it shares with the previous one (SharedPrefix), which is
	// what a prefix-caching provider bills in full; MaxRequestChars is the
	// largest request.
	Requests        int `json:"requests"`
	SentChars       int `json:"sent_chars"`
	UnsharedChars   int `json:"unshared_chars"`
	MaxRequestChars int `json:"max_request_chars"`
}

// Trim records one trim of the budget.
type Trim struct {
	// Request is the 1-based request that would have exceeded the budget.
	Request int `json:"request"`
	// Steps is how many past turns (user and assistant pairs) it folded
	// into the summary.
	Steps int `json:"steps"`
	// Before and After are the request's characters before and after.
	Before int `json:"before"`
	After  int `json:"after"`
}

// Conversation is the message history a model is sent, step by step,
// under the history policy of its variant and options (HistoryPolicy,
// PROMPTS.md):
//
//   - Every user turn but the latest is cut back to its recap
//     (sim.SplitText): what happened at that step. The latest carries the
//     whole text, recap and view.
//   - Every reply but the latest is cut to its ACTION line (unless
//     Options.FullReplies).
//   - Both days stay (under Reflect the day's turns give way to notes).
//
// So each request is the previous one with its last user message cut back
// to that message's recap — a byte prefix of it — plus the model's
// (shortened) reply and the new user turn: append-only, and a provider's
// prefix cache holds everything but the new turn and the view it drops.
// Only a budget trim (Options.Budget) rewrites earlier messages.
//
// Ask and Reply alternate, starting with Ask. A Conversation is not safe
// for concurrent use.
type Conversation struct {
	variant  Variant
	opt      Options
	notes    []string
	system   string
	turns    []Message // alternating user, assistant, starting with user
	size     int       // characters of system and turns' contents
	summary  bool      // turns[0] is the budget's summary
	sumLines []string  // the summary's lines
	sumShort bool      // the summary has dropped its step lines
	prev     []Message // the previous request
	hist     History
}

// NewConversation starts a conversation for variant v under opt.
func NewConversation(v Variant, opt Options) *Conversation {
	c := &Conversation{variant: v, opt: opt, system: systemPrompt(v, nil, opt)}
	c.size = len(c.system)
	c.hist = History{Policy: HistoryPolicy(v, opt), BudgetChars: opt.Budget, FullReplies: opt.FullReplies}
	return c
}

// HistoryPolicy describes in words what a conversation under v and opt
// sends; results record it.
func HistoryPolicy(v Variant, opt Options) string {
	var b strings.Builder
	b.WriteString("system prompt")
	if v == Reflect {
		b.WriteString(" with the model's notes from earlier days, then the current day's steps")
	} else {
		b.WriteString(", then every step of the visit (both days)")
	}
	b.WriteString(": past user turns cut back to their recap, the latest whole (recap and view); ")
	if opt.FullReplies {
		b.WriteString("the model's replies whole; ")
	} else {
		b.WriteString("the model's earlier replies cut to their ACTION line; ")
	}
	if opt.Budget > 0 {
		fmt.Fprintf(&b, "beyond %d characters the oldest steps are collapsed, in chunks down to half of it, into one summary that keeps every day start, sanction and blocked line", opt.Budget)
	} else {
		b.WriteString("no character budget")
	}
	return b.String()
}

// Ask cuts the previous step back (its user turn to the recap, its reply
// to the ACTION line), appends user as the new turn, trims to the budget
// if the request would exceed it, and returns the messages to send (a new
// slice).
func (c *Conversation) Ask(user string) []Message {
	if n := len(c.turns); n >= 2 && c.turns[n-1].Role == "assistant" {
		c.set(n-2, CutBack(c.turns[n-2].Content))
		if !c.opt.FullReplies {
			c.set(n-1, ShortReply(c.turns[n-1].Content))
		}
	}
	c.turns = append(c.turns, Message{Role: "user", Content: user})
	c.size += len(user)
	if c.opt.Budget > 0 && c.size > c.opt.Budget {
		c.trim()
	}
	out := c.Transcript()
	c.measure(out)
	return out
}

// Reply appends the model's answer to the last user turn. It is kept
// whole until the next Ask.
func (c *Conversation) Reply(content string) {
	c.turns = append(c.turns, Message{Role: "assistant", Content: content})
	c.size += len(content)
}

// EndDay ends a day. Under Reflect, notes (trimmed and cut to MaxNotes)
// join the system prompt and the day's turns are forgotten; the other
// variants keep the transcript and ignore notes.
func (c *Conversation) EndDay(notes string) {
	if c.variant != Reflect {
		return
	}
	c.notes = append(c.notes, CleanNotes(notes))
	c.system = systemPrompt(c.variant, c.notes, c.opt)
	c.hist.DroppedTurns += len(c.turns)
	c.turns, c.summary, c.sumLines, c.sumShort = c.turns[:0], false, nil, false
	c.size = len(c.system)
}

// Notes returns the notes carried so far.
func (c *Conversation) Notes() []string { return append([]string(nil), c.notes...) }

// History returns what the conversation has sent and trimmed so far.
func (c *Conversation) History() History {
	h := c.hist
	h.Trims = append([]Trim(nil), h.Trims...)
	return h
}

// Transcript returns every message kept: the system prompt and the turns,
// as the next request would carry them before its new turn.
func (c *Conversation) Transcript() []Message {
	out := make([]Message, 0, len(c.turns)+1)
	out = append(out, Message{Role: "system", Content: c.system})
	return append(out, c.turns...)
}

func (c *Conversation) set(i int, content string) {
	c.size += len(content) - len(c.turns[i].Content)
	c.turns[i].Content = content
}

func (c *Conversation) measure(req []Message) {
	n := Chars(req)
	h := &c.hist
	h.Requests++
	h.SentChars += n
	h.UnsharedChars += n - SharedPrefix(c.prev, req)
	h.MaxRequestChars = max(h.MaxRequestChars, n)
	c.prev = append(c.prev[:0], req...)
}

// CutBack returns what a past user turn keeps: the recap of an
// observation's text (sim.SplitText), a byte prefix of it. A text with no
// view, or with nothing before it, is kept whole.
func CutBack(text string) string {
	recap, view := sim.SplitText(text)
	if recap == "" || view == "" {
		return text
	}
	return recap
}

// NoActionReply is what an earlier reply without a valid ACTION line is
// cut to: the step was played as wait.
const NoActionReply = "(no valid ACTION line: the step was played as wait)"

// ShortReply returns what an earlier reply is cut to: "ACTION: <action>"
// in canonical form, or NoActionReply.
func ShortReply(reply string) string {
	a, err := ExtractAction(reply)
	if err != nil {
		return NoActionReply
	}
	return "ACTION: " + a.String()
}

// Chars returns the characters (bytes) of the messages' contents.
func Chars(ms []Message) int {
	n := 0
	for _, m := range ms {
		n += len(m.Content)
	}
	return n
}

// SharedPrefix returns the characters of message content at the start of
// next that prev shares with it: the leading messages equal in role and
// content, then the common prefix of the first pair that differs in
// content only. It is what a provider's prefix cache could hold of next
// after serving prev.
func SharedPrefix(prev, next []Message) int {
	n := 0
	for i := 0; i < len(prev) && i < len(next); i++ {
		a, b := prev[i], next[i]
		if a.Role != b.Role {
			break
		}
		if a.Content == b.Content {
			n += len(a.Content)
			continue
		}
		k := 0
		for k < len(a.Content) && k < len(b.Content) && a.Content[k] == b.Content[k] {
			k++
		}
		n += k
		break
	}
	return n
}

// SummaryHeader starts the summary message a budget trim puts in place of
// the oldest steps.
const SummaryHeader = "Summary of earlier steps (collapsed to keep each request under the harness's budget): " +
	"every day start, sanction and action of yours that did nothing is kept word for word, " +
	"and at each step what you did; what the members did at each step, and your replies, are left out."

// SummaryHeaderShort starts the summary once even its steps did not fit:
// then only the day starts, sanctions and blocked actions are kept.
const SummaryHeaderShort = "Summary of earlier steps (collapsed to keep each request under the harness's budget): " +
	"every day start, sanction and action of yours that did nothing is kept word for word; " +
	"what you and the members did at each step, and your replies, are left out."

// trim makes room when a request would exceed the budget, in one large
// chunk: it collapses the oldest half of the past steps (and the summary
// already there) into one summary message, again while the request is
// over half the budget and past steps remain; if it still is, the summary
// drops its step lines. The latest user turn is never collapsed, and no
// day start, sanction or blocked line is ever dropped: the request may
// stay over the budget.
func (c *Conversation) trim() {
	before, steps, target := c.size, 0, c.opt.Budget/2
	for c.size > target {
		first := 0
		if c.summary {
			first = 2
		}
		past := (len(c.turns) - 1 - first) / 2 // user/assistant pairs before the latest turn
		if past < 1 {
			break
		}
		k := (past + 1) / 2
		end := first + 2*k // turns[:end] are collapsed
		for i := first; i < end; i += 2 {
			for _, l := range summarize(c.turns[i].Content) {
				if !c.sumShort || !isStepLine(l) {
					c.sumLines = append(c.sumLines, l)
				}
			}
		}
		reply := c.turns[end-1]
		rest := c.turns[end:]
		turns := make([]Message, 0, 2+len(rest))
		turns = append(turns, Message{Role: "user", Content: c.summaryText()}, reply)
		c.turns = append(turns, rest...)
		c.summary = true
		c.size = len(c.system) + Chars(c.turns)
		steps += k
		c.hist.CollapsedTurns += 2 * k
	}
	if c.size > target && c.summary && !c.sumShort {
		kept := c.sumLines[:0]
		for _, l := range c.sumLines {
			if !isStepLine(l) {
				kept = append(kept, l)
			}
		}
		c.sumLines, c.sumShort = kept, true
		c.set(0, c.summaryText())
	}
	if steps > 0 || c.size < before {
		c.hist.Trims = append(c.hist.Trims, Trim{Request: c.hist.Requests + 1, Steps: steps, Before: before, After: c.size})
	}
}

// summaryText renders the summary message.
func (c *Conversation) summaryText() string {
	var b strings.Builder
	if c.sumShort {
		b.WriteString(SummaryHeaderShort)
	} else {
		b.WriteString(SummaryHeader)
	}
	b.WriteByte('\n')
	for _, l := range c.sumLines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}

// summarize returns the lines a past user turn keeps in the summary: a
// step's line ("Step S, <phase>. you …; mara …;") cut after the
// newcomer's own act when it comes first (a newcomer that waited is listed
// with the others who waited, and the line is kept whole), every other line
// (day starts, the members of the day, sanctions, blocked actions, notes
// requests) whole.
func summarize(content string) []string {
	var out []string
	for _, line := range strings.Split(strings.TrimSuffix(content, "\n"), "\n") {
		if isStepLine(line) {
			if i := strings.Index(line, ". you "); i >= 0 {
				if j := strings.IndexByte(line[i:], ';'); j >= 0 {
					line = line[:i+j+1]
				}
			}
		}
		out = append(out, line)
	}
	return out
}

// isStepLine reports whether line is a recap's step line: "Step S, …".
func isStepLine(line string) bool {
	rest, ok := strings.CutPrefix(line, "Step ")
	if !ok {
		return false
	}
	s, _, ok := strings.Cut(rest, ", ")
	return ok && digits(s)
}

func digits(s string) bool {
	_, err := strconv.Atoi(s)
	return err == nil && s != "" && s[0] != '-' && s[0] != '+'
}
