package cli

import (
	"context"

	"github.com/normgym/normgym/norms"
)

// openEngine returns the native core or the sim.wasm engine; for the
// visits of a private catalog (cat not nil) always the native core, with
// that catalog, since the module embeds the public catalog only.
func openEngine(ctx context.Context, native, interpreter bool, cat *norms.Catalog) (engine, error) {
	if native || cat != nil {
		return nativeEngine{cat: cat}, nil
	}
	return openWasm(ctx, interpreter)
}
