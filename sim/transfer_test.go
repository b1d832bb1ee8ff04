package sim_test

import (
	"strings"
	"testing"

	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/agents"
)

func TestTransferVisitIDs(t *testing.T) {
	checkVisitIDs(t, []visitIDCase{
		{"orchard>harbor/place.color=blue/observe/s3", ""},
		{"library>park/none/control/s0", ""},
		{"orchard>orchard/place.color=blue/observe/s3", "two different worlds"},
		{"orchard>moon/place.color=blue/observe/s3", `unknown world "moon"`},
		{"orchard>harbor>park/place.color=blue/observe/s3", "unknown world"},
		{">harbor/place.color=blue/observe/s3", `unknown world ""`},
	})
}

// The test day of a transfer visit happens in its second world, with the
// same norm; the whole visit stays deterministic.
func TestTransferTestDayWorld(t *testing.T) {
	const id = "market>harbor/resource.carry=1/observe/s21"
	run := func() (*sim.Visit, []string) {
		env, obs, err := sim.NewVisit(id)
		if err != nil {
			t.Fatal(err)
		}
		worlds := []string{obs.World}
		p := agents.NewOracle(env.Norm())
		for !env.Over() {
			res, err := env.Step(p.Act(obs))
			if err != nil {
				t.Fatal(err)
			}
			obs = res.Observation
			if res.DayOver && !env.Over() {
				worlds = append(worlds, obs.World)
			}
		}
		return env, worlds
	}
	a, worlds := run()
	if got, want := strings.Join(worlds, ","), "market,harbor"; got != want {
		t.Errorf("worlds by day = %s, want %s", got, want)
	}
	if a.Norm() == nil || a.Norm().ID != "resource.carry=1" {
		t.Errorf("norm = %v, want resource.carry=1 on both days", a.Norm())
	}
	b, _ := run()
	if a.Hash() != b.Hash() {
		t.Errorf("two runs of a transfer visit hash differently")
	}
}
