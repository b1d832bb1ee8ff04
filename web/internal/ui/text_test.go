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
		{ui.ModeJoin, "", true, ui.DataClassroom},
		{ui.ModeJoin, "", false, ui.DataLocal},
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
	if !strings.Contains(ui.Story(ui.DataLocal), "nothing is sent") || !strings.Contains(ui.Story(ui.DataSite), "as you make it") {
		t.Error("the local and site stories no longer say when data is sent")
	}
}

func TestTrail(t *testing.T) {
	spots := []ui.Spot{{Pos: ui.Pos{X: 1, Y: 1}, Day: 1, Step: 10}, {Pos: ui.Pos{X: 2, Y: 2}, Day: 1, Step: 12}, {Pos: ui.Pos{X: 3, Y: 3}, Day: 2, Step: 12}}
	for _, tc := range []struct {
		day, step int
		want      []ui.Pos
	}{
		{1, 10, []ui.Pos{{X: 1, Y: 1}}},
		{1, 12, []ui.Pos{{X: 1, Y: 1}, {X: 2, Y: 2}}},
		{1, 13, []ui.Pos{{X: 2, Y: 2}}},
		{1, 15, nil},
		{2, 12, []ui.Pos{{X: 3, Y: 3}}},
	} {
		got := ui.Trail(spots, tc.day, tc.step)
		if len(got) != len(tc.want) {
			t.Errorf("Trail(day %d, step %d) = %v, want %v", tc.day, tc.step, got, tc.want)
			continue
		}
		for _, p := range tc.want {
			if !got[p] {
				t.Errorf("Trail(day %d, step %d) = %v, want %v", tc.day, tc.step, got, tc.want)
			}
		}
	}
	if p, ok := ui.Where(ui.Event{Kind: "sanction", By: "olek", To: "mara", At: ui.Pos{X: 6, Y: 1}}); !ok || p != (ui.Pos{X: 6, Y: 1}) {
		t.Errorf("Where(sanction on mara) = %v, %v; want x 6 y 1", p, ok)
	}
	if _, ok := ui.Where(ui.Event{Kind: "day"}); ok {
		t.Error("Where(a day event) has a tile")
	}
}

// TestZoneLabels checks that a zone's name moves away from a member's
// token and name label, and is left out when both corners are taken.
func TestZoneLabels(t *testing.T) {
	tiles := make([]ui.Tile, 36)
	for i := range tiles {
		tiles[i].Terrain = "path"
	}
	obs := func(members ...ui.Pos) *ui.Observation {
		o := &ui.Observation{}
		o.Frame = ui.Frame{Width: 6, Height: 6, Tiles: tiles, Zones: []ui.Zone{{Name: "market", Min: ui.Pos{X: 1, Y: 2}, Max: ui.Pos{X: 4, Y: 4}}}}
		o.Frame.Agents = []ui.Agent{{ID: sim.NewcomerID, Pos: ui.Pos{X: 0, Y: 5}}}
		for i, p := range members {
			o.Frame.Agents = append(o.Frame.Agents, ui.Agent{ID: "m" + string(rune('a'+i)), Name: "m" + string(rune('a'+i)), Pos: p})
		}
		return o
	}
	for _, tc := range []struct {
		name    string
		members []ui.Pos
		want    string
	}{
		{"free: top right", nil, `<span>market</span>`},
		{"a name label over the top right", []ui.Pos{{X: 4, Y: 1}}, `<span class="left">market</span>`},
		{"both corners taken", []ui.Pos{{X: 4, Y: 2}, {X: 1, Y: 1}}, `"></div>`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := ui.GridHTML(obs(tc.members...), ui.Marks{})
			i := strings.Index(g, `class="zone"`)
			if i < 0 || !strings.Contains(g[i:], tc.want) || (tc.want == `"></div>` && strings.Contains(g[i:], "market")) {
				t.Errorf("zone label: %s", g[i:])
			}
		})
	}
}
