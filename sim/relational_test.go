package sim_test

import (
	"testing"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/sim"
)

// TestNearQualifier judges near=W: someone else (not the actor, not the
// one given to) stands on or next to the tile the act is judged at, in the
// frame before the act.
func TestNearQualifier(t *testing.T) {
	tests := []struct {
		name   string
		rule   string
		at     sim.Pos
		pip    sim.Pos // where the child stands (the elder stays at 5,2)
		action string
		want   bool
	}{
		{name: "pick with nobody beside", rule: "forbid pick near=anyone", at: sim.Pos{X: 2, Y: 1}, pip: sim.Pos{X: 0, Y: 2}, action: "pick", want: false},
		{name: "pick with someone beside", rule: "forbid pick near=anyone", at: sim.Pos{X: 2, Y: 1}, pip: sim.Pos{X: 1, Y: 1}, action: "pick", want: true},
		{name: "pick with someone on the tile", rule: "forbid pick near=anyone", at: sim.Pos{X: 2, Y: 1}, pip: sim.Pos{X: 2, Y: 1}, action: "pick", want: true},
		{name: "pick with someone two tiles off", rule: "forbid pick near=anyone", at: sim.Pos{X: 2, Y: 1}, pip: sim.Pos{X: 0, Y: 1}, action: "pick", want: false},
		{name: "the role named is not beside", rule: "forbid pick near=elder", at: sim.Pos{X: 2, Y: 1}, pip: sim.Pos{X: 1, Y: 1}, action: "pick", want: false},
		{name: "the role named is beside", rule: "forbid pick near=child", at: sim.Pos{X: 2, Y: 1}, pip: sim.Pos{X: 1, Y: 1}, action: "pick", want: true},
		{name: "a blocked pick is nothing", rule: "forbid pick near=anyone", at: sim.Pos{X: 3, Y: 1}, pip: sim.Pos{X: 2, Y: 1}, action: "pick", want: false},
		{name: "the one given to does not count", rule: "forbid give near=anyone", at: sim.Pos{X: 4, Y: 1}, pip: sim.Pos{X: 0, Y: 2}, action: "give mara", want: false},
		{name: "someone else beside a gift", rule: "forbid give near=anyone", at: sim.Pos{X: 4, Y: 1}, pip: sim.Pos{X: 3, Y: 1}, action: "give mara", want: true},
		{name: "a move is judged at the tile entered", rule: "forbid step terrain=path near=anyone", at: sim.Pos{X: 3, Y: 2}, pip: sim.Pos{X: 0, Y: 2}, action: "east", want: true},
		{name: "a move away from someone", rule: "forbid step terrain=path near=anyone", at: sim.Pos{X: 4, Y: 1}, pip: sim.Pos{X: 0, Y: 2}, action: "west", want: false},
		{name: "walking onto a source someone is beside", rule: "forbid step object=source near=anyone", at: sim.Pos{X: 1, Y: 1}, pip: sim.Pos{X: 3, Y: 1}, action: "east", want: true},
		{name: "walking onto a source nobody is beside", rule: "forbid step object=source near=anyone", at: sim.Pos{X: 1, Y: 1}, pip: sim.Pos{X: 0, Y: 2}, action: "east", want: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := tinyFrame()
			f.Agents[0].Pos, f.Agents[0].Goods = tc.at, 1
			f.Agents[2].Pos = tc.pip
			tr := f.Preview(0, tc.at, mustAction(t, tc.action))
			if got, _ := sim.Judge(f, norms.MustParse(tc.rule), tr, sim.Hist{}); got != tc.want {
				t.Errorf("%q: %s at %v with the child at %v: violation %v, want %v", tc.rule, tc.action, tc.at, tc.pip, got, tc.want)
			}
		})
	}
}

