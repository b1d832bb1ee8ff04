package sim

import (
	"testing"

	"github.com/normgym/normgym/norms"
)

// TestMembersKeepRelationalNorms plays the harder tier's relational and
// turn-taking norms (families beside and turn) with a newcomer who only
// waits: careful members (peers) never break them, and careless ones
// (observe) break them where the newcomer can see and are sanctioned for
// it, so that they can be learnt by watching.
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
