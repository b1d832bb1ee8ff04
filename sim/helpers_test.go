package sim_test

import (
	"encoding/json"
	"testing"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/agents"
)

func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("json.Marshal: %v", err)
	}
	return b
}

// newPolicy returns the baseline called name for visit id.
func newPolicy(t testing.TB, name, id string) agents.Policy {
	t.Helper()
	if name == agents.Oracle {
		v, err := sim.ParseVisitID(id)
		if err != nil {
			t.Fatal(err)
		}
		var n *norms.Norm
		if v.Norm != norms.NoNorm {
			nn, err := norms.Default().Lookup(v.Norm)
			if err != nil {
				t.Fatal(err)
			}
			n = &nn
		}
		return agents.NewOracle(n)
	}
	p, err := agents.New(name)
	if err != nil {
		t.Fatalf("agents.New(%q): %v", name, err)
	}
	return p
}

// replay plays actions on a fresh env for id and returns it with every
// observation it gave as JSON: after reset, then after each action.
func replay(t *testing.T, id string, actions []sim.Action) (*sim.Visit, [][]byte) {
	t.Helper()
	env, obs, err := sim.NewVisit(id)
	if err != nil {
		t.Fatal(err)
	}
	seen := [][]byte{mustJSON(t, obs)}
	for k, a := range actions {
		res, err := env.Step(a)
		if err != nil {
			t.Fatalf("replay step %d (%q): %v", k+1, a, err)
		}
		seen = append(seen, mustJSON(t, res.Observation))
	}
	return env, seen
}

// cheb is the Chebyshev distance: tiles apart, counting diagonals.
func cheb(a, b sim.Pos) int { return max(abs(a.X-b.X), abs(a.Y-b.Y)) }

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
