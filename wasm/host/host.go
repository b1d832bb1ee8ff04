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
// a nanotime that advances 1 ms per read) and a fixed random byte stream,
// the same for every instance, so nothing the guest computes can depend on
// the host. It sees no file system, arguments or environment variables.
// The simulation itself reads neither clock nor randomness; these fakes
// keep the Go runtime inside the module deterministic too.
package host

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
	"github.com/tetratelabs/wazero/sys"

	"github.com/normgym/normgym/internal/splitmix"
	"github.com/normgym/normgym/wasm/internal/wire"
)

// ABI is the module ABI version this package speaks; New refuses others.
const ABI = 1

// ABI must equal wire.ABI: this fails to compile otherwise.
const _ = uint(ABI-wire.ABI) + uint(wire.ABI-ABI)

// ErrInstanceLost is wrapped by the error of a call whose instance trapped
// or was stopped by its context, and of later calls on visits it held.
var ErrInstanceLost = errors.New("host: module instance lost")

// ErrClosed is returned by calls on a closed Runtime.
var ErrClosed = errors.New("host: runtime closed")

// Error is an error value returned by the module: a bad request, an
// unknown visit or handle, a bad action, a visit that is over. The
// instance stays usable.
type Error struct {
	// Export is the export that failed, e.g. "step".
	Export string
	// Message is the module's message, e.g. `sim: bad action: …`.
	Message string
}

func (e *Error) Error() string { return "host: " + e.Export + ": " + e.Message }

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

// Walltime and the start of Nanotime as the guest sees them: the module
// reads no real clock. Nanotime advances 1 µs per read so that the Go
// runtime's timers still move; wazero's own fake advances 1 ms, which makes
// the guest runtime believe time flies and doubles the cost of a visit.
const (
	fakeWalltimeSec = 1_704_067_200 // 2024-01-01T00:00:00Z
	fakeNanotimeTic = 1_000
)

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

// notify wakes goroutines waiting for the pool to change; r.mu is held.
func (r *Runtime) notify() {
	close(r.changed)
	r.changed = make(chan struct{})
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

// Instances reports how many live instances the pool holds.
func (r *Runtime) Instances() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.all)
}

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
	mod, err := r.rt.InstantiateModule(ctx, r.compiled, cfg)
	if err != nil {
		return nil, fmt.Errorf("host: instantiating sim.wasm: %w", err)
	}
	in := &instance{sem: make(chan struct{}, 1), mod: mod, mem: mod.Memory(), fns: map[string]api.Function{}, stack: make([]uint64, 1)}
	for _, name := range exportNames {
		in.fns[name] = mod.ExportedFunction(name)
	}
	return in, nil
}

// acquire returns an instance held for the caller, creating one if none
// is free and the pool has room, else waiting for the least awaited one.
// Instances with fewer open visits come first.
func (r *Runtime) acquire(ctx context.Context) (*instance, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("host: %w", err)
		}
		r.mu.Lock()
		if r.closed {
			r.mu.Unlock()
			return nil, ErrClosed
		}
		order := slices.Clone(r.all)
		slices.SortStableFunc(order, func(a, b *instance) int { return a.visits - b.visits })
		for _, in := range order {
			select {
			case in.sem <- struct{}{}:
				r.mu.Unlock()
				return in, nil
			default:
			}
		}
		if len(r.all)+r.creating < r.max {
			r.creating++
			r.mu.Unlock()
			in, err := r.instantiate(ctx)
			r.mu.Lock()
			r.creating--
			r.notify()
			if err == nil {
				if r.closed {
					in.mod.Close(ctx)
					err = ErrClosed
				} else {
					in.sem <- struct{}{}
					r.all = append(r.all, in)
				}
			}
			r.mu.Unlock()
			if err != nil {
				return nil, err
			}
			return in, nil
		}
		if len(order) == 0 {
			// Every slot is being created by others: wait for a change.
			changed := r.changed
			r.mu.Unlock()
			select {
			case <-changed:
			case <-ctx.Done():
			}
			continue
		}
		in := slices.MinFunc(order, func(a, b *instance) int { return a.queued - b.queued })
		in.queued++
		r.mu.Unlock()
		if err := r.lock(ctx, in); err != nil {
			if errors.Is(err, ErrInstanceLost) {
				continue
			}
			return nil, fmt.Errorf("host: %w", err)
		}
		return in, nil
	}
}

// lock waits for in (already counted in in.queued) and holds it.
func (r *Runtime) lock(ctx context.Context, in *instance) error {
	var err error
	select {
	case in.sem <- struct{}{}:
		if in.dead.Load() {
			<-in.sem
			err = ErrInstanceLost
		}
	case <-ctx.Done():
		err = ctx.Err()
	}
	r.mu.Lock()
	in.queued--
	r.mu.Unlock()
	return err
}

func (r *Runtime) release(in *instance) { <-in.sem }

