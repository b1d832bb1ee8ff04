package host

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/normgym/normgym/sim"
)

// Env is sim.Env over the module: each visit runs in a pooled instance
// (Runtime.Reset) and the module's own sim.Native keeps the contract, so
// Env only translates. Steps leave the structured observation out of the
// module's answer (Visit.StepText: encoding it is most of a step's cost);
// Observe asks for it. Like every Env it is not safe for concurrent use.
type Env struct {
	rt *Runtime
	v  *Visit
}

var _ sim.Env = (*Env)(nil)

// NewEnv returns an Env of the runtime's module with no visit yet.
func (r *Runtime) NewEnv() *Env { return &Env{rt: r} }

// Visit returns the visit in progress (nil before Reset).
func (e *Env) Visit() *Visit { return e.v }

// Reset starts visit id in a pooled instance, then closes the Env's last
// one (which a failed Reset leaves as it was).
func (e *Env) Reset(ctx context.Context, id string) (sim.Turn, error) {
	v, obs, text, err := e.rt.Reset(ctx, id)
	if err != nil {
		return sim.Turn{}, err
	}
	e.Close()
	e.v = v
	return sim.Turn{Text: text, Events: obs.Events, Day: obs.Day, Step: obs.Frame.Step, Over: obs.Done}, nil
}

// Step takes action in the module.
func (e *Env) Step(ctx context.Context, action string) (sim.Turn, error) {
	if e.v == nil {
		return sim.Turn{}, sim.ErrNoVisit
	}
	r, err := e.v.StepText(ctx, action)
	if err != nil {
		return sim.Turn{}, err
	}
	return sim.Turn{Text: r.Text, Events: r.Events, Terminated: r.Terminated, Truncated: r.Truncated,
		DayOver: r.DayOver, Day: r.Day, Step: r.Step, Over: r.Over}, nil
}

// StepJSON is Step that also returns the observation after the step as
// the module wrote it (JSON), in the same call: for hosts that pass the
// observation on without reading it (the server's sessions), whom
// decoding and encoding it again would cost more than the step.
func (e *Env) StepJSON(ctx context.Context, action string) (sim.Turn, json.RawMessage, error) {
	if e.v == nil {
		return sim.Turn{}, nil, sim.ErrNoVisit
	}
	b, err := e.v.StepJSON(ctx, action)
	if err != nil {
		return sim.Turn{}, nil, err
	}
	var r struct {
		Observation json.RawMessage `json:"observation"`
		sim.Turn
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return sim.Turn{}, nil, fmt.Errorf("host: the module's step answer: %w", err)
	}
	return r.Turn, r.Observation, nil
}

// Observe returns the module's current observation.
func (e *Env) Observe(ctx context.Context) (*sim.Observation, error) {
	if e.v == nil {
		return nil, sim.ErrNoVisit
	}
	o, _, err := e.v.Observe(ctx)
	return o, err
}

// Probe returns the module's probe.
func (e *Env) Probe(ctx context.Context) (*sim.Probe, error) {
	if e.v == nil {
		return nil, sim.ErrNoVisit
	}
	return e.v.Probe(ctx)
}

// Answer answers the module's probe.
func (e *Env) Answer(ctx context.Context, k int, confidence *float64) (bool, error) {
	if e.v == nil {
		return false, sim.ErrNoVisit
	}
	return e.v.Answer(ctx, k, confidence)
}

// Record returns the module's record, with SimSHA256 the module's hash.
func (e *Env) Record(ctx context.Context, agent, client string) (sim.Record, error) {
	if e.v == nil {
		return sim.Record{}, sim.ErrNoVisit
	}
	return e.v.Record(ctx, agent, client)
}

// Close frees the visit's slot in its instance.
func (e *Env) Close() error {
	if e.v == nil {
		return nil
	}
	err := e.v.Close(context.Background())
	e.v = nil
	return err
}
