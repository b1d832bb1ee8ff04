package chat_test

import (
	"testing"

	"github.com/normgym/normgym/web/internal/chat"
)

func TestExtractAction(t *testing.T) {
	for _, tc := range []struct {
		name, reply, want string
		ok                bool
	}{
		{"plain", "ACTION: north", "north", true},
		{"reasoning first", "The basket is east.\nACTION: east", "east", true},
		{"last line wins", "ACTION: west\nOn second thought...\nACTION: pick", "pick", true},
		{"case and space", "  action:   WAIT  ", "wait", true},
		{"markdown", "**ACTION: drop**", "drop", true},
		{"backticks", "ACTION: `use`", "use", true},
		{"trailing dot", "ACTION: bow.", "bow", true},
		{"give", "ACTION: give Mara", "give mara", true},
		{"give needs a name", "ACTION: give", "", false},
		{"no argument for moves", "ACTION: north twice", "", false},
		{"unknown verb", "ACTION: fly", "", false},
		{"abbreviation refused", "ACTION: n", "", false},
		{"no action line", "I go north.", "", false},
		{"empty", "", "", false},
		{"bad name", "ACTION: give <script>", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := chat.ExtractAction(tc.reply)
			if got != tc.want || ok != tc.ok {
				t.Errorf("ExtractAction(%q) = %q, %v; want %q, %v", tc.reply, got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestExtractAnswer(t *testing.T) {
	for _, tc := range []struct {
		reply string
		want  int
		ok    bool
	}{
		{"ANSWER: 1", 0, true},
		{"I think the third.\nanswer: 3", 2, true},
		{"ANSWER: 4.", 3, true},
		{"**ANSWER: 2**", 1, true},
		{"ANSWER: 5", 0, false},
		{"ANSWER: 0", 0, false},
		{"ANSWER: two", 0, false},
		{"The second one.", 0, false},
	} {
		got, ok := chat.ExtractAnswer(tc.reply, 4)
		if got != tc.want || ok != tc.ok {
			t.Errorf("ExtractAnswer(%q) = %d, %v; want %d, %v", tc.reply, got, ok, tc.want, tc.ok)
		}
	}
}

func FuzzExtractAction(f *testing.F) {
	for _, s := range []string{"ACTION: north", "action: give mara\n", "**ACTION: `wait`**", "ACTION:", "\n\nACTION: \x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, reply string) {
		a, ok := chat.ExtractAction(reply)
		if !ok {
			if a != "" {
				t.Fatalf("no action but %q", a)
			}
			return
		}
		again, ok2 := chat.ExtractAction("ACTION: " + a)
		if !ok2 || again != a {
			t.Fatalf("action %q does not read back: %q %v", a, again, ok2)
		}
	})
}

func TestConfig(t *testing.T) {
	c := chat.Config{BaseURL: " https://user:pw@api.example.com:8443/v1/ "}
	if got, want := c.Endpoint(), "https://user:pw@api.example.com:8443/v1/chat/completions"; got != want {
		t.Errorf("Endpoint() = %q, want %q", got, want)
	}
	if got, want := c.Host(), "api.example.com:8443"; got != want {
		t.Errorf("Host() = %q, want %q", got, want)
	}
}
