package sim_test

import (
	"fmt"
	"strings"

	"github.com/normgym/normgym/sim"
)

// A visit starts from its id; the newcomer acts with Step. The text form
// of each observation is the prompt a language model gets.
func ExampleNewVisit() {
	env, obs, err := sim.NewVisit("orchard/place.color=blue/observe/s17")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(strings.SplitN(obs.View(), "\n", 2)[0])
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
	fmt.Print(res.Observation.Recap())
	fmt.Printf("%s moved to x=%d y=%d; done: %v\n", me.ID, me.Pos.X, me.Pos.Y, res.Done())
	// Output:
	// Now: day 1 of 2 (practice day) · step 0 of 60 · phase: evening
	// Pick 3 apples: put one in the basket and give one each to two different members; then get rid of your litter (the core).
	// Step 1, evening. you north to 10,10 (floor); mara east to 4,0 (path, well); fern south to 12,2 (path, blue source); pip drop at 10,9 (path); olek wait;
	// newcomer moved to x=10 y=10; done: false
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