// discard drops a held instance after a trap and releases it.
func (r *Runtime) discard(in *instance) {
	in.dead.Store(true)
	r.mu.Lock()
	if i := slices.Index(r.all, in); i >= 0 {
		r.all = slices.Delete(r.all, i, i+1)
	}
	r.notify()
	r.mu.Unlock()
	in.mod.Close(context.Background())
	<-in.sem
}

// call runs an export on a held instance: it writes req with in_ptr (for
// exports that take one), calls the export and copies out its response.
// Any wazero error discards the instance.
func (r *Runtime) call(ctx context.Context, in *instance, export string, req []byte, hasInput bool) ([]byte, error) {
	if len(req) > wire.MaxInput {
		return nil, &Error{Export: export, Message: fmt.Sprintf("request of %d bytes, more than %d", len(req), wire.MaxInput)}
	}
	if in.dead.Load() {
		return nil, fmt.Errorf("host: %s: %w", export, ErrInstanceLost)
	}
	trap := func(err error) ([]byte, error) {
		in.dead.Store(true) // do discards it
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, fmt.Errorf("host: %s: %w: %w (%v)", export, ErrInstanceLost, ctxErr, err)
		}
		return nil, fmt.Errorf("host: %s: %w: %v", export, ErrInstanceLost, err)
	}
	st := in.stack
	if hasInput {
		st[0] = api.EncodeI32(int32(len(req)))
		if err := in.fns["in_ptr"].CallWithStack(ctx, st); err != nil {
			return trap(err)
		}
		ptr := api.DecodeU32(st[0])
		if ptr == 0 {
			return nil, &Error{Export: export, Message: "in_ptr refused the request's length"}
		}
		if !in.mem.Write(ptr, req) {
			return trap(errors.New("in_ptr returned an address out of memory"))
		}
		st[0] = api.EncodeI32(int32(len(req)))
	}
	if err := in.fns[export].CallWithStack(ctx, st); err != nil {
		return trap(err)
	}
	n := api.DecodeU32(st[0])
	if err := in.fns["out_ptr"].CallWithStack(ctx, st); err != nil {
		return trap(err)
	}
	view, ok := in.mem.Read(api.DecodeU32(st[0]), n)
	if !ok {
		return trap(errors.New("out_ptr and the length point out of memory"))
	}
	resp := slices.Clone(view)
	if wire.IsError(resp) {
		var e wire.Error
		if err := json.Unmarshal(resp, &e); err != nil {
			return nil, &Error{Export: export, Message: "unreadable error response: " + string(resp)}
		}
		return nil, &Error{Export: export, Message: e.Error}
	}
	return resp, nil
}

// do acquires an instance (or waits for pinned), runs one export and
// decodes its response into resp (unless resp is nil). A nil req means
// the export takes no request.
func (r *Runtime) do(ctx context.Context, pinned *instance, export string, req, resp any) error {
	var body []byte
	if req != nil {
		var err error
		if body, err = marshal(export, req); err != nil {
			return err
		}
	}
	out, err := r.doRaw(ctx, pinned, export, body, req != nil)
	if err != nil {
		return err
	}
	return unmarshal(export, out, resp)
}

func marshal(export string, req any) ([]byte, error) {
	b, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("host: %s: encoding the request: %w", export, err)
	}
	return b, nil
}

func unmarshal(export string, out []byte, resp any) error {
	if resp == nil {
		return nil
	}
	if err := json.Unmarshal(out, resp); err != nil {
		return fmt.Errorf("host: %s: decoding the response: %w", export, err)
	}
	return nil
}

func (r *Runtime) doRaw(ctx context.Context, pinned *instance, export string, body []byte, hasInput bool) ([]byte, error) {
	in := pinned
	if in == nil {
		var err error
		if in, err = r.acquire(ctx); err != nil {
			return nil, err
		}
	} else {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("host: %w", err)
		}
		r.mu.Lock()
		in.queued++
		r.mu.Unlock()
		if err := r.lock(ctx, in); err != nil {
			return nil, fmt.Errorf("host: %s: %w", export, err)
		}
	}
	out, err := r.call(ctx, in, export, body, hasInput)
	if in.dead.Load() {
		r.discard(in)
	} else {
		r.release(in)
	}
	return out, err
}

// Call sends raw request bytes to an export of a pooled instance and
// returns the raw response: the ABI without the typed layer, for tests,
// fuzzing and proxies. Exports that take no request (info, norms) ignore
// req. An error value from the module is returned as *Error.
func (r *Runtime) Call(ctx context.Context, export string, req []byte) ([]byte, error) {
	if !slices.Contains(exportNames, export) || export == "in_ptr" || export == "out_ptr" {
		return nil, fmt.Errorf("host: unknown export %q", export)
	}
	hasInput := export != "info" && export != "norms"
	return r.doRaw(ctx, nil, export, req, hasInput)
}
