package sim_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/simtest"
)

// tinyFrame is a hand-built 6×3 world:
//
//	     x=0        1           2             3             4         5
//	y=0  path red   grass blue  floor M       floor M       floor M   water
//	                garden                    basket
//	y=1  path       sand        path          path          path      wall
//	                            source yellow source red
//	                            (stock 2)     (stock 0)
//	y=2  stone      floor       floor         floor         path      path
//	     plaza      bin         bell          well
//
// M is the market. Agent 0 is the newcomer (at 0,0 until moved), agent 1
// the elder mara (blue hat) at 5,2, agent 2 the child pip (red hat) at 0,2.
func tinyFrame() *sim.Frame {
	f := &sim.Frame{Width: 6, Height: 3, Tiles: make([]sim.Tile, 18), Phase: "morning"}
	set := func(x, y int, t sim.Tile) { *f.At(sim.Pos{X: x, Y: y}) = t }
	set(0, 0, sim.Tile{Terrain: "path", Color: "red"})
	set(1, 0, sim.Tile{Terrain: "grass", Color: "blue", Zone: "garden"})
	set(2, 0, sim.Tile{Terrain: "floor", Zone: "market"})
	set(3, 0, sim.Tile{Terrain: "floor", Zone: "market", Object: "basket"})
	set(4, 0, sim.Tile{Terrain: "floor", Zone: "market"})
	set(5, 0, sim.Tile{Terrain: "water"})
	set(0, 1, sim.Tile{Terrain: "path"})
	set(1, 1, sim.Tile{Terrain: "sand"})
	set(2, 1, sim.Tile{Terrain: "path", Object: "source", ObjectColor: "yellow", Stock: 2})
	set(3, 1, sim.Tile{Terrain: "path", Object: "source", ObjectColor: "red"})
	set(4, 1, sim.Tile{Terrain: "path"})
	set(5, 1, sim.Tile{Terrain: "wall"})
	set(0, 2, sim.Tile{Terrain: "stone", Zone: "plaza"})
	set(1, 2, sim.Tile{Terrain: "floor", Object: "bin"})
	set(2, 2, sim.Tile{Terrain: "floor", Object: "bell"})
	set(3, 2, sim.Tile{Terrain: "floor", Object: "well"})
	set(4, 2, sim.Tile{Terrain: "path"})
	set(5, 2, sim.Tile{Terrain: "path"})
	f.Zones = []sim.Zone{
		{Name: "market", Min: sim.Pos{X: 2, Y: 0}, Max: sim.Pos{X: 4, Y: 0}},
		{Name: "garden", Min: sim.Pos{X: 1, Y: 0}, Max: sim.Pos{X: 1, Y: 0}},
		{Name: "plaza", Min: sim.Pos{X: 0, Y: 2}, Max: sim.Pos{X: 0, Y: 2}},
	}
	f.Agents = []sim.Agent{
		{ID: sim.NewcomerID, Name: "you", Role: "newcomer"},
		{ID: "mara", Name: "mara", Role: "elder", Hat: "blue", Pos: sim.Pos{X: 5, Y: 2}},
		{ID: "pip", Name: "pip", Role: "child", Hat: "red", Pos: sim.Pos{X: 0, Y: 2}},
	}
	return f
}

func TestTinyFrameIsValid(t *testing.T) {
	if err := simtest.CheckFrame(tinyFrame()); err != nil {
		t.Fatal(err)
	}
}

// event returns the event of "forbid <text>".
func event(text string) norms.Event { return norms.MustParse("forbid " + text).Event }

