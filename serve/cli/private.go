package cli

import (
	"fmt"
	"os"

	"github.com/normgym/normgym/serve/server"
)

// loadPrivateFile reads a private suite file (README: "A private suite"):
// what norms generate writes, serve --private-catalog serves and run,
// eval, demos and replay take with --catalog. Its errors name the file.
func loadPrivateFile(path string) (*server.PrivateSuite, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, usageError("--catalog: %v", err)
	}
	ps, err := server.LoadPrivateSuite(b)
	if err != nil {
		return nil, usageError("--catalog %s: %v", path, err)
	}
	return ps, nil
}

// catalogNote is what a command prints when --catalog moves it to the
// native core: the sim.wasm module embeds the public catalog only.
func catalogNote(native bool) string {
	if native {
		return ""
	}
	return fmt.Sprintln("normgym: --catalog runs on the native core (sim.wasm embeds the public catalog only)")
}
