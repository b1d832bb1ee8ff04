package host

import (
	"context"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/sys"

	"github.com/normgym/normgym/sim/splitmix"
)

// Walltime and the start of Nanotime as the guest sees them: the module
// reads no real clock. Nanotime advances 1 µs per read so that the Go
// runtime's timers still move; wazero's own fake advances 1 ms, which makes
// the guest runtime believe time flies and doubles the cost of a visit.
const (
	fakeWalltimeSec = 1_704_067_200 // 2024-01-01T00:00:00Z
	fakeNanotimeTic = 1_000
)

// exportNames are the ABI's exports besides _initialize and memory.
var exportNames = []string{"in_ptr", "out_ptr", "info", "norms", "suites", "reset", "close",
	"step", "observe", "score", "probe", "answer", "record", "run", "replay"}

// instance is one module instance. Whoever holds sem (a send on it)
// may use it. A dead instance is closed or about to be.
type instance struct {
	sem    chan struct{}
	mod    api.Module
	mem    api.Memory
	fns    map[string]api.Function
	stack  []uint64
	dead   atomic.Bool
	visits int // open visits pinned here (Runtime.mu)
	queued int // goroutines waiting for sem (Runtime.mu)
}

// fixedRand is the guest's random source: the same bytes for every
// instance (SplitMix64 from a constant seed). Each Read starts a new
// 64-bit value and takes its bytes lowest first.
type fixedRand struct{ src *splitmix.Source }

func (f fixedRand) Read(p []byte) (int, error) {
	for i := 0; i < len(p); i += 8 {
		z := f.src.Uint64()
		for j := i; j < len(p) && j < i+8; j++ {
			p[j] = byte(z >> (8 * (j - i)))
		}
	}
	return len(p), nil
}

// instantiate starts a new instance in the sandbox the package doc
// describes: fake clocks, fixed random bytes, no files, arguments or
// environment.
func (r *Runtime) instantiate(ctx context.Context) (*instance, error) {
	var ns int64
	stderr := r.opts.Stderr
	if stderr == nil {
		stderr = io.Discard
	}
	cfg := wazero.NewModuleConfig().
		WithName("").
		WithStartFunctions("_initialize").
		WithStderr(stderr).
		WithWalltime(func() (int64, int32) { return fakeWalltimeSec, 0 }, sys.ClockResolution(1)).
		WithNanotime(func() int64 { ns += fakeNanotimeTic; return ns }, sys.ClockResolution(1)).
		WithRandSource(fixedRand{splitmix.New(0x4e6f726d47796d)}) // "NormGym"
	mod, err := r.rt.InstantiateModule(withLinearMemory(ctx), r.compiled, cfg)
	if err != nil {
		return nil, fmt.Errorf("host: instantiating sim.wasm: %w", err)
	}
	in := &instance{sem: make(chan struct{}, 1), mod: mod, mem: mod.Memory(), fns: map[string]api.Function{}, stack: make([]uint64, 1)}
	for _, name := range exportNames {
		in.fns[name] = mod.ExportedFunction(name)
	}
	return in, nil
}
