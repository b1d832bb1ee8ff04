package cli

import (
	"context"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/agents"
)

// engine runs visits: the sim.wasm module under wazero, or the native core.
type engine interface {
	// RunBaseline runs a whole visit with a built-in baseline.
	RunBaseline(ctx context.Context, visit, agent string) (sim.Record, error)
	// Replay re-executes a record and returns the recomputed record and
	// the fields where rec disagrees with it (sim.DiffRecords names).
	Replay(ctx context.Context, rec sim.Record) (sim.Record, []string, error)
	// SHA256 identifies the engine: the module's SHA-256, or "native".
	SHA256() string
	// NewEnv returns an Env for one visit at a time (a model's).
	NewEnv() sim.Env
	Close() error
}

// nativeEngine runs the Go core directly, on the visits of cat (nil: the
// public catalog).
type nativeEngine struct{ cat *norms.Catalog }

// catalog is the engine's catalog.
func (n nativeEngine) catalog() *norms.Catalog {
	if n.cat == nil {
		return norms.Default()
	}
	return n.cat
}

func (n nativeEngine) RunBaseline(_ context.Context, visit, agent string) (sim.Record, error) {
	env, err := agents.PlayIn(n.catalog(), visit, agent)
	if err != nil {
		return sim.Record{}, err
	}
	r := env.Record(agent, "baseline")
	r.SimSHA256 = "native"
	return r, nil
}

func (n nativeEngine) Replay(_ context.Context, rec sim.Record) (sim.Record, []string, error) {
	out, diffs, err := sim.VerifyIn(n.catalog(), rec)
	out.SimSHA256 = "native"
	return out, diffs, err
}

func (nativeEngine) SHA256() string { return "native" }
func (n nativeEngine) NewEnv() sim.Env {
	return &sim.Native{Catalog: n.cat, SimSHA256: "native"}
}
func (nativeEngine) Close() error { return nil }
