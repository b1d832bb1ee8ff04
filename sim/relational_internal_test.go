package sim

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/normgym/normgym/norms"
)

// TestMembersKeepRelationalNorms plays the harder tier's relational and
// turn-taking norms (families beside and turn) with a newcomer who only
// waits: careful members (peers) never break them, and careless ones
// (observe) break them and are sanctioned for it, so that they can be
// learnt by watching.
func TestMembersKeepRelationalNorms(t *testing.T) {
	for _, fam := range []string{"beside", "turn"} {
		ns := norms.Default().Family(fam)
		if len(ns) < 3 {
			t.Fatalf("family %s has %d norms, want at least 3", fam, len(ns))
		}
		for _, n := range ns {
			t.Run(n.ID, func(t *testing.T) {
				broken, sanctioned := 0, 0
				for k, w := range Worlds() {
					for _, cond := range []string{Peers, Observe} {
						id := VisitID{World: w.Name, Norm: n.ID, Condition: cond, Seed: uint64(700 + k)}
						e, _, err := NewVisit(id.String())
						if err != nil {
							t.Fatal(err)
						}
						for !e.Over() {
							if _, err := e.Step(Action{Verb: Wait}); err != nil {
								t.Fatal(err)
							}
						}
						b, s := memberViolations(e)
						if cond == Peers && b > 0 {
							t.Errorf("%s: careful members broke the norm %d times", id, b)
						}
						if cond == Observe {
							broken, sanctioned = broken+b, sanctioned+s
						}
					}
				}
				t.Logf("under observe, members broke %s %d times and were sanctioned %d times", n.ID, broken, sanctioned)
				if sanctioned == 0 {
					t.Errorf("no member was sanctioned for breaking %s under observe: nothing to learn by watching", n.ID)
				}
			})
		}
	}
}

// memberViolations counts the members' violations of a visit and the
// sanctions members received.
func memberViolations(e *Visit) (broken, sanctioned int) {
	for _, v := range e.viol {
		if v.agent > 0 {
			broken++
		}
	}
	for _, ev := range e.all {
		if ev.Kind == "sanction" && ev.To != NewcomerID {
			sanctioned++
		}
	}
	return broken, sanctioned
}

// TestMembersBreakRelationalParts plays, as norms of their own, the parts
// of the harder tier's relational and turn-taking norms that say near= or
// follows=: careless members break each under observe and are sanctioned
// for it (a sanction is an event every watcher sees), so the part itself,
// not only the rule beside it in a compound, can be learnt by watching.
func TestMembersBreakRelationalParts(t *testing.T) {
	var parts []string
	for _, fam := range []string{"beside", "turn"} {
		for _, n := range norms.Default().Family(fam) {
			for _, r := range n.Rules() {
				_, near := r.Event.Value("near")
				_, follows := r.Event.Value("follows")
				if (near || follows) && !contains(parts, r.String()) {
					parts = append(parts, r.String())
				}
			}
		}
	}
	cat := partsCatalog(t, parts)
	for k, rule := range parts {
		id := fmt.Sprintf("parts.rule=p%d", k)
		sanctioned := 0
		for s, w := range Worlds() {
			vid := VisitID{World: w.Name, Norm: id, Condition: Observe, Seed: uint64(800 + s)}
			e, _, err := NewVisitIn(cat, vid.String())
			if err != nil {
				t.Fatal(err)
			}
			for !e.Over() {
				if _, err := e.Step(Action{Verb: Wait}); err != nil {
					t.Fatal(err)
				}
			}
			_, n := memberViolations(e)
			sanctioned += n
		}
		t.Logf("%q: members sanctioned %d times over %d visits", rule, sanctioned, len(Worlds()))
		if sanctioned == 0 {
			t.Errorf("no member was sanctioned for breaking %q under observe", rule)
		}
	}
}

// partsCatalog is a catalog of a tier-2 family "parts", whose norms p0,
// p1, ... have the rules given (at least three: a family is several
// norms), and of a family "other" that a probe's options need beside it.
func partsCatalog(t *testing.T, rules []string) *norms.Catalog {
	t.Helper()
	type tmpl struct {
		Key        string            `json:"key"`
		Values     []string          `json:"values"`
		Rules      map[string]string `json:"rules"`
		Statements map[string]string `json:"statements"`
		Tag        string            `json:"tag"`
	}
	tm := tmpl{Key: "rule", Rules: map[string]string{}, Statements: map[string]string{}, Tag: "counterintuitive"}
	for k, r := range rules {
		v := fmt.Sprintf("p%d", k)
		tm.Values = append(tm.Values, v)
		tm.Rules[v], tm.Statements[v] = r, "Part "+v+"."
	}
	other := tmpl{Key: "color", Values: norms.Colors()[:3], Tag: "counterintuitive",
		Rules: map[string]string{}, Statements: map[string]string{}}
	for _, c := range other.Values {
		other.Rules[c], other.Statements[c] = "forbid step color="+c, "Keep off "+c+"."
	}
	files := map[string][]byte{}
	for _, fam := range []struct {
		name string
		t    tmpl
	}{{"parts", tm}, {"other", other}} {
		data, err := json.Marshal(map[string]any{"family": fam.name, "tier": 2, "norms": []tmpl{fam.t}})
		if err != nil {
			t.Fatal(err)
		}
		files[fam.name+".json"] = data
	}
	cat, err := norms.LoadFiles(files)
	if err != nil {
		t.Fatal(err)
	}
	return cat
}
