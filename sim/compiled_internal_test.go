package sim

import (
	"math/rand/v2"
	"testing"

	"github.com/normgym/normgym/norms"
)

// randomRule draws a rule over the grammar's words and some it does not
// know (verbs, keys, values), including the shapes Parse refuses: the
// compiled rules must agree with judgeRule on any rule a caller hands the
// planner.
func randomRule(rng *rand.Rand) norms.Rule {
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	values := append(append(append(append(append(norms.Colors(), norms.Phases()...), norms.Dirs()...), norms.Objects()...), norms.Roles()...),
		"anyone", "grass", "sand", "stone", "floor", "path", "water", "market", "garden", "plaza", "0", "1", "2", "x", "")
	quals := func() []norms.Qual {
		var qs []norms.Qual
		for range rng.IntN(3) {
			qs = append(qs, norms.Qual{Key: pick("phase", "dir", "terrain", "zone", "color", "object", "role", "hat", "over", "near", "follows", "bogus"), Value: pick(values...)})
		}
		return qs
	}
	verbs := []string{"step", "enter", "pick", "drop", "litter", "carry", "pass", "bow", "use", "meet", "give", "handle", "dance", ""}
	r := norms.Rule{
		Deontic: norms.Deontic(pick("forbid", "require", "allow")),
		When:    pick("before", "after", ""),
		Event:   norms.Event{Verb: pick(verbs...), Quals: quals(), Except: quals()},
		Act:     norms.Event{Verb: pick(verbs...), Quals: quals()},
	}
	return r
}

// TestCompiledRuleMatchesJudge judges every transition from every tile of
// some frames (every agent, every action, possible or not) under the
// catalog's rules and random ones, with every history, by judgeRule and
// by the compiled rule; and checks that a rule inert for a plan step
// never breaks or changes the history on one.
func TestCompiledRuleMatchesJudge(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var rules []norms.Rule
	for _, n := range norms.Default().Norms() {
		rules = append(rules, n.Rules()...)
	}
	for range 150 {
		rules = append(rules, randomRule(rng))
	}
	compiled := compileRules(rules)
	var hists []Hist
	for b := range 8 {
		hists = append(hists, Hist{Since: b&1 != 0, Owe: b&2 != 0, Near: b&4 != 0})
	}
	checked := 0
	for _, id := range []string{"orchard/place.color=red/observe/s100", "market/resource.carry=1/peers/s18", "harbor/social.greet=elder/observe/s7"} {
		e, _, err := NewVisit(id)
		if err != nil {
			t.Fatal(err)
		}
		for step := 0; step < 30 && !e.Over(); step++ {
			f := e.frame
			if step%10 == 0 {
				var actions []Action
				for _, v := range ActionVerbs() {
					actions = append(actions, Action{Verb: v})
				}
				for _, a := range f.Agents {
					actions = append(actions, Action{Verb: Give, Target: a.ID})
				}
				for i := range f.Agents {
					for c := range f.Tiles {
						p := Pos{c % f.Width, c / f.Width}
						for _, a := range actions {
							tr := f.Preview(i, p, a)
							kind := -1
							if tr.OK && a.Target == "" {
								switch {
								case a.IsMove():
									kind = stepMove
								case a.Verb == Bow:
									kind = stepBow
								case a.Verb == Use:
									kind = stepUse
								}
							}
							for k := range rules {
								for _, h := range hists {
									v1, h1 := judgeRule(f, &rules[k], &tr, h)
									v2, h2 := compiled[k].judge(f, &tr, h)
									if v1 != v2 || h1 != h2 {
										t.Fatalf("%s step %d: agent %d at %v doing %v, rule %+v, history %+v: judgeRule %v %+v, compiled %v %+v",
											id, step, i, p, a, rules[k], h, v1, h1, v2, h2)
									}
									if b1, b2 := bowCalledFor(&rules[k], h), compiled[k].bowCalledFor(h); b1 != b2 {
										t.Fatalf("rule %+v, history %+v: bowCalledFor %v, compiled %v", rules[k], h, b1, b2)
									}
									if kind >= 0 && compiled[k].inert(kind) && (v1 || h1 != h) {
										t.Fatalf("%s: agent %d at %v doing %v: rule %+v is inert for it but judges %v %+v from %+v",
											id, i, p, a, rules[k], v1, h1, h)
									}
									checked++
								}
							}
						}
					}
				}
			}
			a, _, _ := Plan(f, 0, Goal{Verb: Pick, Object: "source"}, nil, nil)
			if _, err := e.Step(a); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Logf("%d judgements compared", checked)
}
