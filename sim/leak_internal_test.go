package sim

import (
	"reflect"
	"testing"

	"github.com/normgym/normgym/norms"
)

// hidden is a visit's state that observations do not show, per day.
type hidden struct {
	Layout  layout // with the members' stations and the phase offset
	Members []member
	Task    Task
	Limit   int
}

func hiddenState(t *testing.T, id string) []hidden {
	t.Helper()
	e, _, err := NewVisit(id)
	if err != nil {
		t.Fatal(err)
	}
	var out []hidden
	for day := 0; day < Days; day++ {
		if day > 0 {
			e.startDay(day)
		}
		h := hidden{Layout: e.lay, Task: e.task, Limit: e.limit}
		for _, m := range e.members {
			h.Members = append(h.Members, *m)
		}
		out = append(out, h)
	}
	return out
}

// TestHiddenStateIgnoresTheNorm looks behind the observations: a visit's
// layouts and its members' routines are the same whatever the norm, and
// the same under observe, solo, told and control (peers differs only in
// that nobody is careless). The black-box no-leak test (leak_test.go)
// stops comparing once members act differently, which routines drawn from
// the norm would make happen at once.
func TestHiddenStateIgnoresTheNorm(t *testing.T) {
	cat := norms.Default()
	for fi, fam := range cat.Families() {
		ns := cat.Family(fam)
		for ci, c := range []string{Observe, Peers, Solo, Told} {
			a, b := ns[ci%len(ns)], ns[(ci+1)%len(ns)]
			w := worlds[(fi+ci)%len(worlds)].Name
			seed := 900 + 10*fi + ci
			id := VisitID{World: w, Norm: a.ID, Condition: c, Seed: uint64(seed)}.String()
			t.Run(id, func(t *testing.T) {
				want := hiddenState(t, id)
				others := []VisitID{{World: w, Norm: b.ID, Condition: c, Seed: uint64(seed)}}
				if c != Peers {
					for _, oc := range []string{Observe, Solo, Told} {
						if oc != c {
							others = append(others, VisitID{World: w, Norm: a.ID, Condition: oc, Seed: uint64(seed)})
						}
					}
					others = append(others, VisitID{World: w, Norm: norms.NoNorm, Condition: Control, Seed: uint64(seed)})
				}
				for _, o := range others {
					if got := hiddenState(t, o.String()); !reflect.DeepEqual(got, want) {
						t.Errorf("the hidden state of %s differs from %s's", o, id)
					}
				}
			})
		}
	}
}
