package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/sim"
)

// Engine starts a session's visits, each in a sim.Env: sim.wasm under
// wazero (Wasm, the host's Env) or the Go core compiled into the server
// (Native, sim.Native). The Env keeps the contract; the engine only says
// which sim runs it, and the Manager holds each visit through one adapter
// (Visit) that turns the Env's answers into frames.
type Engine interface {
	// Kind is "wasm" or "native" (stored as the run's verifier).
	Kind() string
	// SHA256 is the sim.wasm the engine is (or, natively, was built with).
	SHA256() string
	// NewEnv returns an Env of the engine with no visit yet.
	NewEnv() sim.Env
	// Reset starts the visit in a new Env and returns it, held as the
	// Manager holds it, with its first frame.
	Reset(ctx context.Context, visit string) (Visit, Frame, error)
}

// Visit is a visit in progress as the Manager holds it: a sim.Env whose
// answers come as frames, the client's view. Calls on one Env come one at
// a time (the Manager holds the session's lock). Its one implementation
// wraps the engine's sim.Env and translates; it holds no rules.
type Visit interface {
	// Step takes an action (canonical text) and returns the new frame.
	Step(ctx context.Context, action string) (Frame, error)
	// Skip takes an action without building a frame: for replaying
	// stored actions.
	Skip(ctx context.Context, action string) error
	// Observe returns the current frame.
	Observe(ctx context.Context) (Frame, error)
	// Probe returns the probe (sim.Env.Probe: after the end, none under
	// control).
	Probe(ctx context.Context) (*sim.Probe, error)
	// Answer records the probe answer.
	Answer(ctx context.Context, k int) error
	// Record returns the record so far (SimSHA256 set by the engine).
	Record(ctx context.Context, agent, client string) (sim.Record, error)
	// Close frees the visit.
	Close()
}

// Frame is where a visit stands after a reset or a step: the observation
// as JSON and its text form as the sim rendered it.
type Frame struct {
	Observation json.RawMessage
	Text        string
	// Day is 1-based; Step counts the day's steps.
	Day, Step                      int
	Over                           bool
	Terminated, Truncated, DayOver bool
	// NoProbe reports a visit that is over and has no probe (control),
	// as its Env says.
	NoProbe bool
}

// Native returns an Engine that steps the Go core compiled into this
// program with the public catalog; sha is the sim.wasm built from the
// same source (its hash goes into the records).
func Native(sha string) Engine {
	return engine{kind: "native", sha: sha, env: func() sim.Env { return &sim.Native{SimSHA256: sha} }}
}

// NativeCatalog is Native for visits of a catalog other than the public
// one (a private suite's): see sim.NewVisitIn.
func NativeCatalog(sha string, cat *norms.Catalog) Engine {
	return engine{kind: "native", sha: sha, env: func() sim.Env { return &sim.Native{Catalog: cat, SimSHA256: sha} }}
}

// engine is every Engine: a kind, a hash and where its Envs come from.
type engine struct {
	kind, sha string
	env       func() sim.Env
}

func (e engine) Kind() string    { return e.kind }
func (e engine) SHA256() string  { return e.sha }
func (e engine) NewEnv() sim.Env { return e.env() }

func (e engine) Reset(ctx context.Context, visit string) (Visit, Frame, error) {
	env := e.env()
	t, err := env.Reset(ctx, visit)
	if err != nil {
		return nil, Frame{}, err
	}
	v := &held{env: env}
	f, err := v.frame(ctx, t)
	if err != nil {
		env.Close()
		return nil, Frame{}, err
	}
	return v, f, nil
}

// held is a sim.Env as the Manager holds it.
type held struct{ env sim.Env }

var _ Visit = (*held)(nil)

// frame is the frame after turn t: the Env's observation encoded, and
// whether a visit that is over has a probe.
func (h *held) frame(ctx context.Context, t sim.Turn) (Frame, error) {
	o, err := h.env.Observe(ctx)
	if err != nil {
		return Frame{}, err
	}
	b, err := json.Marshal(o)
	if err != nil {
		return Frame{}, fmt.Errorf("session: encoding the observation: %w", err)
	}
	return h.frameOf(ctx, t, b)
}

// frameOf is the frame after turn t whose observation is obs (JSON).
func (h *held) frameOf(ctx context.Context, t sim.Turn, obs json.RawMessage) (Frame, error) {
	f := Frame{Observation: obs, Text: t.Text, Day: t.Day, Step: t.Step, Over: t.Over,
		Terminated: t.Terminated, Truncated: t.Truncated, DayOver: t.DayOver}
	if t.Over {
		if _, err := h.env.Probe(ctx); errors.Is(err, sim.ErrNoProbe) {
			f.NoProbe = true
		} else if err != nil {
			return Frame{}, err
		}
	}
	return f, nil
}

// jsonStepper is an Env that answers a step with the observation's JSON
// too, in one call, as the module wrote it (wasm/host's Env): the Manager
// passes it on unread, since decoding and encoding it again would cost
// more than the step.
type jsonStepper interface {
	StepJSON(ctx context.Context, action string) (sim.Turn, json.RawMessage, error)
}

func (h *held) Step(ctx context.Context, action string) (Frame, error) {
	js, ok := h.env.(jsonStepper)
	if !ok {
		t, err := h.env.Step(ctx, action)
		if err != nil {
			return Frame{}, err
		}
		return h.frame(ctx, t)
	}
	t, obs, err := js.StepJSON(ctx, action)
	if err != nil {
		return Frame{}, err
	}
	return h.frameOf(ctx, t, obs)
}

func (h *held) Skip(ctx context.Context, action string) error {
	_, err := h.env.Step(ctx, action)
	return err
}

func (h *held) Observe(ctx context.Context) (Frame, error) {
	o, err := h.env.Observe(ctx)
	if err != nil {
		return Frame{}, err
	}
	return h.frame(ctx, sim.Turn{Text: o.Text(), Day: o.Day, Step: o.Frame.Step, Over: o.Done})
}

func (h *held) Probe(ctx context.Context) (*sim.Probe, error) { return h.env.Probe(ctx) }

func (h *held) Answer(ctx context.Context, k int) error {
	_, err := h.env.Answer(ctx, k, nil)
	return err
}

func (h *held) Record(ctx context.Context, agent, client string) (sim.Record, error) {
	return h.env.Record(ctx, agent, client)
}

func (h *held) Close() { h.env.Close() }
