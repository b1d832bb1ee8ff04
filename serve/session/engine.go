package session

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/sim"
)

// Engine starts visits: sim.wasm under wazero (Wasm) or the Go core
// compiled into the server (Native). Both render the same observations;
// the differential tests in wasm/host and serve/session hold them equal.
type Engine interface {
	// Kind is "wasm" or "native" (stored as the run's verifier).
	Kind() string
	// SHA256 is the sim.wasm the engine is (or, natively, was built with).
	SHA256() string
	// Reset starts the visit and returns it with its first frame.
	Reset(ctx context.Context, visit string) (Env, Frame, error)
}

// Env is one visit in progress inside an Engine. Calls on one Env come
// one at a time (the Manager holds the session's lock).
type Env interface {
	// Step takes an action (canonical text) and returns the new frame.
	Step(ctx context.Context, action string) (Frame, error)
	// Skip takes an action without rendering an observation: for
	// replaying stored actions.
	Skip(ctx context.Context, action string) error
	// Observe returns the current frame.
	Observe(ctx context.Context) (Frame, error)
	// Probe returns the probe (nil under control).
	Probe(ctx context.Context) (*sim.Probe, error)
	// Answer records the probe answer.
	Answer(ctx context.Context, k int) error
	// Record returns the record so far (SimSHA256 set by the engine).
	Record(ctx context.Context, agent, client string) (sim.Record, error)
	// Close frees the visit.
	Close()
}

// Frame is where a visit stands after a reset or a step: the observation
// as the sim encoded it (JSON) and its text form as the sim rendered it.
type Frame struct {
	Observation json.RawMessage
	Text        string
	// Day is 1-based; Step counts the day's steps.
	Day, Step                      int
	Over                           bool
	Terminated, Truncated, DayOver bool
}

// Native returns an Engine that steps the Go core compiled into this
// program with the public catalog; sha is the sim.wasm built from the
// same source (its hash goes into the records).
func Native(sha string) Engine { return nativeEngine{sha: sha} }

// NativeCatalog is Native for visits of a catalog other than the public
// one (a private suite's): see sim.NewVisitIn.
func NativeCatalog(sha string, cat *norms.Catalog) Engine { return nativeEngine{sha: sha, cat: cat} }

type nativeEngine struct {
	sha string
	cat *norms.Catalog
}

func (n nativeEngine) Kind() string   { return "native" }
func (n nativeEngine) SHA256() string { return n.sha }

func (n nativeEngine) Reset(ctx context.Context, visit string) (Env, Frame, error) {
	var env *sim.Visit
	var obs *sim.Observation
	var err error
	if n.cat != nil {
		env, obs, err = sim.NewVisitIn(n.cat, visit)
	} else {
		env, obs, err = sim.NewVisit(visit)
	}
	if err != nil {
		return nil, Frame{}, err
	}
	e := &nativeEnv{env: env, sha: n.sha}
	f, err := e.frame(obs)
	return e, f, err
}

type nativeEnv struct {
	env *sim.Visit
	sha string
}

func (e *nativeEnv) frame(obs *sim.Observation) (Frame, error) {
	b, err := json.Marshal(obs)
	if err != nil {
		return Frame{}, fmt.Errorf("session: encoding the observation: %w", err)
	}
	return Frame{Observation: b, Text: obs.Text(), Day: obs.Day, Step: obs.Frame.Step, Over: obs.Done}, nil
}

func (e *nativeEnv) step(action string) (sim.StepResult, error) {
	a, err := sim.ParseAction(action)
	if err != nil {
		return sim.StepResult{}, err
	}
	return e.env.Step(a)
}

func (e *nativeEnv) Step(ctx context.Context, action string) (Frame, error) {
	res, err := e.step(action)
	if err != nil {
		return Frame{}, err
	}
	f, err := e.frame(res.Observation)
	f.Terminated, f.Truncated, f.DayOver = res.Terminated, res.Truncated, res.DayOver
	return f, err
}

func (e *nativeEnv) Skip(ctx context.Context, action string) error {
	_, err := e.step(action)
	return err
}

func (e *nativeEnv) Observe(ctx context.Context) (Frame, error) { return e.frame(e.env.Observe()) }

func (e *nativeEnv) Probe(ctx context.Context) (*sim.Probe, error) { return e.env.Probe(), nil }

func (e *nativeEnv) Answer(ctx context.Context, k int) error {
	_, err := e.env.Answer(k)
	return err
}

func (e *nativeEnv) Record(ctx context.Context, agent, client string) (sim.Record, error) {
	rec := e.env.Record(agent, client)
	rec.SimSHA256 = e.sha
	return rec, nil
}

func (e *nativeEnv) Close() {}
