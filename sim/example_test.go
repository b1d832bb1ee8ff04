package sim_test

import (
	"fmt"
	"strings"

	"github.com/normgym/normgym/sim"
)

// A visit starts from its id; the newcomer acts with Step. The text form
// of each observation is the prompt a language model gets.
func ExampleNewEnv() {
	env, obs, err := sim.NewEnv("orchard/place.color=blue/observe/s17")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(strings.SplitN(obs.Text(), "\n", 2)[0])
	fmt.Println(obs.Task.Text)

	a, err := sim.ParseAction("N")
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := env.Step(a)
	if err != nil {
		fmt.Println(err)
		return
	}
	me := res.Observation.Frame.Agents[0]
	fmt.Println(strings.SplitN(res.Observation.Text(), "\n", 2)[0])
	fmt.Printf("%s moved to x=%d y=%d; done: %v\n", me.ID, me.Pos.X, me.Pos.Y, res.Done())
	// Output:
	// Day 1 of 2 (practice day) · step 0 of 60 · phase: noon
	// Bring 1 apple to the basket.
	// Day 1 of 2 (practice day) · step 1 of 60 · phase: evening
	// newcomer moved to x=2 y=9; done: false
}

func ExampleParseVisitID() {
	v, err := sim.ParseVisitID("orchard/place.color=blue/observe/s17")
	fmt.Println(v.World, v.Norm, v.Condition, v.Seed, err)
	_, err = sim.ParseVisitID("orchard/place.color=blue/observe/s017")
	fmt.Println(err)
	// Output:
	// orchard place.color=blue observe 17 <nil>
	// sim: bad visit id "orchard/place.color=blue/observe/s017": the seed must read sN with no leading zeros, as in s17
}
