//go:build !js

package ui_test

import (
	"strings"
	"testing"

	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/web/internal/ui"
	"github.com/normgym/normgym/web/internal/wasmtest"
	"github.com/normgym/normgym/web/nickname"
)

func TestCheckNickname(t *testing.T) {
	for _, tc := range []struct{ in, want, msg string }{
		{"Blue Fox", "Blue Fox", ""},
		{" 12 ", "Seat 12", ""},
		{"ana@school.org", "", "Use only letters, digits, spaces and '-'."},
		{"0612345678", "", "digits"},
		{"", "", "Type a nickname"},
	} {
		got, msg := ui.CheckNickname(tc.in)
		if got != tc.want || !strings.Contains(msg, tc.msg) || (tc.msg == "") != (msg == "") {
			t.Errorf("CheckNickname(%q) = %q, %q; want %q, a message with %q", tc.in, got, msg, tc.want, tc.msg)
		}
		// The page checks exactly what the server will.
		n, err := nickname.Normalize(tc.in)
		if n != got || (err == nil) != (msg == "") {
			t.Errorf("CheckNickname(%q) = %q, %q; the server's rules say %q, %v", tc.in, got, msg, n, err)
		}
	}
}

func TestRoomCode(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"abcd efgh jkmn", "ABCD-EFGH-JKMN"},
		{"ABCD-EFGH-JKMN", "ABCD-EFGH-JKMN"},
		{"abcdefghjkmn", "ABCD-EFGH-JKMN"},
		{"ab", ""},
		{"abcd/efgh", ""},
		{"<script>", ""},
		{strings.Repeat("A", 20), ""},
	} {
		if got := ui.RoomCode(tc.in); got != tc.want {
			t.Errorf("RoomCode(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if got := ui.RoomCode(tc.in); got != "" && ui.ParseRoute("#room="+got).Room != got {
			t.Errorf("RoomCode(%q) = %q does not make a route", tc.in, got)
		}
	}
}

func TestJoinHTML(t *testing.T) {
	r := ui.RoomInfo{Code: "ABCD-EFGH-JKMN", Name: "Year 7 <b>", SameVisit: true, Tutorial: "orchard/place.color=red/observe/s1"}
	h := ui.JoinHTML(r, `"><script>`, "Taken <i>")
	for _, want := range []string{"ABCD-EFGH-JKMN", "Year 7 &lt;b&gt;", "same visit", `id="nick"`, `for="nick"`, "Not your real name", "Taken &lt;i&gt;", `data-story="classroom"`} {
		if !strings.Contains(h, want) {
			t.Errorf("JoinHTML lacks %q:\n%s", want, h)
		}
	}
	if strings.Contains(h, "<script>") || strings.Contains(h, "place.color") {
		t.Errorf("JoinHTML shows markup or the tutorial's visit: %s", h)
	}
	if h := ui.JoinCodeHTML("x", ""); !strings.Contains(h, `id="room-code"`) || !strings.Contains(h, `for="room-code"`) {
		t.Errorf("JoinCodeHTML: %s", h)
	}
	if info, ok := ui.ParseRoomInfo([]byte(`{"code":"ABCD-EFGH-JKMN","same_visit":true,"tutorial":"park/none/control/s1","visits":1}`)); !ok || !info.SameVisit || info.Tutorial == "" {
		t.Errorf("ParseRoomInfo: %+v %v", info, ok)
	}
}

