package sim

import (
	"errors"
	"fmt"

	"github.com/normgym/normgym/norms"
)

// Record is one finished visit in NormGym's result format, shared by every
// producer (the CLI, the browser, the server). Results files are JSON Lines
// of Records. Fields after Hash are filled in by the host that ran the
// visit (which sim.wasm, which suite).
type Record struct {
	Visit     string `json:"visit"`
	World     string `json:"world"`
	Norm      string `json:"norm"`
	Family    string `json:"family"`
	Condition string `json:"condition"`
	// Agent names the newcomer: a baseline name, a model name or "human".
	Agent string `json:"agent"`
	// Client is "baseline", "model" or "human".
	Client  string       `json:"client"`
	Actions []string     `json:"actions"`
	Events  []Event      `json:"events"`
	Scores  Scores       `json:"scores"`
	Probe   *ProbeResult `json:"probe,omitempty"`
	// Hash is the trajectory hash (Env.Hash).
	Hash       string `json:"hash"`
	SimVersion string `json:"sim_version"`
	Catalog    string `json:"catalog_version"`
	// SimSHA256 is the SHA-256 of the sim.wasm that produced the record,
	// or "native" for the Go core run directly.
	SimSHA256    string `json:"sim_sha256"`
	Suite        string `json:"suite,omitempty"`
	SuiteVersion string `json:"suite_version,omitempty"`
	// Extra holds producer-specific data (model usage, prompt variant…).
	Extra map[string]any `json:"extra,omitempty"`
}

// ProbeResult is the newcomer's answer to the probe.
type ProbeResult struct {
	Answer  int  `json:"answer"`
	Correct bool `json:"correct"`
	// Confidence is an optional self-report in [0, 1].
	Confidence *float64 `json:"confidence,omitempty"`
}

// Record returns the visit's record so far for a newcomer called agent of
// kind client.
func (e *Env) Record(agent, client string) Record {
	r := Record{
		Visit: e.id.String(), World: e.id.World, Norm: e.id.Norm, Condition: e.id.Condition,
		Agent: agent, Client: client, Actions: e.Actions(), Events: e.Events(), Scores: e.Scores(),
		Hash: e.Hash(), SimVersion: Version, Catalog: norms.Default().Version(),
	}
	if e.norm != nil {
		r.Family = e.norm.Family
	}
	if e.answer >= 0 {
		r.Probe = &ProbeResult{Answer: e.answer, Correct: e.probe.Correct(e.answer)}
	}
	return r
}

// MaxActions bounds the actions a replayed record may hold.
const MaxActions = (PracticeSteps + TestSteps) * 2

// Replay re-executes a record's visit id, actions and probe answer and
// returns the finished environment. It fails if an action does not parse,
// the actions run past the end of the visit or stop before it, or the probe
// answer is out of range. The record's own scores and hash are not trusted:
// compare them with the returned Env's.
func Replay(r Record) (*Env, error) {
	if len(r.Actions) > MaxActions {
		return nil, fmt.Errorf("sim: replay: %d actions, more than a visit can take (%d)", len(r.Actions), MaxActions)
	}
	env, _, err := NewEnv(r.Visit)
	if err != nil {
		return nil, err
	}
	for k, s := range r.Actions {
		a, err := ParseAction(s)
		if err != nil {
			return nil, fmt.Errorf("sim: replay: action %d: %w", k+1, err)
		}
		if _, err := env.advance(a); err != nil {
			if errors.Is(err, ErrVisitOver) {
				return nil, fmt.Errorf("sim: replay: the visit ended after %d actions, but the record has %d", k, len(r.Actions))
			}
			return nil, err
		}
	}
	if !env.Over() {
		return nil, fmt.Errorf("sim: replay: the visit is not over after the record's %d actions", len(r.Actions))
	}
	if r.Probe != nil {
		if _, err := env.Answer(r.Probe.Answer); err != nil {
			return nil, fmt.Errorf("sim: replay: %w", err)
		}
	}
	return env, nil
}
