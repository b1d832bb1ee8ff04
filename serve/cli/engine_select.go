package cli

import "context"

// openEngine returns the native core or the sim.wasm engine.
func openEngine(ctx context.Context, native, interpreter bool) (engine, error) {
	if native {
		return nativeEngine{}, nil
	}
	return openWasm(ctx, interpreter)
}