// TestTutorial plays the guided minute in sim.wasm, as the page does:
// its prompts go from the first step to a member's sanction, named as
// the event names it, and end saying the class's rule is another one,
// without naming the tutorial's own rule.
func TestTutorial(t *testing.T) {
	c := wasmtest.Client(t)
	for _, tc := range []struct {
		visit   string
		script  []string
		control bool
	}{
		{"market/place.color=red/observe/s1", []string{"west", "east", "east", "north", "east", "wait", "wait", "wait", "wait", "wait", "wait", "wait"}, false},
		{"orchard/time.rest=noon/observe/s1", []string{"wait", "east", "east", "west", "east", "wait", "wait", "wait", "wait", "wait", "wait", "wait"}, false},
		{"park/none/control/s1", []string{"east", "east", "east", "east", "wait", "wait"}, true},
	} {
		t.Run(tc.visit, func(t *testing.T) {
			p, err := ui.NewPlay(c, ui.Resolved{ID: tc.visit}, "human", "human")
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			p.Start()
			p.Begin()
			tut := ui.NewTutorial(tc.visit)
			if tut.Control != tc.control || tut.Step != ui.TutMove || !strings.Contains(ui.TutorialHTML(tut), "Skip the tutorial") {
				t.Fatalf("a new tutorial: %+v", tut)
			}
			steps := map[ui.TutorialStep]string{tut.Step: tut.Prompt()}
			for _, a := range tc.script {
				if tut.Done() {
					break
				}
				r, _, err := p.Act(a)
				if err != nil {
					t.Fatal(err)
				}
				tut.Stepped(a, r)
				steps[tut.Step] = tut.Prompt()
				if tut.Step == ui.TutSanction && tut.Sanction != nil {
					if !strings.Contains(ui.TutorialHTML(tut), `data-act="tut-where"`) {
						t.Error("the sanction prompt has no Show me where button")
					}
					tut.Where() // the student asks where
					steps[tut.Step] = tut.Prompt()
				}
			}
			if !tut.Done() {
				t.Fatalf("the tutorial did not end after %v: at step %d", tc.script, tut.Step)
			}
			end := ui.TutorialHTML(tut)
			if !strings.Contains(end, `data-act="tut-done"`) || !strings.Contains(end, "different rule") {
				t.Errorf("the end of the tutorial: %s", end)
			}
			if !tc.control {
				s, ok := steps[ui.TutSanction]
				if !ok || tut.Sanction == nil {
					t.Fatalf("no sanction prompt: %v", steps)
				}
				if who := ui.Title(tut.Sanction.To); tut.Sanction.To != sim.NewcomerID && !strings.Contains(s, "“"+tut.Sanction.Text+"” to "+who) {
					t.Errorf("the sanction prompt %q does not name %s and the remark %q", s, who, tut.Sanction.Text)
				}
			}
			for step, s := range steps {
				for _, leak := range []string{"red", "noon", "rest", "Do not", "rule was"} {
					if strings.Contains(s, leak) {
						t.Errorf("prompt %d hints the tutorial's rule (%q): %s", step, leak, s)
					}
				}
			}
		})
	}
}

// TestResultHeld: in a class that plays one visit, a student's result
// before the reveal shows the scores and the option picked (quoted without
// doubled punctuation), no rule, verdict or visit, and offers to look for
// the reveal.
func TestResultHeld(t *testing.T) {
	sc := ui.Scores{Task: true, Violations: []int{1, 0}, Sanctions: []int{1, 0}, Steps: []int{60, 80}}
	for _, tc := range []struct {
		name, picked string
		want, not    []string
	}{
		{"picked a sentence", "Do not step on red tiles.", []string{"You picked: “Do not step on red tiles.”</p>"}, []string{"”."}},
		{"picked a phrase", "Rest at noon", []string{"You picked: “Rest at noon”.</p>"}, nil},
		{"nothing picked", "", nil, []string{"You picked"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := ui.ResultHeldHTML(sc, tc.picked, ui.DataClassroom)
			want := append([]string{"teacher will show its rule", `data-story="classroom"`, `data-act="download"`, `data-act="check-reveal"`,
				`id="reveal-status"`, "Sanctions received"}, tc.want...)
			for _, w := range want {
				if !strings.Contains(h, w) {
					t.Errorf("the held result lacks %q", w)
				}
			}
			for _, leak := range append([]string{"The rule was", "” — ", "watch-this", "Visit <code>"}, tc.not...) {
				if strings.Contains(h, leak) {
					t.Errorf("the held result shows %q", leak)
				}
			}
		})
	}
}

// TestQuoted: a quoted sentence gets a full stop after it only when it
// has none of its own.
func TestQuoted(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Walk on the path.", "“Walk on the path.”"},
		{"Hush!", "“Hush!”"},
		{"Why?", "“Why?”"},
		{"Rest at noon", "“Rest at noon”."},
		{"<b>", "“&lt;b&gt;”."},
	} {
		if got := ui.Quoted(tc.in); got != tc.want {
			t.Errorf("Quoted(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
