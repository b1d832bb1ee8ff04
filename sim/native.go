package sim

import (
	"context"

	"github.com/normgym/normgym/norms"
)

// Native is the Env of the native core: the visit runs in this process's
// sim. It is where the contract's rules about the probe live (asked after
// the end, answered once), so the wasm module, which keeps one Native per
// handle, follows them by construction. The zero value is ready to use.
type Native struct {
	// Catalog holds the norms of the visits it resets (nil: the public
	// catalog, norms.Default); see NewVisitIn.
	Catalog *norms.Catalog
	// SimSHA256 is what its records say ran the visit (Record.SimSHA256):
	// "native" on the command line, the sim.wasm built from the same
	// source on a server, "" inside the module (the host fills it in).
	SimSHA256 string

	v          *Visit
	obs        *Observation // reused by every step (see Visit.StepInto)
	confidence *float64
}

var _ Env = (*Native)(nil)

// Visit returns the visit in progress (nil before the first Reset): the
// core itself, for hosts that need more than the contract (the module's
// score export, a trajectory hash). Step the visit through the Native, not
// through it.
func (n *Native) Visit() *Visit { return n.v }

// Reset starts the visit id.
func (n *Native) Reset(_ context.Context, id string) (Turn, error) {
	cat := n.Catalog
	if cat == nil {
		cat = norms.Default()
	}
	v, obs, err := NewVisitIn(cat, id)
	if err != nil {
		return Turn{}, err
	}
	n.v, n.obs, n.confidence = v, obs, nil
	return TurnOf(obs, StepResult{Events: obs.Events}), nil
}

// Step takes action.
func (n *Native) Step(_ context.Context, action string) (Turn, error) {
	res, err := n.StepObserve(action)
	if err != nil {
		return Turn{}, err
	}
	return TurnOf(res.Observation, res), nil
}

// StepObserve is Step with the core's result: the structured observation
// beside the events, written into a buffer the Native reuses (valid until
// its next step), for hosts that encode it at once (the wasm module). Its
// errors are Step's.
func (n *Native) StepObserve(action string) (StepResult, error) {
	if n.v == nil {
		return StepResult{}, ErrNoVisit
	}
	if n.v.Over() {
		return StepResult{}, ErrVisitOver
	}
	a, err := ParseAction(action)
	if err != nil {
		return StepResult{}, err
	}
	return n.v.StepInto(a, n.obs)
}

// Observe returns the current observation.
func (n *Native) Observe(context.Context) (*Observation, error) {
	if n.v == nil {
		return nil, ErrNoVisit
	}
	return n.v.Observe(), nil
}

// Probe returns the probe once the visit is over.
func (n *Native) Probe(context.Context) (*Probe, error) {
	if n.v == nil {
		return nil, ErrNoVisit
	}
	if !n.v.Over() {
		return nil, ErrNotOver
	}
	p := n.v.Probe()
	if p == nil {
		return nil, ErrNoProbe
	}
	return p, nil
}

// Answer answers the probe.
func (n *Native) Answer(ctx context.Context, k int, confidence *float64) (bool, error) {
	p, err := n.Probe(ctx)
	if err != nil {
		return false, err
	}
	if prev := n.v.ProbeAnswer(); prev >= 0 {
		if prev != k {
			return false, ErrAnswered
		}
		return p.Correct(k), nil
	}
	if confidence != nil && !(*confidence >= 0 && *confidence <= 1) {
		return false, ErrBadConfidence
	}
	correct, err := n.v.Answer(k)
	if err != nil {
		return false, err
	}
	if confidence != nil {
		c := *confidence
		n.confidence = &c
	}
	return correct, nil
}

// Record returns the record so far, with the answer's confidence.
func (n *Native) Record(_ context.Context, agent, client string) (Record, error) {
	if n.v == nil {
		return Record{}, ErrNoVisit
	}
	r := n.v.Record(agent, client)
	if r.Probe != nil && n.confidence != nil {
		c := *n.confidence
		r.Probe.Confidence = &c
	}
	r.SimSHA256 = n.SimSHA256
	return r, nil
}

// Close forgets the visit.
func (n *Native) Close() error {
	n.v, n.obs, n.confidence = nil, nil, nil
	return nil
}
