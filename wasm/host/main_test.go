package host_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/normgym/normgym/wasm/host"
)

var update = flag.Bool("update", false, "rewrite testdata/golden_hashes.json")

// wasmEnv names a prebuilt sim.wasm to test instead of building one. The
// test binary sets it for its own fuzz workers.
const wasmEnv = "NORMGYM_TEST_SIMWASM"

var (
	wasmBytes []byte
	cacheDir  string // a compilation cache shared by the tests' runtimes
)

// TestMain builds sim.wasm from the current sources into a temporary
// directory (Go's build cache makes that quick after the first time), so
// the tests never run a stale wasm/simwasm/module/sim.wasm.
func TestMain(m *testing.M) {
	flag.Parse()
	os.Exit(run(m))
}

func run(m *testing.M) int {
	tmp, err := os.MkdirTemp("", "simwasm-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(tmp)
	cacheDir = filepath.Join(tmp, "cache")
	path := os.Getenv(wasmEnv)
	if path == "" {
		path = filepath.Join(tmp, "sim.wasm")
		cmd := exec.Command("go", "build", "-buildmode=c-shared", "-o", path, "github.com/normgym/normgym/wasm/module")
		cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
		cmd.Stderr = os.Stderr
		if err := cmd.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "building sim.wasm:", err)
			return 1
		}
		os.Setenv(wasmEnv, path)
	}
	if wasmBytes, err = os.ReadFile(path); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	code := m.Run()
	for _, r := range []*host.Runtime{compiled, interpreted, fuzzRT, fast} {
		if r != nil {
			r.Close(context.Background())
		}
	}
	return code
}

var (
	compiledOnce, interpretedOnce sync.Once
	compiled, interpreted         *host.Runtime
	compiledErr, interpretedErr   error
)

// compiler returns the Runtime shared by the tests (compiler engine):
// compiling sim.wasm costs more than a second.
func compiler(tb testing.TB) *host.Runtime {
	tb.Helper()
	compiledOnce.Do(func() {
		compiled, compiledErr = host.New(context.Background(), wasmBytes, host.Options{CacheDir: cacheDir})
	})
	if compiledErr != nil {
		tb.Fatal(compiledErr)
	}
	return compiled
}

var (
	fastOnce sync.Once
	fast     *host.Runtime
	fastErr  error
)

// uninterruptible returns a shared compiler Runtime with Uninterruptible set.
func uninterruptible(tb testing.TB) *host.Runtime {
	tb.Helper()
	fastOnce.Do(func() {
		fast, fastErr = host.New(context.Background(), wasmBytes, host.Options{CacheDir: cacheDir, Uninterruptible: true})
	})
	if fastErr != nil {
		tb.Fatal(fastErr)
	}
	return fast
}

// interpreter returns the shared interpreter Runtime.
func interpreter(tb testing.TB) *host.Runtime {
	tb.Helper()
	interpretedOnce.Do(func() {
		interpreted, interpretedErr = host.New(context.Background(), wasmBytes, host.Options{Interpreter: true})
	})
	if interpretedErr != nil {
		tb.Fatal(interpretedErr)
	}
	return interpreted
}

// newRuntime returns a private compiler Runtime (from the warm cache) that
// the test may break.
func newRuntime(tb testing.TB, opts host.Options) *host.Runtime {
	tb.Helper()
	opts.CacheDir = cacheDir
	r, err := host.New(context.Background(), wasmBytes, opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { r.Close(context.Background()) })
	return r
}

// isModuleError reports whether err is an error value from the module
// (the instance survived).
func isModuleError(err error) bool {
	var e *host.Error
	return errors.As(err, &e)
}
