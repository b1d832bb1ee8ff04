package sim_test

import (
	"strings"
	"testing"

	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/agents"
)

func TestVariantVisitIDs(t *testing.T) {
	checkVisitIDs(t, []visitIDCase{
		{"park/place.terrain=grass/observe+noisy/s2", ""},
		{"park/place.terrain=grass/solo+delayed/s2", ""},
		{"park>orchard/place.terrain=grass/told+noisy/s2", ""},
		{"park/place.terrain=grass/observe+loud/s2", `unknown sanction variant "loud"`},
		{"park/none/control+noisy/s2", "control visits have no sanctions"},
		{"park/place.terrain=grass/observe+/s2", "unknown sanction variant"},
	})
}

// visitIDCase is a visit id and the error ParseVisitID gives ("" for none).
type visitIDCase struct{ id, wantErr string }

// checkVisitIDs parses each id: the error must contain wantErr, or the id
// must read back unchanged through String.
func checkVisitIDs(t *testing.T, tests []visitIDCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			v, err := sim.ParseVisitID(tt.id)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseVisitID(%q) = %v, want an error containing %q", tt.id, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := v.String(); got != tt.id {
				t.Errorf("String() = %q, want %q", got, tt.id)
			}
		})
	}
}

// greedyRun plays a whole visit with the greedy baseline.
func greedyRun(t *testing.T, id string) *sim.Visit {
	t.Helper()
	env, err := agents.Play(id, "greedy")
	if err != nil {
		t.Fatal(err)
	}
	return env
}

func TestDelayedSanctionsComeTwoStepsLate(t *testing.T) {
	// Under solo the warden sees every violation: with the delay, each
	// sanction of the newcomer comes two steps after the plain visit's.
	plain := greedyRun(t, "orchard/place.color=red/solo/s5")
	late := greedyRun(t, "orchard/place.color=red/solo+delayed/s5")
	if plain.Hash() == late.Hash() {
		t.Fatal("delayed sanctions left the trajectory unchanged")
	}
	steps := func(env *sim.Visit) []int {
		var s []int
		for _, ev := range env.Events() {
			if ev.Kind == "sanction" && ev.Day == 1 {
				s = append(s, ev.Step)
			}
		}
		return s
	}
	a, b := steps(plain), steps(late)
	if len(a) == 0 {
		t.Fatal("greedy was never sanctioned on the practice day")
	}
	// Greedy ignores sanctions, so it acts the same in both visits; the
	// practice day ends at the same step, so a late sanction may be lost.
	for k := range b {
		if b[k] != a[k]+2 {
			t.Errorf("sanction %d at step %d, want %d (two after %d)", k, b[k], a[k]+2, a[k])
		}
	}
	if len(b) < len(a)-1 {
		t.Errorf("%d delayed sanctions, want at least %d", len(b), len(a)-1)
	}
}

func TestNoisySanctionsAreDeterministic(t *testing.T) {
	const id = "market/place.terrain=sand/observe+noisy/s8"
	a, b := greedyRun(t, id), greedyRun(t, id)
	if a.Hash() != b.Hash() {
		t.Errorf("the same noisy visit hashed differently: %s vs %s", a.Hash(), b.Hash())
	}
	if r := a.Record("greedy", "baseline"); r.Variant != sim.Noisy {
		t.Errorf("record variant = %q, want %q", r.Variant, sim.Noisy)
	}
}
