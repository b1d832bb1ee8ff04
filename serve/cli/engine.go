package cli

import (
	"context"

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

// nativeEngine runs the Go core directly.
type nativeEngine struct{}

func (nativeEngine) RunBaseline(_ context.Context, visit, agent string) (sim.Record, error) {
	env, err := agents.Play(visit, agent)
	if err != nil {
		return sim.Record{}, err
	}
	r := env.Record(agent, "baseline")
	r.SimSHA256 = "native"
	return r, nil
}

func (nativeEngine) Replay(_ context.Context, rec sim.Record) (sim.Record, []string, error) {
	out, diffs, err := sim.Verify(rec)
	out.SimSHA256 = "native"
	return out, diffs, err
}

func (nativeEngine) SHA256() string  { return "native" }
func (nativeEngine) NewEnv() sim.Env { return &sim.Native{SimSHA256: "native"} }
func (nativeEngine) Close() error    { return nil }
