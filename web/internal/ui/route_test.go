package ui_test

import (
	"testing"

	"github.com/normgym/normgym/web/internal/ui"
)

func TestRoute(t *testing.T) {
	for _, tc := range []struct {
		name, frag string
		want       ui.Route
		back       string
	}{
		{"empty", "", ui.Route{Mode: "play"}, "#"},
		{"suite", "#suite=standard&n=17", ui.Route{Mode: "play", Suite: "standard", N: 17}, "#suite=standard&n=17"},
		{"visit", "#visit=orchard/place.color=blue/observe/s17", ui.Route{Mode: "play", Visit: "orchard/place.color=blue/observe/s17"}, "#visit=orchard/place.color=blue/observe/s17"},
		{"watch", "#mode=watch&visit=a/b/c/s1&agent=oracle", ui.Route{Mode: "watch", Visit: "a/b/c/s1", Agent: "oracle"}, "#mode=watch&visit=a/b/c/s1&agent=oracle"},
		{"visit wins over suite", "suite=mini&n=3&visit=a/b/c/s1", ui.Route{Mode: "play", Visit: "a/b/c/s1"}, "#visit=a/b/c/s1"},
		{"bad mode and n ignored", "#mode=admin&suite=mini&n=-4", ui.Route{Mode: "play", Suite: "mini"}, "#suite=mini"},
		{"n without suite ignored", "#n=4", ui.Route{Mode: "play"}, "#"},
		{"malformed visit ignored", "#visit=orchard", ui.Route{Mode: "play"}, "#"},
		{"escapes", "#visit=a%26b/c/d/s1", ui.Route{Mode: "play", Visit: "a&b/c/d/s1"}, "#visit=a%26b/c/d/s1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ui.ParseRoute(tc.frag)
			if got != tc.want {
				t.Errorf("ParseRoute(%q) = %+v, want %+v", tc.frag, got, tc.want)
			}
			if s := got.String(); s != tc.back {
				t.Errorf("String() = %q, want %q", s, tc.back)
			}
			if again := ui.ParseRoute(got.String()); again != got {
				t.Errorf("round trip %+v -> %+v", got, again)
			}
		})
	}
}

func FuzzParseRoute(f *testing.F) {
	f.Add("#mode=watch&suite=standard&n=17&agent=greedy")
	f.Add("visit=a/b/c/s1%zz%")
	f.Fuzz(func(t *testing.T, frag string) {
		r := ui.ParseRoute(frag)
		if again := ui.ParseRoute(r.String()); again != r {
			t.Fatalf("%q: %+v does not round-trip (%q -> %+v)", frag, r, r.String(), again)
		}
	})
}

func TestKeys(t *testing.T) {
	for _, a := range []string{"north", "south", "east", "west", "wait", "pick", "drop", "use", "bow"} {
		c, ok := ui.KeyCommand(ui.ActionKey(a))
		if !ok || c.Action != a {
			t.Errorf("the key for %s maps to %+v", a, c)
		}
	}
	for k, want := range map[string]string{"w": "north", "A": "west", "s": "south", "d": "east", "e": "use", ".": "wait", "q": "drop"} {
		if c, _ := ui.KeyCommand(k); c.Action != want {
			t.Errorf("key %q = %q, want %q", k, c.Action, want)
		}
	}
	if c, ok := ui.KeyCommand("3"); !ok || c.Action != "give" || c.Member != 3 {
		t.Errorf("key 3 = %+v", c)
	}
	if _, ok := ui.KeyCommand("x"); ok {
		t.Error("x should not be bound")
	}
	o := &ui.Observation{Frame: ui.Frame{Agents: []ui.Agent{
		{ID: "newcomer", Pos: ui.Pos{X: 5, Y: 5}}, {ID: "mara", Pos: ui.Pos{X: 6, Y: 6}}, {ID: "olek", Pos: ui.Pos{X: 9, Y: 5}}, {ID: "fern", Pos: ui.Pos{X: 5, Y: 4}},
	}}}
	if a, why := (ui.Command{Action: "give", Member: 2}).Resolve(o); a != "give olek" || why != "" {
		t.Errorf("give to member 2 = %q %q (the sim decides whether olek is near)", a, why)
	}
	if a, why := (ui.Command{Action: "give"}).Resolve(o); a != "" || why == "" {
		t.Errorf("give with two neighbours = %q %q, want a question", a, why)
	}
	if got := ui.Adjacent(o); len(got) != 2 || got[0] != 1 || got[1] != 3 {
		t.Errorf("Adjacent = %v, want [1 3]", got)
	}
}
