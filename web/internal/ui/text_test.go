//go:build !js

package ui_test

import (
	"strings"
	"testing"

	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/web/internal/ui"
)

func TestEventLine(t *testing.T) {
	f := &ui.Frame{}
	for _, tc := range []struct {
		name string
		ev   ui.Event
		who  string
		want string
	}{
		{"a sanction on a member", ui.Event{Kind: "sanction", By: "olek", To: "mara", Text: "Tsk!"}, "", `Olek sanctioned Mara: "Tsk!"`},
		{"a sanction on the player", ui.Event{Kind: "sanction", By: "olek", To: sim.NewcomerID, Text: "Tsk!"}, "", `Olek sanctioned you: "Tsk!"`},
		{"a sanction on a watched baseline", ui.Event{Kind: "sanction", By: "olek", To: sim.NewcomerID, Text: "Tsk!"}, "the observer", `Olek sanctioned the observer: "Tsk!"`},
		{"the warden", ui.Event{Kind: "sanction", By: sim.WardenID, To: sim.NewcomerID, Text: "No."}, "", `The warden sanctioned you: "No."`},
		{"a baseline's impossible action", ui.Event{Kind: "blocked", To: sim.NewcomerID, Text: `Your action "east" did nothing: you cannot walk onto water.`}, "the greedy", `The greedy's action "east" did nothing: it cannot walk onto water.`},
		{"a baseline's other notice", ui.Event{Kind: "blocked", To: sim.NewcomerID, Text: "Nothing happened."}, "the greedy", "The greedy: Nothing happened."},
		{"a day", ui.Event{Kind: "day", Text: "Day 2 begins."}, "the oracle", "Day 2 begins."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ui.EventLine(tc.ev, f, tc.who); got != tc.want {
				t.Errorf("EventLine = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestBannerText(t *testing.T) {
	f := &ui.Frame{}
	day := ui.Event{Kind: "day", Text: "Day 1 begins."}
	blocked := ui.Event{Kind: "blocked", To: sim.NewcomerID, Text: "Nothing to pick."}
	other := ui.Event{Kind: "sanction", By: "olek", To: "mara", Text: "Tsk!"}
	you := ui.Event{Kind: "sanction", By: "pip", To: sim.NewcomerID, Text: "Hey!"}
	for _, tc := range []struct {
		name string
		evs  []ui.Event
		want string
	}{
		{"none", nil, ""},
		{"a day", []ui.Event{day}, "Day 1 begins."},
		{"blocked beats a day", []ui.Event{blocked, day}, "Nothing to pick."},
		{"a sanction beats blocked", []ui.Event{blocked, other}, `Olek sanctioned Mara: "Tsk!"`},
		{"yours beats another's", []ui.Event{you, other}, `Pip sanctioned you: "Hey!"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ui.BannerText(tc.evs, f, ""); got != tc.want {
				t.Errorf("BannerText = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestInitials(t *testing.T) {
	ags := []ui.Agent{{Name: "you"}, {Name: "mara"}, {Name: "milo"}, {Name: "olek"}, {Name: "mae"}}
	got := ui.Initials(ags)
	want := []string{"", "Mar", "Mi", "O", "Mae"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("Initials = %q, want %q", got, want)
	}
}

// TestIcons checks that every world's things are drawn by a symbol of
// their own name (a stall as a stall, a gong as a gong), not the generic
// one of their kind, except where the name is the kind's.
func TestIcons(t *testing.T) {
	for _, w := range sim.Worlds() {
		n := ui.Names{Source: w.Source, Goods: w.Goods, Basket: w.Basket, Bell: w.Bell, Well: w.Well, Bin: w.Bin, Litter: w.Litter}
		for _, kind := range []string{"source", "basket", "bell", "well", "bin"} {
			name := n.ObjectName(kind)
			id := ui.Icon(n, kind)
			generic := map[string]string{"source": "apple tree", "basket": "basket", "bell": "bell", "well": "well", "bin": "bin"}[kind]
			if id == kind && name != generic && !(kind == "bin" && strings.HasSuffix(name, "bin")) && name != "ship's bell" {
				t.Errorf("%s: the %s (%s) is drawn with the generic %s symbol", w.Name, name, kind, kind)
			}
		}
	}
}

func TestStory(t *testing.T) {
	for _, tc := range []struct {
		mode, room string
		site       bool
		want       ui.DataMode
	}{
		{ui.ModePlay, "", false, ui.DataLocal},
		{ui.ModeWatch, "", true, ui.DataLocal},
		{ui.ModePlay, "", true, ui.DataSite},
		{ui.ModePlay, "ABC", true, ui.DataClassroom},
		{ui.ModeModel, "", true, ui.DataModel},
		{ui.ModeModel, "", false, ui.DataModel},
	} {
		if got := ui.DataModeOf(tc.mode, tc.site, tc.room); got != tc.want {
			t.Errorf("DataModeOf(%s, %v, %q) = %s, want %s", tc.mode, tc.site, tc.room, got, tc.want)
		}
	}
	seen := map[string]bool{}
	for _, m := range []ui.DataMode{ui.DataLocal, ui.DataSite, ui.DataClassroom, ui.DataModel} {
		s := ui.Story(m)
		if seen[s] || s == "" {
			t.Errorf("story of %s is empty or another mode's", m)
		}
		seen[s] = true
		if h := ui.StoryHTML(m); !strings.Contains(h, `data-story="`+string(m)+`"`) {
			t.Errorf("StoryHTML(%s) = %s", m, h)
		}
	}
	if !strings.Contains(ui.Story(ui.DataLocal), "nothing is sent") || !strings.Contains(ui.Story(ui.DataSite), "Nothing is sent until") {
		t.Error("the local and site stories no longer say when data is sent")
	}
}
