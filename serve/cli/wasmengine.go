package cli

import (
	"context"
	"errors"
)

// openWasm opens the embedded sim.wasm under wazero.
func openWasm(ctx context.Context, interpreter bool) (engine, error) {
	return nil, errors.New("the wasm engine is not wired in yet: use --native")
}
