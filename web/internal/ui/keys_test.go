//go:build !js

package ui_test

import (
	"testing"

	"github.com/normgym/normgym/web/internal/ui"
)

func TestFocusOf(t *testing.T) {
	for _, tc := range []struct {
		name        string
		tag, typ    string
		inPad, map_ bool
		want        ui.Focus
	}{
		{"nothing", "", "", false, false, ui.FocusNone},
		{"body", "BODY", "", false, false, ui.FocusNone},
		{"the map", "SECTION", "", false, true, ui.FocusNone},
		{"a heading", "H2", "", false, false, ui.FocusNone},
		{"a pad button", "BUTTON", "", true, false, ui.FocusPad},
		{"the visit picker", "BUTTON", "", false, false, ui.FocusControl},
		{"a tab", "A", "", false, false, ui.FocusControl},
		{"a summary", "SUMMARY", "", false, false, ui.FocusControl},
		{"a probe option", "INPUT", "radio", false, false, ui.FocusChoice},
		{"the confidence slider", "INPUT", "range", false, false, ui.FocusChoice},
		{"a text field", "INPUT", "text", false, false, ui.FocusText},
		{"a select", "SELECT", "", false, false, ui.FocusText},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ui.FocusOf(tc.tag, tc.typ, tc.inPad, tc.map_); got != tc.want {
				t.Errorf("FocusOf(%q, %q, %v, %v) = %v, want %v", tc.tag, tc.typ, tc.inPad, tc.map_, got, tc.want)
			}
		})
	}
}

func TestIntent(t *testing.T) {
	north := ui.KeyIntent{Command: ui.Command{Action: "north"}, Act: true, Prevent: true}
	for _, tc := range []struct {
		name  string
		stage ui.Stage
		key   ui.KeyPress
		want  ui.KeyIntent
	}{
		{"arrow on the map moves", ui.StagePlay, ui.KeyPress{Key: "ArrowUp"}, north},
		{"W with nothing focused moves", ui.StagePlay, ui.KeyPress{Key: "w"}, north},
		{"held arrow does not move, nor scroll", ui.StagePlay, ui.KeyPress{Key: "ArrowUp", Repeat: true}, ui.KeyIntent{Prevent: true}},
		{"Space waits", ui.StagePlay, ui.KeyPress{Key: " "}, ui.KeyIntent{Command: ui.Command{Action: "wait"}, Act: true, Prevent: true}},
		{"arrow on a pad button still moves", ui.StagePlay, ui.KeyPress{Key: "ArrowUp", Focus: ui.FocusPad}, north},
		{"Enter on a pad button presses it", ui.StagePlay, ui.KeyPress{Key: "Enter", Focus: ui.FocusPad}, ui.KeyIntent{}},
		{"Space on a pad button presses it", ui.StagePlay, ui.KeyPress{Key: " ", Focus: ui.FocusPad}, ui.KeyIntent{}},
		{"held Enter on a button is cancelled", ui.StagePlay, ui.KeyPress{Key: "Enter", Focus: ui.FocusPad, Repeat: true}, ui.KeyIntent{Prevent: true}},
		{"arrow on the visit picker is its own", ui.StagePlay, ui.KeyPress{Key: "ArrowUp", Focus: ui.FocusControl}, ui.KeyIntent{}},
		{"letters in a text field are typing", ui.StagePlay, ui.KeyPress{Key: "w", Focus: ui.FocusText}, ui.KeyIntent{}},
		{"Ctrl+W is the browser's", ui.StagePlay, ui.KeyPress{Key: "w", Modified: true}, ui.KeyIntent{}},
		{"Enter starts from the consent screen", ui.StageConsent, ui.KeyPress{Key: "Enter"}, ui.KeyIntent{Advance: true, Prevent: true}},
		{"Enter on a tab does not start", ui.StageConsent, ui.KeyPress{Key: "Enter", Focus: ui.FocusControl}, ui.KeyIntent{}},
		{"Enter on the visit picker does not start", ui.StageDay, ui.KeyPress{Key: "Enter", Focus: ui.FocusControl}, ui.KeyIntent{}},
		{"Space begins the day", ui.StageDay, ui.KeyPress{Key: " "}, ui.KeyIntent{Advance: true, Prevent: true}},
		{"a held Space does not skip the day's card", ui.StageDay, ui.KeyPress{Key: " ", Repeat: true}, ui.KeyIntent{Prevent: true}},
		{"an arrow does not begin the day", ui.StageDay, ui.KeyPress{Key: "ArrowUp"}, ui.KeyIntent{}},
		{"a digit chooses in the probe", ui.StageProbe, ui.KeyPress{Key: "3"}, ui.KeyIntent{Choose: 3, Prevent: true}},
		{"a digit on an option chooses", ui.StageProbe, ui.KeyPress{Key: "2", Focus: ui.FocusChoice}, ui.KeyIntent{Choose: 2, Prevent: true}},
		{"Enter submits the probe", ui.StageProbe, ui.KeyPress{Key: "Enter"}, ui.KeyIntent{Submit: true, Prevent: true}},
		{"Enter on a link in the probe is the link's", ui.StageProbe, ui.KeyPress{Key: "Enter", Focus: ui.FocusControl}, ui.KeyIntent{}},
		{"keys do nothing on the result", ui.StageResult, ui.KeyPress{Key: "Enter"}, ui.KeyIntent{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ui.Intent(tc.stage, tc.key); got != tc.want {
				t.Errorf("Intent(%d, %+v) = %+v, want %+v", tc.stage, tc.key, got, tc.want)
			}
		})
	}
}

func TestWatchIntent(t *testing.T) {
	for _, tc := range []struct {
		name    string
		key     ui.KeyPress
		act     string
		prevent bool
	}{
		{"Space plays", ui.KeyPress{Key: " "}, "w-play", true},
		{"arrow steps", ui.KeyPress{Key: "ArrowRight"}, "w-step", true},
		{"held arrow does not step", ui.KeyPress{Key: "ArrowRight", Repeat: true}, "", true},
		{"Space on a button is the button's", ui.KeyPress{Key: " ", Focus: ui.FocusControl}, "", false},
		{"other keys are not the watch's", ui.KeyPress{Key: "x"}, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			act, prevent := ui.WatchIntent(tc.key)
			if act != tc.act || prevent != tc.prevent {
				t.Errorf("WatchIntent(%+v) = %q, %v; want %q, %v", tc.key, act, prevent, tc.act, tc.prevent)
			}
		})
	}
}
