package sim_test

import (
	"encoding/json"
	"testing"

	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/agents"
)

// benchVisits are the visits the benchmarks play: one per family, world
// and condition varying, and a control visit.
var benchVisits = []string{
	"orchard/place.color=blue/observe/s17",
	"market/resource.carry=1/peers/s18",
	"park/time.rest=noon/solo/s19",
	"harbor/order.bow=market/told/s20",
	"library/social.greet=elder/observe/s21",
	"orchard/direction.path=east/peers/s22",
	"market/disposal.at=bin/observe/s23",
	"park/none/control/s24",
}

// greedyRuns returns greedy's actions and every observation it saw on
// each bench visit.
func greedyRuns(b *testing.B) (actions [][]sim.Action, obs []*sim.Observation) {
	b.Helper()
	for _, id := range benchVisits {
		p, err := agents.New("greedy")
		if err != nil {
			b.Fatal(err)
		}
		env, o, err := sim.NewVisit(id)
		if err != nil {
			b.Fatal(err)
		}
		obs = append(obs, o)
		var as []sim.Action
		for !env.Over() {
			a := p.Act(o)
			res, err := env.Step(a)
			if err != nil {
				b.Fatal(err)
			}
			as = append(as, a)
			o = res.Observation
			obs = append(obs, o)
		}
		actions = append(actions, as)
	}
	return actions, obs
}

// BenchmarkEnvStep times Env.Step alone, members included, on greedy's
// actions; starting a new visit is not timed.
func BenchmarkEnvStep(b *testing.B) {
	actions, _ := greedyRuns(b)
	var env *sim.Visit
	v, k := -1, 0
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if env == nil || k == len(actions[v]) {
			b.StopTimer()
			v, k = (v+1)%len(actions), 0
			var err error
			if env, _, err = sim.NewVisit(benchVisits[v]); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
		if _, err := env.Step(actions[v][k]); err != nil {
			b.Fatal(err)
		}
		k++
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/step")
}

// BenchmarkNewEnv times a reset: parsing the id, drawing the layout and
// the routines.
func BenchmarkNewEnv(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, _, err := sim.NewVisit(benchVisits[i%len(benchVisits)]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkObservationText times the text form of one observation (per step).
func BenchmarkObservationText(b *testing.B) {
	_, obs := greedyRuns(b)
	b.ReportAllocs()
	b.ResetTimer()
	n := 0
	for i := 0; i < b.N; i++ {
		n += len(obs[i%len(obs)].Text())
	}
	b.SetBytes(int64(n / b.N))
}

// BenchmarkObservationJSON times json.Marshal of one observation (per step).
func BenchmarkObservationJSON(b *testing.B) {
	_, obs := greedyRuns(b)
	b.ReportAllocs()
	b.ResetTimer()
	n := 0
	for i := 0; i < b.N; i++ {
		js, err := json.Marshal(obs[i%len(obs)])
		if err != nil {
			b.Fatal(err)
		}
		n += len(js)
	}
	b.SetBytes(int64(n / b.N))
}
