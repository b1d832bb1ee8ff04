package prompt

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/normgym/normgym/sim"
)

// ErrFormat is wrapped by every extraction error: the reply does not
// follow the format it was asked for.
var ErrFormat = errors.New("prompt: reply format")

// maxActionText bounds the text after "ACTION:".
const maxActionText = 64

// ExtractAction reads the action from a model's reply. The rule, strict
// and the same everywhere (PROMPTS.md):
//
//  1. Split the reply into lines (\n; a trailing \r is dropped).
//  2. In each line delete the Markdown marks * and `, then trim spaces.
//  3. A line matches if it starts with "action", any case, then optional
//     spaces, then ":".
//  4. The last matching line counts: the text after its colon must parse
//     with sim.ParseAction (case-insensitive; n/s/e/w allowed; "give"
//     takes exactly one name) and be at most 64 bytes.
//
// Anything else (no matching line, or a last one that does not parse) is
// an error wrapping ErrFormat; the harness then plays wait. It never
// panics.
func ExtractAction(reply string) (sim.Action, error) {
	rest, ok := lastField(reply, "action")
	if !ok {
		return sim.Action{}, fmt.Errorf("%w: no line \"ACTION: <action>\"", ErrFormat)
	}
	if len(rest) > maxActionText {
		return sim.Action{}, fmt.Errorf("%w: action text longer than %d bytes", ErrFormat, maxActionText)
	}
	a, err := sim.ParseAction(rest)
	if err != nil {
		return sim.Action{}, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	return a, nil
}

// ExtractAnswer reads a probe answer from a reply: the last line that
// matches "ANSWER:" as in ExtractAction, whose text is a number from 1 to
// n, optionally in parentheses or followed by ")" or ".". It returns the
// 0-based option.
func ExtractAnswer(reply string, n int) (int, error) {
	rest, ok := lastField(reply, "answer")
	if !ok {
		return 0, fmt.Errorf("%w: no line \"ANSWER: <1-%d>\"", ErrFormat, n)
	}
	rest = strings.TrimPrefix(rest, "(")
	rest = strings.TrimSuffix(rest, ".")
	rest = strings.TrimSuffix(rest, ")")
	k, err := strconv.Atoi(strings.TrimSpace(rest))
	if err != nil || k < 1 || k > n {
		return 0, fmt.Errorf("%w: answer %q is not a number from 1 to %d", ErrFormat, clip(rest), n)
	}
	return k - 1, nil
}

// CleanNotes trims a notes reply, drops a leading "NOTES:" label and cuts
// it to MaxNotes bytes at a character boundary.
func CleanNotes(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 6 && strings.EqualFold(s[:6], "notes:") {
		s = strings.TrimSpace(s[6:])
	}
	if len(s) > MaxNotes {
		s = s[:MaxNotes]
		for len(s) > 0 && !utf8.ValidString(s) {
			s = s[:len(s)-1]
		}
	}
	return s
}

// markup are the Markdown marks deleted from a line before matching.
var markup = strings.NewReplacer("*", "", "`", "")

// lastField returns the text after "<key>:" on the last line that
// matches key (see ExtractAction), trimmed.
func lastField(reply, key string) (string, bool) {
	for len(reply) > 0 {
		i := strings.LastIndexByte(reply, '\n')
		line := reply[i+1:]
		if i < 0 {
			reply = ""
		} else {
			reply = reply[:i]
		}
		line = strings.TrimSpace(markup.Replace(line))
		if len(line) < len(key) || !strings.EqualFold(line[:len(key)], key) {
			continue
		}
		rest := strings.TrimLeft(line[len(key):], " \t")
		if !strings.HasPrefix(rest, ":") {
			continue
		}
		return strings.TrimSpace(rest[1:]), true
	}
	return "", false
}

func clip(s string) string {
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return strings.ToValidUTF8(s, "?")
}
