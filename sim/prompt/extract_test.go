package prompt

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/normgym/normgym/sim"
)

func TestExtractAction(t *testing.T) {
	tests := []struct {
		name, reply, want string // want "" means a format error
	}{
		{"bare", "ACTION: north", "north"},
		{"lower case", "action: pick", "pick"},
		{"reasoning first", "The basket is north.\nI should go there.\nACTION: north\n", "north"},
		{"last line counts", "ACTION: south\nOn second thought:\nACTION: east", "east"},
		{"bold", "**ACTION: west**", "west"},
		{"bold label", "**Action:** use", "use"},
		{"code", "`ACTION: bow`", "bow"},
		{"space before colon", "ACTION : wait", "wait"},
		{"abbreviation", "ACTION: n", "north"},
		{"give", "ACTION: give Mara", "give mara"},
		{"crlf", "thinking\r\nACTION: drop\r\n", "drop"},
		{"indented", "   ACTION:   south   ", "south"},
		{"trailing text after the line", "ACTION: north\nI hope that works.", "north"},
		{"no action line", "I will go north.", ""},
		{"empty", "", ""},
		{"unknown verb", "ACTION: fly", ""},
		{"last line bad, earlier good", "ACTION: north\nACTION: jump", ""},
		{"extra words", "ACTION: north please", ""},
		{"give without name", "ACTION: give", ""},
		{"trailing period", "ACTION: north.", ""},
		{"quoted", `ACTION: "north"`, ""},
		{"not at line start", "My ACTION: north", ""},
		{"label only", "ACTION:", ""},
		{"actions label", "ACTIONS: north", ""},
		{"too long", "ACTION: give " + strings.Repeat("m", 80), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := ExtractAction(tt.reply)
			if tt.want == "" {
				if err == nil || !errors.Is(err, ErrFormat) {
					t.Errorf("ExtractAction(%q) = %q, %v; want a format error", tt.reply, a, err)
				}
				return
			}
			if err != nil || a.String() != tt.want {
				t.Errorf("ExtractAction(%q) = %q, %v; want %q", tt.reply, a, err, tt.want)
			}
		})
	}
}

func TestExtractAnswer(t *testing.T) {
	tests := []struct {
		reply string
		want  int // -1: format error
	}{
		{"ANSWER: 1", 0},
		{"I think the second.\nanswer: 2", 1},
		{"**ANSWER: 3**", 2},
		{"ANSWER: (4)", 3},
		{"ANSWER: 2)", 1},
		{"ANSWER: 2.", 1},
		{"ANSWER: 5", -1},
		{"ANSWER: 0", -1},
		{"ANSWER: two", -1},
		{"The answer is 2.", -1},
		{"ANSWER: 1\nANSWER: 9", -1},
	}
	for _, tt := range tests {
		k, err := ExtractAnswer(tt.reply, 4)
		if tt.want < 0 {
			if !errors.Is(err, ErrFormat) {
				t.Errorf("ExtractAnswer(%q) = %d, %v; want a format error", tt.reply, k, err)
			}
			continue
		}
		if err != nil || k != tt.want {
			t.Errorf("ExtractAnswer(%q) = %d, %v; want %d", tt.reply, k, err, tt.want)
		}
	}
}

func TestLLMCleanNotes(t *testing.T) {
	if got := CleanNotes("  Notes: stay off red\n"); got != "stay off red" {
		t.Errorf("CleanNotes = %q", got)
	}
	long := CleanNotes(strings.Repeat("é", MaxNotes))
	if len(long) > MaxNotes || !utf8.ValidString(long) {
		t.Errorf("long notes: %d bytes, valid %v", len(long), utf8.ValidString(long))
	}
}

// FuzzExtractAction: extraction never panics, and whatever it accepts is
// an action that sim.ParseAction reads back from its canonical text and
// that the sim would take.
func FuzzExtractAction(f *testing.F) {
	for _, s := range []string{"ACTION: north", "x\nACTION: give mara\n", "**Action:** w", "ACTION:", "action : bow\r\n",
		"ACTION: give", "\xff\nACTION: pick", "ACTION: north\nACTION: fly", strings.Repeat("ACTION: n\n", 50)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, reply string) {
		a, err := ExtractAction(reply)
		if err != nil {
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("error %v does not wrap ErrFormat", err)
			}
			return
		}
		b, err := sim.ParseAction(a.String())
		if err != nil || b != a {
			t.Fatalf("ExtractAction(%q) = %#v, which does not round-trip: %#v, %v", reply, a, b, err)
		}
		// Markdown marks are deleted before a line is read (PROMPTS.md,
		// "Reading the action"), so "**ACTION:** n" and "ACtio*n: n" count.
		if plain := strings.NewReplacer("*", "", "`", "").Replace(reply); !strings.Contains(strings.ToLower(plain), "action") {
			t.Fatalf("ExtractAction(%q) accepted a reply without an ACTION line", reply)
		}
		k, _ := ExtractAnswer(reply, 4)
		if k < 0 || k > 3 {
			t.Fatalf("ExtractAnswer out of range: %d", k)
		}
	})
}
