//go:build !js

package session

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/wasm/host"
)

// Wasm returns an Engine that steps visits inside sim.wasm under wazero
// (rt), passing the module's observation JSON on as it wrote it.
func Wasm(rt *host.Runtime) Engine { return wasmEngine{rt} }

type wasmEngine struct{ rt *host.Runtime }

func (w wasmEngine) Kind() string   { return "wasm" }
func (w wasmEngine) SHA256() string { return w.rt.SHA256() }

func (w wasmEngine) Reset(ctx context.Context, visit string) (Env, Frame, error) {
	v, _, _, err := w.rt.Reset(ctx, visit)
	if err != nil {
		return nil, Frame{}, err
	}
	e := &wasmEnv{v: v}
	f, err := e.Observe(ctx)
	if err != nil {
		v.Close(context.Background())
		return nil, Frame{}, err
	}
	return e, f, nil
}

type wasmEnv struct{ v *host.Visit }

// wasmStep is the module's step answer with the observation undecoded.
type wasmStep struct {
	Observation json.RawMessage `json:"observation"`
	Text        string          `json:"text"`
	Terminated  bool            `json:"terminated"`
	Truncated   bool            `json:"truncated"`
	DayOver     bool            `json:"day_over"`
	Day         int             `json:"day"`
	Step        int             `json:"step"`
	Over        bool            `json:"over"`
}

func (e *wasmEnv) Step(ctx context.Context, action string) (Frame, error) {
	b, err := e.v.StepJSON(ctx, action)
	if err != nil {
		return Frame{}, err
	}
	var s wasmStep
	if err := json.Unmarshal(b, &s); err != nil {
		return Frame{}, fmt.Errorf("session: the module's step answer: %w", err)
	}
	return Frame{Observation: s.Observation, Text: s.Text, Day: s.Day, Step: s.Step, Over: s.Over,
		Terminated: s.Terminated, Truncated: s.Truncated, DayOver: s.DayOver}, nil
}

func (e *wasmEnv) Skip(ctx context.Context, action string) error {
	_, err := e.v.StepTextJSON(ctx, action)
	return err
}

// wasmObserve is the module's observe answer; day, step and done are read
// from the observation.
type wasmObserve struct {
	Observation json.RawMessage `json:"observation"`
	Text        string          `json:"text"`
}

type obsHead struct {
	Day   int  `json:"day"`
	Done  bool `json:"done"`
	Frame struct {
		Step int `json:"step"`
	} `json:"frame"`
}

func (e *wasmEnv) Observe(ctx context.Context) (Frame, error) {
	b, err := e.v.ObserveJSON(ctx)
	if err != nil {
		return Frame{}, err
	}
	var o wasmObserve
	var h obsHead
	if err := json.Unmarshal(b, &o); err != nil {
		return Frame{}, fmt.Errorf("session: the module's observe answer: %w", err)
	}
	if err := json.Unmarshal(o.Observation, &h); err != nil {
		return Frame{}, fmt.Errorf("session: the module's observation: %w", err)
	}
	return Frame{Observation: o.Observation, Text: o.Text, Day: h.Day, Step: h.Frame.Step, Over: h.Done}, nil
}

func (e *wasmEnv) Probe(ctx context.Context) (*sim.Probe, error) {
	return e.v.Probe(ctx)
}

func (e *wasmEnv) Answer(ctx context.Context, k int) error {
	_, err := e.v.Answer(ctx, k)
	return err
}

func (e *wasmEnv) Record(ctx context.Context, agent, client string) (sim.Record, error) {
	return e.v.Record(ctx, agent, client)
}

func (e *wasmEnv) Close() { e.v.Close(context.Background()) }
