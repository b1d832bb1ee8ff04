package cli

import (
	"context"
	"fmt"

	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/wasm/host"
)

// stepEngine starts visits that a model plays step by step.
type stepEngine interface {
	start(ctx context.Context, visit string) (stepVisit, *sim.Observation, string, error)
}

// stepVisit is a visit in progress in either engine.
type stepVisit interface {
	step(ctx context.Context, action string) (stepResult, error)
	// probe returns nil for a control visit.
	probe(ctx context.Context) (*sim.Probe, error)
	answer(ctx context.Context, k int) error
	record(ctx context.Context, agent string) (sim.Record, error)
	close()
}

type stepResult struct {
	text          string
	events        []sim.Event
	dayOver, done bool
	day, step     int // where the visit stands after the step
}

func stepEngineFor(eng engine) (stepEngine, error) {
	switch e := eng.(type) {
	case nativeEngine:
		return nativeSteps{}, nil
	case *wasmEngine:
		return wasmSteps{e.rt}, nil
	}
	return nil, fmt.Errorf("eval: engine %T cannot run visits step by step", eng)
}

type nativeSteps struct{}

func (nativeSteps) start(_ context.Context, id string) (stepVisit, *sim.Observation, string, error) {
	env, obs, err := sim.NewVisit(id)
	if err != nil {
		return nil, nil, "", err
	}
	return nativeVisit{env}, obs, obs.Text(), nil
}

type nativeVisit struct{ env *sim.Visit }

func (v nativeVisit) step(_ context.Context, action string) (stepResult, error) {
	a, err := sim.ParseAction(action)
	if err != nil {
		return stepResult{}, err
	}
	res, err := v.env.Step(a)
	if err != nil {
		return stepResult{}, err
	}
	o := res.Observation
	return stepResult{o.Text(), res.Events, res.DayOver, res.Done(), o.Day, o.Frame.Step}, nil
}

func (v nativeVisit) probe(context.Context) (*sim.Probe, error) { return v.env.Probe(), nil }

func (v nativeVisit) answer(_ context.Context, k int) error {
	_, err := v.env.Answer(k)
	return err
}

func (v nativeVisit) record(_ context.Context, agent string) (sim.Record, error) {
	r := v.env.Record(agent, "model")
	r.SimSHA256 = "native"
	return r, nil
}

func (nativeVisit) close() {}

type wasmSteps struct{ rt *host.Runtime }

func (w wasmSteps) start(ctx context.Context, id string) (stepVisit, *sim.Observation, string, error) {
	vid, err := sim.ParseVisitID(id)
	if err != nil {
		return nil, nil, "", err
	}
	v, obs, text, err := w.rt.Reset(ctx, id)
	if err != nil {
		return nil, nil, "", err
	}
	return &wasmVisit{v: v, control: vid.Condition == sim.Control}, obs, text, nil
}

type wasmVisit struct {
	v       *host.Visit
	control bool
}

func (w *wasmVisit) step(ctx context.Context, action string) (stepResult, error) {
	res, err := w.v.StepText(ctx, action)
	if err != nil {
		return stepResult{}, err
	}
	return stepResult{res.Text, res.Events, res.DayOver, res.Done(), res.Day, res.Step}, nil
}

func (w *wasmVisit) probe(ctx context.Context) (*sim.Probe, error) {
	if w.control {
		return nil, nil
	}
	return w.v.Probe(ctx)
}

func (w *wasmVisit) answer(ctx context.Context, k int) error {
	_, err := w.v.Answer(ctx, k, nil)
	return err
}

func (w *wasmVisit) record(ctx context.Context, agent string) (sim.Record, error) {
	return w.v.Record(ctx, agent, "model")
}

func (w *wasmVisit) close() { w.v.Close(context.Background()) }