func mustAction(t *testing.T, s string) sim.Action {
	t.Helper()
	a, err := sim.ParseAction(s)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestMatches(t *testing.T) {
	tests := []struct {
		name   string
		event  string
		at     sim.Pos
		goods  int
		litter int
		phase  string // "" for morning
		action string
		want   bool
	}{
		{name: "step onto the colour", event: "step color=blue", at: sim.Pos{X: 0, Y: 0}, action: "east", want: true},
		{name: "step onto another colour", event: "step color=red", at: sim.Pos{X: 0, Y: 0}, action: "east", want: false},
		{name: "standing on the colour is no step", event: "step color=blue", at: sim.Pos{X: 1, Y: 0}, action: "wait", want: false},
		{name: "a blocked step is nothing", event: "step terrain=water", at: sim.Pos{X: 4, Y: 0}, action: "east", want: false},
		{name: "step by terrain", event: "step terrain=sand", at: sim.Pos{X: 0, Y: 1}, action: "east", want: true},
		{name: "step onto a zone", event: "step zone=market", at: sim.Pos{X: 2, Y: 0}, action: "east", want: true},
		{name: "one-way path, wrong way", event: "step terrain=path dir=north", at: sim.Pos{X: 0, Y: 1}, action: "north", want: true},
		{name: "one-way path, other way", event: "step terrain=path dir=north", at: sim.Pos{X: 2, Y: 1}, action: "east", want: false},
		{name: "one-way path, the way onto grass", event: "step terrain=path dir=north", at: sim.Pos{X: 1, Y: 1}, action: "north", want: false},
		{name: "enter the zone", event: "enter zone=market", at: sim.Pos{X: 1, Y: 0}, action: "east", want: true},
		{name: "enter the zone from below", event: "enter zone=market", at: sim.Pos{X: 2, Y: 1}, action: "north", want: true},
		{name: "walk within the zone", event: "enter zone=market", at: sim.Pos{X: 2, Y: 0}, action: "east", want: false},
		{name: "leave the zone", event: "enter zone=market", at: sim.Pos{X: 2, Y: 0}, action: "west", want: false},
		{name: "pick by colour", event: "pick color=yellow", at: sim.Pos{X: 2, Y: 1}, action: "pick", want: true},
		{name: "pick another colour", event: "pick color=red", at: sim.Pos{X: 2, Y: 1}, action: "pick", want: false},
		{name: "pick from a bare source", event: "pick", at: sim.Pos{X: 3, Y: 1}, action: "pick", want: false},
		{name: "pick in the phase", event: "pick phase=noon", at: sim.Pos{X: 2, Y: 1}, phase: "noon", action: "pick", want: true},
		{name: "pick out of the phase", event: "pick phase=noon", at: sim.Pos{X: 2, Y: 1}, action: "pick", want: false},
		{name: "drop into the basket", event: "drop", at: sim.Pos{X: 3, Y: 0}, goods: 1, action: "drop", want: true},
		{name: "drop on the ground", event: "drop", at: sim.Pos{X: 0, Y: 1}, litter: 1, action: "drop", want: true},
		{name: "drop with empty hands", event: "drop", at: sim.Pos{X: 0, Y: 1}, action: "drop", want: false},
		{name: "drop in the phase", event: "drop phase=evening", at: sim.Pos{X: 0, Y: 1}, litter: 1, phase: "evening", action: "drop", want: true},
		{name: "litter on the ground", event: "litter", at: sim.Pos{X: 0, Y: 1}, litter: 1, action: "drop", want: true},
		{name: "goods on the ground are litter", event: "litter", at: sim.Pos{X: 0, Y: 1}, goods: 1, action: "drop", want: true},
		{name: "the basket is not litter", event: "litter", at: sim.Pos{X: 3, Y: 0}, goods: 1, action: "drop", want: false},
		{name: "litter except at the bin, at the bin", event: "litter except object=bin", at: sim.Pos{X: 1, Y: 2}, litter: 1, action: "drop", want: false},
		{name: "litter except at the bin, elsewhere", event: "litter except object=bin", at: sim.Pos{X: 2, Y: 2}, litter: 1, action: "drop", want: true},
		{name: "litter except zone or terrain, on sand", event: "litter except zone=garden terrain=sand", at: sim.Pos{X: 1, Y: 1}, litter: 1, action: "drop", want: false},
		{name: "litter except zone or terrain, in the garden", event: "litter except zone=garden terrain=sand", at: sim.Pos{X: 1, Y: 0}, litter: 1, action: "drop", want: false},
		{name: "litter except zone or terrain, elsewhere", event: "litter except zone=garden terrain=sand", at: sim.Pos{X: 0, Y: 1}, litter: 1, action: "drop", want: true},
		{name: "litter except the plaza, in it", event: "litter except zone=plaza", at: sim.Pos{X: 0, Y: 2}, litter: 1, action: "drop", want: false},
		{name: "carry over: the pick that goes over", event: "carry over=1", at: sim.Pos{X: 2, Y: 1}, goods: 1, action: "pick", want: true},
		{name: "carry over: a pick that stays within", event: "carry over=1", at: sim.Pos{X: 2, Y: 1}, action: "pick", want: false},
		{name: "carry over: litter counts", event: "carry over=1", at: sim.Pos{X: 2, Y: 1}, litter: 1, action: "pick", want: true},
		{name: "carry over: already over, walking", event: "carry over=1", at: sim.Pos{X: 0, Y: 1}, goods: 2, action: "east", want: false},
		{name: "carry over: already over, dropping", event: "carry over=1", at: sim.Pos{X: 0, Y: 1}, goods: 3, action: "drop", want: false},
		{name: "carry over: a blocked pick", event: "carry over=0", at: sim.Pos{X: 3, Y: 1}, action: "pick", want: false},
		{name: "meet needs the history Judge keeps", event: "meet role=elder", at: sim.Pos{X: 3, Y: 2}, action: "east", want: false},
		{name: "pass: walk next to", event: "pass role=elder", at: sim.Pos{X: 3, Y: 2}, action: "east", want: true},
		{name: "pass: walk along next to", event: "pass role=elder", at: sim.Pos{X: 4, Y: 1}, action: "south", want: true},
		{name: "pass: onto their tile", event: "pass role=elder", at: sim.Pos{X: 4, Y: 2}, action: "east", want: true},
		{name: "pass: standing next to is no pass", event: "pass role=elder", at: sim.Pos{X: 4, Y: 2}, action: "wait", want: false},
		{name: "pass: another role", event: "pass role=child", at: sim.Pos{X: 3, Y: 2}, action: "east", want: false},
		{name: "pass: by hat", event: "pass hat=blue", at: sim.Pos{X: 3, Y: 2}, action: "east", want: true},
		{name: "pass: another hat", event: "pass hat=red", at: sim.Pos{X: 3, Y: 2}, action: "east", want: false},
		{name: "meet: standing next to is no meeting", event: "meet role=elder", at: sim.Pos{X: 4, Y: 2}, action: "wait", want: false},
		{name: "pass: come next to", event: "pass role=elder", at: sim.Pos{X: 3, Y: 2}, action: "east", want: true},
		{name: "pass: already next to", event: "pass role=elder", at: sim.Pos{X: 4, Y: 1}, action: "south", want: true},
		{name: "pass: moving away", event: "pass role=elder", at: sim.Pos{X: 4, Y: 2}, action: "west", want: false},
		{name: "pass: onto their tile", event: "pass role=elder", at: sim.Pos{X: 4, Y: 2}, action: "east", want: true},
		{name: "pass: come next to the child", event: "pass role=child", at: sim.Pos{X: 1, Y: 1}, action: "west", want: true},
		{name: "use the object", event: "use object=bell", at: sim.Pos{X: 2, Y: 2}, action: "use", want: true},
		{name: "use another object", event: "use object=bell", at: sim.Pos{X: 3, Y: 2}, action: "use", want: false},
		{name: "use nothing", event: "use", at: sim.Pos{X: 0, Y: 1}, action: "use", want: false},
		{name: "use the basket", event: "use", at: sim.Pos{X: 3, Y: 0}, action: "use", want: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := tinyFrame()
			me := &f.Agents[0]
			me.Pos, me.Goods, me.Litter = tc.at, tc.goods, tc.litter
			if tc.phase != "" {
				f.Phase = tc.phase
			}
			before := mustJSON(t, f)
			tr := f.Preview(0, tc.at, mustAction(t, tc.action))
			if got, want := sim.Matches(f, event(tc.event), tr), tc.want; got != want {
				t.Errorf("Matches(%q, %s at %v) = %v, want %v", tc.event, tc.action, tc.at, got, want)
			}
			if !bytes.Equal(mustJSON(t, f), before) {
				t.Error("Preview or Matches changed the frame")
			}
		})
	}
}

