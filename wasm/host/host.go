// Package host runs sim.wasm (wasm/module, ABI in wasm/ABI.md) under
// wazero and offers the simulation core's API over it, with results
// decoded into package sim's own types.
//
// A Runtime compiles the module once and keeps a pool of instances. It is
// safe for concurrent use: each instance serves one call at a time; a
// Visit stays on the instance that holds its environment until Close
// (other calls may use that instance between the visit's calls). When an
// instance traps, or a call's context ends while it runs, that instance is
// closed and dropped from the pool, and the call fails with an error that
// wraps ErrInstanceLost; the visits it held fail the same way from then on.
//
// Each instance sees a fake clock (walltime fixed at 2024-01-01T00:00:00Z,
// a nanotime that advances 1 µs per read) and a fixed random byte stream,
// the same for every instance, so nothing the guest computes can depend on
// the host. It sees no file system, arguments or environment variables.
// The simulation itself reads neither clock nor randomness; these fakes
// keep the Go runtime inside the module deterministic too.
//
// host.go holds the Runtime and its options, instance.go what one instance
// sees, pool.go how instances are shared, call.go how one export is
// called, api.go the typed API and errors.go the errors.
package host

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/normgym/normgym/wasm/wire"
)

// ABI is the module ABI version this package speaks; New refuses others.
const ABI = 1

// ABI must equal wire.ABI: this fails to compile otherwise.
const _ = uint(ABI-wire.ABI) + uint(wire.ABI-ABI)

// Options configure a Runtime.
type Options struct {
	// Interpreter selects wazero's interpreter instead of its compiler:
	// ~10x faster to load, much slower to run.
	Interpreter bool
	// CacheDir keeps compiled code on disk across processes (compiler
	// only). Empty means an in-memory cache for this Runtime.
	CacheDir string
	// MaxInstances bounds the pool; 0 means runtime.GOMAXPROCS(0). Each
	// instance costs tens of MB and holds up to 256 open visits.
	MaxInstances int
	// Uninterruptible turns off wazero's close-on-context-done checks.
	// They cost a call at every loop header, which Go's wasm code has in
	// every function: without them calls run ~3x faster, but a context
	// that ends during a call no longer stops it (it is checked before
	// each call only). For trusted batch work such as baseline runs.
	Uninterruptible bool
	// Stderr receives the guest's standard error (Go runtime messages on
	// a crash). Nil discards it.
	Stderr io.Writer
}

// Runtime is a compiled sim.wasm and its pool of instances.
type Runtime struct {
	rt       wazero.Runtime
	cache    wazero.CompilationCache
	compiled wazero.CompiledModule
	sha      string
	opts     Options
	max      int

	mu       sync.Mutex
	all      []*instance
	creating int
	closed   bool
	changed  chan struct{} // closed and replaced when the pool changes
}

// New compiles wasm (sim.wasm's bytes) and checks that it speaks this
// package's ABI by calling info on a first instance.
func New(ctx context.Context, wasm []byte, opts Options) (*Runtime, error) {
	sum := sha256.Sum256(wasm)
	r := &Runtime{sha: hex.EncodeToString(sum[:]), opts: opts, max: opts.MaxInstances, changed: make(chan struct{})}
	if r.max <= 0 {
		r.max = runtime.GOMAXPROCS(0)
	}
	cfg := wazero.NewRuntimeConfig()
	if opts.Interpreter {
		cfg = wazero.NewRuntimeConfigInterpreter()
	}
	var err error
	if opts.CacheDir != "" && !opts.Interpreter {
		if r.cache, err = wazero.NewCompilationCacheWithDir(opts.CacheDir); err != nil {
			return nil, fmt.Errorf("host: compilation cache: %w", err)
		}
	} else {
		r.cache = wazero.NewCompilationCache()
	}
	cfg = cfg.WithCompilationCache(r.cache).WithCloseOnContextDone(!opts.Uninterruptible)
	r.rt = wazero.NewRuntimeWithConfig(ctx, cfg)
	fail := func(err error) (*Runtime, error) {
		r.rt.Close(ctx)
		r.cache.Close(ctx)
		return nil, err
	}
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, r.rt); err != nil {
		return fail(fmt.Errorf("host: wasi: %w", err))
	}
	if r.compiled, err = r.rt.CompileModule(ctx, wasm); err != nil {
		return fail(fmt.Errorf("host: compiling sim.wasm: %w", err))
	}
	for _, name := range exportNames {
		if _, ok := r.compiled.ExportedFunctions()[name]; !ok {
			return fail(fmt.Errorf("host: sim.wasm does not export %q: not a NormGym sim module, or a different ABI", name))
		}
	}
	info, err := r.Info(ctx)
	if err != nil {
		return fail(err)
	}
	if info.ABI != ABI {
		return fail(fmt.Errorf("host: sim.wasm speaks ABI %d, this host speaks %d", info.ABI, ABI))
	}
	return r, nil
}

// Capacity is how many visits the runtime can hold open at once: its
// instances times the handles each keeps (wire.MaxHandles). A Reset
// beyond it fails with the module's "too many open environments".
func (r *Runtime) Capacity() int { return r.max * wire.MaxHandles }

// SHA256 returns the hex SHA-256 of the module bytes given to New: the
// value for Record.SimSHA256.
func (r *Runtime) SHA256() string { return r.sha }

// Close closes every instance and the compiled module. Open visits fail
// from then on.
func (r *Runtime) Close(ctx context.Context) error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	for _, in := range r.all {
		in.dead.Store(true)
	}
	r.all = nil
	r.mu.Unlock()
	err := r.rt.Close(ctx)
	if cErr := r.cache.Close(ctx); err == nil {
		err = cErr
	}
	return err
}
