package sim_test

import (
	"slices"
	"testing"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/sim"
)

// ruleSetRules are the rules TestRuleSetMatchesJudge judges: the
// grammar's one-feature rules and the catalog's.
func ruleSetRules() []norms.Rule {
	rules := norms.OneFeatureRules()
	for _, n := range norms.Default().Norms() {
		rules = append(rules, n.Rules()...)
	}
	return rules
}

// brokenBy returns the rules of rules that tr breaks for an actor whose
// histories are hs, by Judge, and moves hs on.
func brokenBy(f *sim.Frame, rules []norms.Rule, tr sim.Transition, hs []sim.Hist) []int32 {
	var out []int32
	for k, r := range rules {
		var v bool
		v, hs[k] = sim.Judge(f, r, tr, hs[k])
		if v {
			out = append(out, int32(k))
		}
	}
	return out
}

// TestRuleSetMatchesJudge holds Judging.Step to Judge, rule by rule: on
// every agent's every action from the start of some frames (each from the
// zero history), and along whole days of a newcomer that walks, takes,
// bows, washes, rings and gives, its histories carried from step to step.
func TestRuleSetMatchesJudge(t *testing.T) {
	rules := ruleSetRules()
	set := sim.NewRuleSet(rules)
	if got, want := set.Len(), len(rules); got != want {
		t.Fatalf("Len = %d, want %d", got, want)
	}
	checked := 0
	check := func(where string, f *sim.Frame, tr sim.Transition, j *sim.Judging, hs []sim.Hist) {
		t.Helper()
		got := slices.Clone(j.Step(f, &tr))
		slices.Sort(got)
		want := brokenBy(f, rules, tr, hs)
		if !slices.Equal(got, want) {
			t.Fatalf("%s doing %v: Judging breaks %v, Judge %v", where, tr.Action, got, want)
		}
		for k := range rules {
			if j.Hist(k) != hs[k] {
				t.Fatalf("%s doing %v: under %q Judging's history %+v, Judge's %+v", where, tr.Action, rules[k].String(), j.Hist(k), hs[k])
			}
		}
		checked++
	}
	for _, id := range []string{"orchard/place.color=red/observe/s100", "harbor/social.greet=elder/observe/s7", "market/gift.bow=after/peers/s3"} {
		e, _, err := sim.NewVisit(id)
		if err != nil {
			t.Fatal(err)
		}
		walker, walked := set.NewJudging(), make([]sim.Hist, len(rules))
		for step := 0; !e.Over(); step++ {
			f := e.Frame()
			if step%25 == 0 {
				actions := []sim.Action{{Verb: sim.Give, Target: f.Agents[1].ID}}
				for _, v := range sim.ActionVerbs() {
					actions = append(actions, sim.Action{Verb: v})
				}
				for i := range f.Agents {
					for _, a := range actions {
						check(id, f, f.Preview(i, f.Agents[i].Pos, a), set.NewJudging(), make([]sim.Hist, len(rules)))
					}
				}
			}
			a := newcomerAction(f, step)
			check(id, f, f.Preview(0, f.Agents[0].Pos, a), walker, walked)
			res, err := e.Step(a)
			if err != nil {
				t.Fatal(err)
			}
			if res.DayOver {
				walker, walked = set.NewJudging(), make([]sim.Hist, len(rules))
			}
		}
	}
	t.Logf("%d transitions compared under %d rules", checked, len(rules))
}

// newcomerAction is a newcomer that does the errand's first steps but
// also bows, uses what it stands on and gives now and then.
func newcomerAction(f *sim.Frame, step int) sim.Action {
	switch step % 11 {
	case 3:
		return sim.Action{Verb: sim.Bow}
	case 6:
		return sim.Action{Verb: sim.Use}
	case 9:
		return sim.Action{Verb: sim.Give, Target: f.Agents[1+step%(len(f.Agents)-1)].ID}
	}
	goal := sim.Goal{Verb: sim.Pick, Object: "source"}
	if step%40 > 20 {
		goal = sim.Goal{Verb: sim.Drop, Object: "basket"}
	}
	a, _, _ := sim.Plan(f, 0, goal, nil, nil)
	return a
}
