// Package chat runs a visit with a language model as the newcomer, over
// any OpenAI-compatible chat-completions endpoint, from the browser. It
// sends exactly the sim's text observation as each user turn, so the
// browser and the headless harness send byte-identical prompts.
//
// PROVISIONAL: the system prompt, the history policy and the reply format
// below are this package's own until serve/llm/PROMPTS.md (the headless
// harness's documented template) exists; then they must be made identical
// to it, and PromptVariant changed to its name.
package chat

import (
	"strings"
)

// SystemPrompt is the system message of every request.
//
// PROVISIONAL — replace with the headless harness's prompt from
// serve/llm/PROMPTS.md when it is written.
const SystemPrompt = `You are a newcomer in a small community, shown as @ on a grid map. Each turn you get what you observe: the day, the phase, your task, the map with its legend, the members and what happened since your last step.
Do your task. Every action is possible, but the community may have unwritten rules; members react with a sanction when they see someone break one. Sanctions never say what the rule is.
Think briefly if you wish, then end your reply with exactly one line of the form
ACTION: <action>
where <action> is one of: north, south, east, west, wait, pick, drop, use, bow, give <name>.`

// PromptVariant names the prompt template in records (extra.prompt).
const PromptVariant = "web-provisional-1"

// HistoryBudget is how many characters of earlier turns (observations and
// replies, newest first) a request may carry besides the system prompt
// and the current observation. Older turns are left out whole.
const HistoryBudget = 24000

// Message is one chat message.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Request is the body of POST {base}/chat/completions.
type Request struct {
	Model       string    `json:"model"`
	Messages    []Message `json:"messages"`
	Temperature float64   `json:"temperature"`
	MaxTokens   int       `json:"max_tokens,omitempty"`
}

// Usage is a response's token count.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

// Response is the part of a chat-completions answer the runner reads.
type Response struct {
	Choices []struct {
		Message Message `json:"message"`
	} `json:"choices"`
	Usage *Usage `json:"usage,omitempty"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

var verbs = []string{"north", "south", "east", "west", "wait", "pick", "drop", "use", "bow", "give"}

// ExtractAction reads the action from a reply's last line of the form
// "ACTION: <action>" (case-insensitive, markdown emphasis and trailing
// punctuation ignored). It returns the action's canonical text form, or
// false when there is no such line or its action is not one of the verbs.
func ExtractAction(reply string) (string, bool) {
	v, ok := lastField(reply, "action:")
	if !ok {
		return "", false
	}
	f := strings.Fields(strings.ToLower(v))
	if len(f) == 0 {
		return "", false
	}
	verb := f[0]
	for _, w := range verbs {
		if verb != w {
			continue
		}
		switch {
		case w == "give" && len(f) == 2 && isName(f[1]):
			return "give " + f[1], true
		case w != "give" && len(f) == 1:
			return w, true
		}
		return "", false
	}
	return "", false
}

// ExtractAnswer reads the option number (1 to n) from a reply's last line
// of the form "ANSWER: <number>" and returns it 0-based.
func ExtractAnswer(reply string, n int) (int, bool) {
	v, ok := lastField(reply, "answer:")
	if !ok || v == "" {
		return 0, false
	}
	k := 0
	for i := 0; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			if i == 0 {
				return 0, false
			}
			break
		}
		k = k*10 + int(v[i]-'0')
		if k > 1000 {
			return 0, false
		}
	}
	if k < 1 || k > n {
		return 0, false
	}
	return k - 1, true
}

// lastField returns what follows key on the last line that starts with
// it (after markdown emphasis), trimmed of emphasis and punctuation.
func lastField(reply, key string) (string, bool) {
	lines := strings.Split(reply, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(strings.Trim(strings.TrimSpace(lines[i]), "*_`>#"))
		if len(l) < len(key) || !strings.EqualFold(l[:len(key)], key) {
			continue
		}
		v := strings.Trim(strings.TrimSpace(l[len(key):]), "*_`\"'.!<>[] ")
		return v, true
	}
	return "", false
}

func isName(s string) bool {
	if s == "" || len(s) > 40 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// ProbePrompt is the user turn that asks the model the probe question.
func ProbePrompt(question string, options []string) string {
	var b strings.Builder
	b.WriteString("The visit is over. ")
	b.WriteString(question)
	b.WriteString("\n")
	for i, o := range options {
		b.WriteString(string(rune('1'+i)) + ". " + o + "\n")
	}
	b.WriteString("End your reply with exactly one line of the form\nANSWER: <number>\n")
	return b.String()
}
