package sim_test

import (
	"testing"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/simtest"
)

// checkCase is a visit and the baseline that drives it.
type checkCase struct{ id, policy string }

// checkCases lists the visits TestCheckEnv plays: every world × every norm
// with greedy and with random (the condition rotating), two control
// visits per world with each, the learners and the oracle on a norm of
// every family, and every sixth visit of the transfer and hard suites.
// Under -short it keeps every seventh.
func checkCases(t *testing.T) []checkCase {
	learning := []string{sim.Observe, sim.Peers, sim.Solo, sim.Told}
	var out []checkCase
	add := func(id, policy string) { out = append(out, checkCase{id, policy}) }
	for wi, w := range sim.WorldNames() {
		for ni, n := range norms.Default().Norms() {
			seed := 40 + 100*wi + ni
			add(sim.VisitID{World: w, Norm: n.ID, Condition: learning[(wi+ni)%4], Seed: uint64(seed)}.String(), "greedy")
			add(sim.VisitID{World: w, Norm: n.ID, Condition: learning[(wi+ni+1)%4], Seed: uint64(seed)}.String(), "random")
		}
		for s := 0; s < 2; s++ {
			id := sim.VisitID{World: w, Norm: norms.NoNorm, Condition: sim.Control, Seed: uint64(7 + s)}.String()
			add(id, "greedy")
			add(id, "random")
		}
	}
	worlds := sim.WorldNames()
	for fi, fam := range norms.Default().Families() {
		n := norms.Default().Family(fam)[0]
		for pi, policy := range []string{"oracle", "observer", "self"} {
			add(sim.VisitID{World: worlds[(fi+pi)%len(worlds)], Norm: n.ID, Condition: learning[(fi+pi)%4], Seed: uint64(900 + fi)}.String(), policy)
		}
	}
	for _, suite := range []string{"transfer", "hard"} {
		s, err := sim.LookupSuite(suite)
		if err != nil {
			t.Fatal(err)
		}
		for k := 0; k < len(s.Visits); k += 6 {
			add(s.Visits[k], []string{"greedy", "random", "observer"}[(k/6)%3])
		}
	}
	if testing.Short() {
		var keep []checkCase
		for k, c := range out {
			if k%7 == 0 {
				keep = append(keep, c)
			}
		}
		out = keep
	}
	return out
}

// TestCheckEnv runs the environment checker (simtest.CheckEnv) over the
// check cases.
func TestCheckEnv(t *testing.T) {
	for _, c := range checkCases(t) {
		t.Run(c.policy+"/"+c.id, func(t *testing.T) {
			t.Parallel()
			simtest.CheckEnv(t, new(sim.Native), c.id, newPolicy(t, c.policy, c.id))
		})
	}
}
