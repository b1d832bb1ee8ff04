package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/wasm/host"
	"github.com/normgym/normgym/wasm/simwasm"
)

// wasmEngine runs the embedded sim.wasm under wazero.
type wasmEngine struct{ rt *host.Runtime }

// openWasm compiles the embedded sim.wasm, with a compilation cache in the
// user cache directory when there is one (compiling takes ~1.5 s; loading
// from the cache well under 100 ms).
func openWasm(ctx context.Context, interpreter bool) (engine, error) {
	// Baseline runs and replays of local files are trusted batch work: no
	// per-loop context checks (about 3x faster).
	opts := host.Options{Interpreter: interpreter, Uninterruptible: true}
	if dir, err := os.UserCacheDir(); err == nil && !interpreter {
		opts.CacheDir = filepath.Join(dir, "normgym", "wazero")
		if err := os.MkdirAll(opts.CacheDir, 0o755); err != nil {
			opts.CacheDir = ""
		}
	}
	if err := simwasm.Err(); err != nil {
		return nil, fmt.Errorf("%w (or pass --native to use the Go core)", err)
	}
	rt, err := host.New(ctx, simwasm.Bytes(), opts)
	if err != nil {
		return nil, err
	}
	return &wasmEngine{rt: rt}, nil
}

func (w *wasmEngine) RunBaseline(ctx context.Context, visit, agent string) (sim.Record, error) {
	return w.rt.RunBaseline(ctx, visit, agent)
}

func (w *wasmEngine) Replay(ctx context.Context, rec sim.Record) (sim.Record, []string, error) {
	res, err := w.rt.Replay(ctx, rec)
	return res.Record, res.Diffs, err
}

func (w *wasmEngine) SHA256() string { return w.rt.SHA256() }

func (w *wasmEngine) NewEnv() sim.Env { return w.rt.NewEnv() }

func (w *wasmEngine) Close() error { return w.rt.Close(context.Background()) }
