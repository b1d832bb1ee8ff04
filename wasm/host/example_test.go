package host_test

import (
	"context"
	"fmt"
	"log"

	"github.com/normgym/normgym/wasm/host"
)

// A visit played from the host, one step at a time, then checked by
// replaying its record. Programs pass simwasm.Bytes() where this example
// passes the sim.wasm the tests built.
func Example() {
	ctx := context.Background()
	rt, err := host.New(ctx, wasmBytes, host.Options{CacheDir: cacheDir})
	if err != nil {
		log.Fatal(err)
	}
	defer rt.Close(ctx)

	v, obs, _, err := rt.Reset(ctx, "orchard/none/control/s1")
	if err != nil {
		log.Fatal(err)
	}
	defer v.Close(ctx)
	fmt.Println("day", obs.Day, "step", obs.Frame.Step)
	for !obs.Done {
		res, err := v.Step(ctx, "wait")
		if err != nil {
			log.Fatal(err)
		}
		obs = res.Observation
	}
	rec, err := v.Record(ctx, "example", "human")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("steps", rec.Scores.Steps, "task", rec.Scores.Task)

	rec.Hash = "forged"
	res, err := rt.Replay(ctx, rec)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("match", res.Match, "diffs", res.Diffs)
	// Output:
	// day 1 step 0
	// steps [60 150] task false
	// match false diffs [hash]
}
