//go:build !js

package session_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/serve/session"
	"github.com/normgym/normgym/serve/store/storetest"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/agents"
	"github.com/normgym/normgym/sim/simtest"
	"github.com/normgym/normgym/wasm/host"
	"github.com/normgym/normgym/wasm/simwasm"
)

var rt *host.Runtime

func TestMain(m *testing.M) {
	opts := host.Options{Uninterruptible: true}
	if dir, err := os.UserCacheDir(); err == nil {
		opts.CacheDir = filepath.Join(dir, "normgym", "wazero")
		os.MkdirAll(opts.CacheDir, 0o755)
	}
	var err error
	if rt, err = host.New(context.Background(), simwasm.Bytes(), opts); err != nil {
		panic("loading sim.wasm (make wasm): " + err.Error())
	}
	code := m.Run()
	rt.Close(context.Background())
	os.Exit(code)
}

// play steps env with the greedy baseline to the end and returns every
// frame (the first included).
func play(t *testing.T, e session.Engine, visit string) []session.Frame {
	t.Helper()
	ctx := context.Background()
	env, f, err := e.Reset(ctx, visit)
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	p, _ := agents.New("greedy")
	frames := []session.Frame{f}
	for !f.Over {
		var obs sim.Observation
		if err := json.Unmarshal(f.Observation, &obs); err != nil {
			t.Fatal(err)
		}
		if f, err = env.Step(ctx, p.Act(&obs).String()); err != nil {
			t.Fatal(err)
		}
		frames = append(frames, f)
	}
	return frames
}

// same reports whether two JSON documents hold the same value.
func same(a, b []byte) bool {
	var x, y any
	json.Unmarshal(a, &x)
	json.Unmarshal(b, &y)
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

// TestEnginesAgree: the engines render the same frames step by step —
// sim.wasm, the native core, and the native core with a catalog of its
// own (sim.NewVisitIn, which private suites use) made from the public
// catalog's files: stepping does not depend on where the norm comes from.
func TestEnginesAgree(t *testing.T) {
	cat, err := norms.Load(os.DirFS("../../norms/catalog"))
	if err != nil {
		t.Fatal(err)
	}
	engines := []session.Engine{session.Native(simwasm.SHA256()), session.NativeCatalog(simwasm.SHA256(), cat)}
	mini, _ := sim.LookupSuite("mini")
	for _, v := range []string{mini.Visits[0], mini.Visits[17], mini.Visits[33]} {
		want := play(t, session.Wasm(rt), v)
		for _, e := range engines {
			got := play(t, e, v)
			if len(got) != len(want) {
				t.Fatalf("%s: %d frames natively, %d in sim.wasm", v, len(got), len(want))
			}
			for i := range got {
				g, w := got[i], want[i]
				if g.Text != w.Text || g.Day != w.Day || g.Step != w.Step || g.Over != w.Over || !same(g.Observation, w.Observation) ||
					g.Terminated != w.Terminated || g.Truncated != w.Truncated || g.DayOver != w.DayOver {
					t.Fatalf("%s frame %d: native and sim.wasm differ", v, i)
				}
			}
		}
	}
}

// TestManagerRebuilds: with room for one environment in memory, two
// sessions stepped in turn are rebuilt from their stored actions at every
// turn, and end as a session never evicted does.
func TestManagerRebuilds(t *testing.T) {
	ctx := context.Background()
	st := storetest.MustOpenDB(t)
	m, err := session.New(session.Options{Store: st, Engine: session.Wasm(rt), MaxLive: 1})
	if err != nil {
		t.Fatal(err)
	}
	mini, _ := sim.LookupSuite("mini")
	visits := []string{mini.Visits[5], mini.Visits[6]}
	var tokens []string
	var states []api.SessionState
	for _, v := range visits {
		s, err := m.Open(ctx, session.Spec{Kind: api.KindPractice, Agent: "t", Visit: v})
		if err != nil {
			t.Fatal(err)
		}
		tokens, states = append(tokens, s.Session), append(states, s)
	}
	moves := []string{"north", "west", "pick", "east", "south", "wait"}
	for k := 0; k < 40; k++ {
		for i := range tokens {
			s, err := m.Step(ctx, tokens[i], moves[(k+i)%len(moves)])
			if err != nil {
				t.Fatalf("step %d of %d: %v", k, i, err)
			}
			states[i] = s
		}
		if m.Live() > 1 {
			t.Fatalf("%d environments in memory, want 1", m.Live())
		}
	}
	for i, v := range visits {
		want := play40(t, v, moves, i)
		if states[i].Text != want.Text || !same(states[i].Observation, want.Observation) {
			t.Errorf("session %d after rebuilds differs from a straight run", i)
		}
	}
}

func play40(t *testing.T, visit string, moves []string, off int) session.Frame {
	ctx := context.Background()
	env, f, err := session.Native(simwasm.SHA256()).Reset(ctx, visit)
	if err != nil {
		t.Fatal(err)
	}
	for k := 0; k < 40; k++ {
		if f, err = env.Step(ctx, moves[(k+off)%len(moves)]); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// TestEngineContract holds every engine's Env to the native core with the
// environment checker (sim/simtest): the session engines are sim.Envs.
func TestEngineContract(t *testing.T) {
	cat, err := norms.Load(os.DirFS("../../norms/catalog"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []session.Engine{session.Wasm(rt), session.Native(simwasm.SHA256()), session.NativeCatalog(simwasm.SHA256(), cat)} {
		t.Run(e.Kind(), func(t *testing.T) {
			env := e.NewEnv()
			defer env.Close()
			simtest.Run(t, env, simtest.Cases())
		})
	}
}