// TestFollowsQualifier judges follows=W over a few rounds: the child's
// latest act changes between the newcomer's actions, and the newcomer's
// act is a violation when someone else did the same act in the latest
// round or in the one before.
func TestFollowsQualifier(t *testing.T) {
	type round struct {
		pip    string // the child's latest action ("" for none yet; "!pick" for one that did nothing)
		action string // the newcomer's
	}
	tests := []struct {
		name   string
		rule   string
		at     sim.Pos
		pipAt  sim.Pos
		rounds []round
		want   string // one letter a round: v violation, . none
	}{
		{name: "take right after someone took", rule: "forbid pick follows=anyone", at: sim.Pos{X: 2, Y: 1}, pipAt: sim.Pos{X: 3, Y: 1},
			rounds: []round{{"pick", "pick"}}, want: "v"},
		{name: "a take that did nothing does not count", rule: "forbid pick follows=anyone", at: sim.Pos{X: 2, Y: 1}, pipAt: sim.Pos{X: 3, Y: 1},
			rounds: []round{{"!pick", "pick"}}, want: "."},
		{name: "someone else's other act", rule: "forbid pick follows=anyone", at: sim.Pos{X: 2, Y: 1}, pipAt: sim.Pos{X: 3, Y: 1},
			rounds: []round{{"bow", "pick"}}, want: "."},
		{name: "the round before still counts", rule: "forbid pick follows=anyone", at: sim.Pos{X: 2, Y: 1}, pipAt: sim.Pos{X: 3, Y: 1},
			rounds: []round{{"pick", "wait"}, {"wait", "pick"}}, want: ".v"},
		{name: "two rounds later it is your turn", rule: "forbid pick follows=anyone", at: sim.Pos{X: 2, Y: 1}, pipAt: sim.Pos{X: 3, Y: 1},
			rounds: []round{{"pick", "wait"}, {"wait", "wait"}, {"wait", "pick"}}, want: "..."},
		{name: "the role named", rule: "forbid pick follows=elder", at: sim.Pos{X: 2, Y: 1}, pipAt: sim.Pos{X: 3, Y: 1},
			rounds: []round{{"pick", "pick"}}, want: "."},
		{name: "use the well right after someone used it", rule: "forbid use object=well follows=anyone", at: sim.Pos{X: 3, Y: 2}, pipAt: sim.Pos{X: 3, Y: 2},
			rounds: []round{{"use", "use"}}, want: "v"},
		{name: "use the well right after someone rang the bell", rule: "forbid use object=well follows=anyone", at: sim.Pos{X: 3, Y: 2}, pipAt: sim.Pos{X: 2, Y: 2},
			rounds: []round{{"use", "use"}}, want: "."},
		{name: "use anything after any use", rule: "forbid use follows=anyone", at: sim.Pos{X: 3, Y: 2}, pipAt: sim.Pos{X: 2, Y: 2},
			rounds: []round{{"use", "use"}}, want: "v"},
		{name: "handle: a drop after a pick", rule: "forbid handle follows=anyone", at: sim.Pos{X: 0, Y: 1}, pipAt: sim.Pos{X: 3, Y: 1},
			rounds: []round{{"pick", "drop"}}, want: "v"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := norms.MustParse(tc.rule)
			f := tinyFrame()
			f.Agents[0].Pos, f.Agents[0].Goods = tc.at, 2
			f.Agents[2].Pos = tc.pipAt
			var h sim.Hist
			got := ""
			for _, rd := range tc.rounds {
				pip := &f.Agents[2]
				pip.LastAction, pip.Failed = rd.pip, false
				if rd.pip != "" && rd.pip[0] == '!' {
					pip.LastAction, pip.Failed = rd.pip[1:], true
				}
				tr := f.Preview(0, f.Agents[0].Pos, mustAction(t, rd.action))
				v, next := sim.Judge(f, r, tr, h)
				h = next
				got += map[bool]string{true: "v", false: "."}[v]
				f.Apply(tr)
			}
			if got != tc.want {
				t.Errorf("%q: violations %q, want %q", tc.rule, got, tc.want)
			}
		})
	}
}
