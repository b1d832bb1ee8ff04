//go:build !js

package remote_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/normgym/normgym/serve/limit"
	"github.com/normgym/normgym/serve/remote"
	"github.com/normgym/normgym/serve/server"
	"github.com/normgym/normgym/serve/session"
	"github.com/normgym/normgym/serve/store/storetest"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/agents"
	"github.com/normgym/normgym/sim/simtest"
	"github.com/normgym/normgym/wasm/host"
	"github.com/normgym/normgym/wasm/simwasm"
)

// liveServer starts `normgym serve`'s handler on loopback: SQLite, sessions
// stepped in sim.wasm, no rate limits (the checker steps fast).
func liveServer(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	opts := host.Options{Uninterruptible: true}
	if dir, err := os.UserCacheDir(); err == nil {
		opts.CacheDir = filepath.Join(dir, "normgym", "wazero")
		os.MkdirAll(opts.CacheDir, 0o755)
	}
	rt, err := host.New(ctx, simwasm.Bytes(), opts)
	if err != nil {
		t.Fatalf("loading sim.wasm: %v (run make wasm)", err)
	}
	t.Cleanup(func() { rt.Close(ctx) })
	srv, err := server.New(server.Options{Store: storetest.MustOpenDB(t), Verifier: server.Wasm(rt), Engine: session.Wasm(rt),
		Limiter: limit.None})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	return hs.URL
}

// clients are the Envs of a live server at base.
func clients(base string) []struct {
	name string
	env  *remote.Env
} {
	return []struct {
		name string
		env  *remote.Env
	}{
		{"http", remote.HTTP(base, remote.Options{})},
		{"ws", remote.WS(base, remote.Options{})},
	}
}

// TestLiveServerContract holds a live server's sessions, through OpenEnv's
// HTTP routes and its WebSocket session, to the native core with the
// environment checker: the same turns, observations, errors, probe and
// record, and nothing an agent is handed as the observation names the
// visit, its norm or its condition before the probe.
func TestLiveServerContract(t *testing.T) {
	base := liveServer(t)
	for _, c := range clients(base) {
		t.Run(c.name, func(t *testing.T) {
			defer c.env.Close()
			simtest.Run(t, c.env, simtest.Cases())
		})
	}
}

// leaky is a server's Env whose delivered observations carry the visit id,
// as the server's OpenEnv observations did before issue 19
// (observation.visit): what TestCheckerSeesTheVisitLeak feeds the checker.
type leaky struct {
	*remote.Env
	visit string
}

func (l *leaky) Reset(ctx context.Context, visit string) (sim.Turn, error) {
	l.visit = visit
	t, err := l.Env.Reset(ctx, visit)
	return l.leak(t), err
}

func (l *leaky) Step(ctx context.Context, action string) (sim.Turn, error) {
	t, err := l.Env.Step(ctx, action)
	return l.leak(t), err
}

// leak puts "visit" into the delivered observation's JSON object.
func (l *leaky) leak(t sim.Turn) sim.Turn {
	if n := bytes.LastIndexByte(t.Wire, '}'); n > 0 {
		q, _ := json.Marshal(l.visit)
		t.Wire = append(append(append(bytes.Clone(t.Wire[:n]), `,"visit":`...), q...), '}')
	}
	return t
}

// TestCheckerSeesTheVisitLeak: on a server whose observations carry the
// visit id, the checker fails at the reset, naming it, over HTTP and /ws.
// (POST /reset, /step and /ws did so before issue 19.)
func TestCheckerSeesTheVisitLeak(t *testing.T) {
	base := liveServer(t)
	for _, c := range clients(base) {
		t.Run(c.name, func(t *testing.T) {
			defer c.env.Close()
			visit := simtest.Cases()[0].Visit
			p, _ := agents.New("greedy")
			failed := check(&leaky{Env: c.env}, visit, p)
			if len(failed) != 1 || !strings.Contains(failed[0], "reset: the delivered observation contains the visit id") {
				t.Errorf("CheckEnv reported %q, want the visit id at the reset", failed)
			}
		})
	}
}

// recorder is a testing.TB that records failures; Fatal ends the
// goroutine, as testing's does.
type recorder struct {
	testing.TB
	mu     sync.Mutex
	failed []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failed = append(r.failed, fmt.Sprintf(format, args...))
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	runtime.Goexit()
}

// check runs CheckEnv over env with a recorder and returns what it
// reported.
func check(env sim.Env, visit string, p agents.Policy) []string {
	r := &recorder{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		simtest.CheckEnv(r, env, visit, p)
	}()
	<-done
	return r.failed
}
