package sim_test

import (
	"bytes"
	"fmt"
	"sync"
	"testing"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/simtest"
)

// No leak (DESIGN.md): no field of an observation is computed from the
// norm, except the statement under told. With one seed, two norms of a
// family give identical observations until some agent's behaviour differs.

// TestObservationHidesTheNorm checks the first observation of every norm
// under every condition against every norm of the catalog
// (simtest.CheckObservation).
func TestObservationHidesTheNorm(t *testing.T) {
	worlds := sim.WorldNames()
	for ni, n := range norms.Default().Norms() {
		for ci, c := range []string{sim.Observe, sim.Peers, sim.Solo, sim.Told} {
			v := sim.VisitID{World: worlds[(ni+ci)%len(worlds)], Norm: n.ID, Condition: c, Seed: uint64(70 + ni)}
			t.Run(v.String(), func(t *testing.T) {
				_, obs, err := sim.NewVisit(v.String())
				if err != nil {
					t.Fatal(err)
				}
				if err := simtest.CheckObservation(v, obs); err != nil {
					t.Error(err)
				}
				if c == sim.Told {
					if got, want := obs.Told, n.Statement; got != want {
						t.Errorf("told = %q, want %q", got, want)
					}
				} else if obs.Told != "" {
					t.Errorf("told = %q under %s, want none", obs.Told, c)
				}
			})
		}
	}
}

// stripped returns o without what may legitimately differ between norms
// while every agent acts alike: sanction events (a member's reaction) and
// events and the recap of an earlier day.
func stripped(o *sim.Observation) *sim.Observation {
	c := *o
	c.DayEnd = ""
	c.Events = []sim.Event{}
	for _, ev := range o.Events {
		if ev.Kind != "sanction" && ev.Day == o.Day {
			c.Events = append(c.Events, ev)
		}
	}
	return &c
}

func sameLastActions(a, b *sim.Observation) bool {
	if len(a.Frame.Agents) != len(b.Frame.Agents) {
		return false
	}
	for k := range a.Frame.Agents {
		if a.Frame.Agents[k].LastAction != b.Frame.Agents[k].LastAction {
			return false
		}
	}
	return true
}

// leakPair plays visits a and b (two norms, one world, condition and
// seed) with the same newcomer actions, greedy's on a. While every agent's
// actions agree since the day began, the observations must be identical
// apart from sanctions. It returns how many steps were compared of how
// many were played.
func leakPair(t *testing.T, cat *norms.Catalog, a, b sim.VisitID) (compared, played int) {
	t.Helper()
	envA, oa, err := sim.NewVisitIn(cat, a.String())
	if err != nil {
		t.Fatal(err)
	}
	envB, ob, err := sim.NewVisitIn(cat, b.String())
	if err != nil {
		t.Fatal(err)
	}
	if ja, jb := mustJSON(t, oa), mustJSON(t, ob); !bytes.Equal(ja, jb) {
		t.Fatalf("reset observations differ as JSON:\n%s\n%s", ja, jb)
	}
	if ta, tb := oa.Text(), ob.Text(); ta != tb {
		t.Fatalf("reset observations differ as text:\n%s\n%s", ta, tb)
	}
	p := newPolicy(t, "greedy", a.String())
	same := true
	for !envA.Over() && !envB.Over() {
		act := p.Act(oa)
		ra, err := envA.Step(act)
		if err != nil {
			t.Fatal(err)
		}
		rb, err := envB.Step(act)
		if err != nil {
			t.Fatal(err)
		}
		oa, ob = ra.Observation, rb.Observation
		played++
		for _, x := range []struct {
			v sim.VisitID
			o *sim.Observation
		}{{a, oa}, {b, ob}} {
			if err := simtest.CheckObservationIn(cat, x.v, x.o); err != nil {
				t.Fatalf("step %d: %v", played, err)
			}
		}
		if oa.Day != ob.Day || ra.Done() != rb.Done() {
			break // the days ended apart: behaviour differed
		}
		if ra.DayOver && !ra.Done() {
			same = true // a new layout, new routines
		}
		if same = same && sameLastActions(oa, ob); !same {
			continue
		}
		compared++
		sa, sb := stripped(oa), stripped(ob)
		if ja, jb := mustJSON(t, sa), mustJSON(t, sb); !bytes.Equal(ja, jb) {
			t.Fatalf("step %d: every agent acted alike, but the observations differ as JSON:\n%s\n%s", played, ja, jb)
		}
		if ta, tb := sa.Text(), sb.Text(); ta != tb {
			t.Fatalf("step %d: every agent acted alike, but the observations differ as text:\n%s\n%s", played, ta, tb)
		}
	}
	return compared, played
}

func TestNoLeak(t *testing.T) { noLeak(t, norms.Default()) }

// TestNoLeakGenerated holds a catalog of fresh norms (what norms generate
// samples from the grammar) to the same property: no leak is a property of
// the sim, not of the published list.
func TestNoLeakGenerated(t *testing.T) {
	if testing.Short() {
		t.Skip("plays pairs of visits of a generated catalog; skipped with -short")
	}
	files := map[string][]byte{}
	for i, f := range norms.FamilyFiles(norms.Candidates(7, 12, norms.Default())) {
		files[fmt.Sprintf("%02d.json", i)] = f
	}
	cat, err := norms.LoadFiles(files)
	if err != nil {
		t.Fatal(err)
	}
	noLeak(t, cat)
}

// noLeak plays pairs of visits of two norms of each family of cat, alike
// in everything else, and checks their observations agree until some
// agent's behaviour differs (leakPair).
func noLeak(t *testing.T, cat *norms.Catalog) {
	worlds := sim.WorldNames()
	conds := []string{sim.Observe, sim.Peers, sim.Solo}
	var (
		mu                 sync.Mutex
		compared, played   int
		soloPairs, pairsAt int
	)
	t.Run("pairs", func(t *testing.T) {
		for fi, fam := range cat.Families() {
			ns := cat.Family(fam)
			for rep := range 3 {
				ia := (fi + rep) % len(ns)
				ib := (ia + 1 + (fi+rep)%(len(ns)-1)) % len(ns) // never ia
				c := conds[(fi+rep)%len(conds)]
				w := worlds[(3*fi+rep)%len(worlds)]
				seed := uint64(600 + 10*fi + rep)
				a := sim.VisitID{World: w, Norm: ns[ia].ID, Condition: c, Seed: seed}
				b := sim.VisitID{World: w, Norm: ns[ib].ID, Condition: c, Seed: seed}
				t.Run(fmt.Sprintf("%s~%s", a, ns[ib].ID), func(t *testing.T) {
					t.Parallel()
					n, of := leakPair(t, cat, a, b)
					if c == sim.Solo && n != of {
						// Under solo members only wait: every step compares.
						t.Errorf("compared %d of %d steps under solo, want all", n, of)
					}
					mu.Lock()
					defer mu.Unlock()
					compared += n
					played += of
					pairsAt++
					if c == sim.Solo {
						soloPairs++
					}
				})
			}
		}
	})
	t.Logf("%d pairs (%d under solo): %d of %d steps compared", pairsAt, soloPairs, compared, played)
	if played > 0 && compared*4 < played {
		t.Errorf("only %d of %d steps compared: the test checks too little", compared, played)
	}
}
