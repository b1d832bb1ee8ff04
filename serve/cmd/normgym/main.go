// Command normgym is NormGym's command-line tool: it lists the catalog and
// suites, runs baselines through the sim.wasm module (or the native core),
// replays and reports results, and lets a person play a visit in the
// terminal. Run "normgym help" for the commands.
package main

import (
	"context"
	"os"
	"os/signal"

	"github.com/normgym/normgym/serve/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := cli.Main(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
