package api

import (
	"fmt"
	"strings"
)

// Names on the board. A self-reported model row is named by whoever
// submits it, so its name must not pass for a row it is not: a person
// (human), one of the server's baselines (greedy, Oracle…), or a label
// that claims what only the server can say (verified, official, sealed,
// server-stepped). The rule is applied after folding case, separators and
// the digits and symbols that read as letters (0→o, 1→l, 3→e, 4→a, 5→s,
// 7→t, $→s, @→a), and the name must be plain ASCII, so that no lookalike
// letter of another script (the Cyrillic а of "humаn") gets through.

// MaxModelName is the longest model name the board takes.
const MaxModelName = 64

// reservedWords may appear nowhere in a model's name (folded).
var reservedWords = []string{"human", "person", "people", "participant", "verified", "official", "sealed", "serverstepped",
	"normgym", "baseline", "reference", "certified", "trusted", "genuine"}

// CheckModelName reports why name cannot name a self-reported model row
// (nil if it can). baselines are the server's baseline names, which a
// model's name may not equal once folded.
func CheckModelName(name string, baselines []string) error {
	if name == "" || len(name) > MaxModelName {
		return fmt.Errorf("a model's name is 1 to %d characters", MaxModelName)
	}
	for i, c := range name {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("._:/+-", c) || c == ' ' && i > 0
		if !ok {
			return fmt.Errorf("a model's name takes ASCII letters, digits, spaces and . _ : / + - only (as in Qwen/Qwen2.5-7B-Instruct or llama3.1:8b), not %q", c)
		}
	}
	if strings.HasSuffix(name, " ") || strings.Contains(name, "  ") {
		return fmt.Errorf("a model's name has no trailing or double spaces")
	}
	f := foldName(name)
	for _, w := range reservedWords {
		if strings.Contains(f, w) {
			return fmt.Errorf("a model's name may not contain %q, or anything that reads like it: the board keeps it for rows the server vouches for", w)
		}
	}
	for _, b := range baselines {
		if f == foldName(b) {
			return fmt.Errorf("%q reads as the baseline %q, whose row the server computes itself", name, b)
		}
	}
	return nil
}

// foldName lowers a name, drops everything but letters and digits, and
// reads digits and symbols that look like letters as those letters.
func foldName(s string) string {
	var b strings.Builder
	for _, c := range strings.ToLower(s) {
		switch c {
		case '0':
			c = 'o'
		case '1', '|', '!':
			c = 'l'
		case '3':
			c = 'e'
		case '4', '@':
			c = 'a'
		case '5', '$':
			c = 's'
		case '7':
			c = 't'
		}
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			b.WriteRune(c)
		}
	}
	return b.String()
}