// TestBowMatchesOnlyBow covers the act-only verb: rules use it as an act.
func TestBowMatchesOnlyBow(t *testing.T) {
	f := tinyFrame()
	bow := norms.Event{Verb: "bow"}
	for _, tc := range []struct {
		action string
		want   bool
	}{{"bow", true}, {"wait", false}, {"use", false}, {"east", false}} {
		t.Run(tc.action, func(t *testing.T) {
			tr := f.Preview(0, f.Agents[0].Pos, mustAction(t, tc.action))
			if got, want := sim.Matches(f, bow, tr), tc.want; got != want {
				t.Errorf("Matches(bow, %s) = %v, want %v", tc.action, got, want)
			}
		})
	}
}

// TestJudge plays action sequences on the tiny frame and checks which
// ones Judge flags, and the history it hands on.
func TestJudge(t *testing.T) {
	tests := []struct {
		name    string
		rule    string
		at      sim.Pos
		actions string // space-separated
		want    string // one letter per action: v violation, . none
		end     sim.Hist
	}{
		{name: "forbid: each step onto the colour", rule: "forbid step color=blue", at: sim.Pos{X: 0, Y: 0},
			actions: "east east west wait", want: "v.v."},
		{name: "before: no bow", rule: "require bow before enter zone=market", at: sim.Pos{X: 1, Y: 0},
			actions: "east", want: "v"},
		{name: "before: bow then enter", rule: "require bow before enter zone=market", at: sim.Pos{X: 1, Y: 0},
			actions: "bow east", want: ".."},
		{name: "before: the bow lasts until the event", rule: "require bow before enter zone=market", at: sim.Pos{X: 1, Y: 0},
			actions: "bow south north wait east", want: "....."},
		{name: "before: the event uses the bow up", rule: "require bow before enter zone=market", at: sim.Pos{X: 1, Y: 0},
			actions: "bow east west east", want: "...v"},
		{name: "before: bow again for each entry", rule: "require bow before enter zone=market", at: sim.Pos{X: 1, Y: 0},
			actions: "bow east west bow east", want: "....."},
		{name: "before: a bow pending at the end of the run", rule: "require bow before enter zone=market", at: sim.Pos{X: 1, Y: 0},
			actions: "bow", want: ".", end: sim.Hist{Since: true}},
		{name: "before: walking inside is no entry", rule: "require bow before enter zone=market", at: sim.Pos{X: 2, Y: 0},
			actions: "east east west", want: "..."},
		{name: "before: ring then enter", rule: "require use object=bell before enter zone=market", at: sim.Pos{X: 2, Y: 2},
			actions: "use north north", want: "..."},
		{name: "before: a blocked use does not count", rule: "require use object=bell before enter zone=market", at: sim.Pos{X: 1, Y: 1},
			actions: "use north east", want: "..v"},
		{name: "before: the wrong object does not count", rule: "require use object=well before pick", at: sim.Pos{X: 2, Y: 2},
			actions: "use north pick", want: "..v"},
		{name: "before: wash then pick", rule: "require use object=well before pick", at: sim.Pos{X: 3, Y: 2},
			actions: "use west north pick", want: "...."},
		{name: "before: one bow, one pick", rule: "require bow before pick", at: sim.Pos{X: 2, Y: 1},
			actions: "bow pick pick", want: "..v"},
		{name: "before: a blocked pick is no pick", rule: "require bow before pick", at: sim.Pos{X: 3, Y: 1},
			actions: "pick", want: "."},
		{name: "before drop: into the basket too", rule: "require bow before drop", at: sim.Pos{X: 3, Y: 0},
			actions: "drop", want: "v"},
		{name: "after: meet then bow", rule: "require bow after meet role=elder", at: sim.Pos{X: 3, Y: 2},
			actions: "east bow", want: "..", end: sim.Hist{Near: true}},
		{name: "after: meet then wait", rule: "require bow after meet role=elder", at: sim.Pos{X: 3, Y: 2},
			actions: "east wait", want: ".v", end: sim.Hist{Near: true}},
		{name: "after: meet then walk on", rule: "require bow after meet role=elder", at: sim.Pos{X: 3, Y: 2},
			actions: "east north", want: ".v", end: sim.Hist{Near: true}},
		{name: "after: the debt is one action", rule: "require bow after meet role=elder", at: sim.Pos{X: 3, Y: 2},
			actions: "east wait wait", want: ".v.", end: sim.Hist{Near: true}},
		{name: "after: a blocked action pays nothing", rule: "require bow after meet role=elder", at: sim.Pos{X: 3, Y: 2},
			actions: "east pick", want: ".v", end: sim.Hist{Near: true}},
		{name: "after: owed at the end of the run", rule: "require bow after meet role=elder", at: sim.Pos{X: 3, Y: 2},
			actions: "east", want: ".", end: sim.Hist{Owe: true, Near: true}},
		{name: "after: starting next to is a meeting", rule: "require bow after meet role=elder", at: sim.Pos{X: 4, Y: 1},
			actions: "south wait", want: ".v", end: sim.Hist{Near: true}},
		{name: "after: meet again after leaving", rule: "require bow after meet role=elder", at: sim.Pos{X: 3, Y: 2},
			actions: "east bow west east wait", want: "....v", end: sim.Hist{Near: true}},
		{name: "after: pick then ring", rule: "require use object=bell after pick", at: sim.Pos{X: 2, Y: 1},
			actions: "pick south use", want: ".v."},
		{name: "etiquette: a bow no rule calls for", rule: "forbid step color=blue", at: sim.Pos{X: 0, Y: 0},
			actions: "bow wait", want: "v."},
		{name: "etiquette: one bow before the pick is in place", rule: "require bow before pick", at: sim.Pos{X: 2, Y: 1},
			actions: "bow bow pick", want: ".v.", end: sim.Hist{}},
		{name: "etiquette: a bow owed is in place, a second is not", rule: "require bow after meet role=elder", at: sim.Pos{X: 3, Y: 2},
			actions: "east bow bow", want: "..v", end: sim.Hist{Near: true}},
		{name: "etiquette: bowing to nobody under a greeting rule", rule: "require bow after meet role=elder", at: sim.Pos{X: 0, Y: 0},
			actions: "bow", want: "v"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := norms.MustParse(tc.rule)
			f := tinyFrame()
			f.Agents[0].Pos = tc.at
			f.Agents[0].Goods = 1 // for the drop
			var h sim.Hist
			var got strings.Builder
			for _, s := range strings.Fields(tc.actions) {
				tr := f.Preview(0, f.Agents[0].Pos, mustAction(t, s))
				before, hBefore := mustJSON(t, f), h
				v, next := sim.Judge(f, r, tr, h)
				if !bytes.Equal(mustJSON(t, f), before) || h != hBefore {
					t.Fatal("Judge changed its inputs")
				}
				if v2, next2 := sim.Judge(f, r, tr, h); v2 != v || next2 != next {
					t.Fatal("Judge gave two answers for one question")
				}
				if r.Deontic == norms.Forbid && next != h {
					t.Errorf("Judge changed the history under a prohibition: %+v → %+v", h, next)
				}
				h = next
				if v {
					got.WriteByte('v')
				} else {
					got.WriteByte('.')
				}
				f.Apply(tr)
			}
			if got, want := got.String(), tc.want; got != want {
				t.Errorf("%q on %q: violations %q, want %q", tc.rule, tc.actions, got, want)
			}
			if got, want := h, tc.end; got != want {
				t.Errorf("%q on %q: history %+v, want %+v", tc.rule, tc.actions, got, want)
			}
		})
	}
}
