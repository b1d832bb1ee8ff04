package ui

import (
	"errors"

	"github.com/normgym/normgym/sim"
)

// Stage is where a human's visit stands.
type Stage int

// The stages of a visit, in order.
const (
	StageConsent Stage = iota // consent and instructions
	StageDay                  // the screen before a day
	StagePlay                 // acting on the grid
	StageProbe                // which was the rule?
	StageResult               // scores, the rule, baselines
)

// Play is a human's visit: the newcomer's side of one sim.wasm
// environment, moved through the stages by the UI. All game decisions
// are the module's; Play only keeps what the screens show.
type Play struct {
	C     *Client
	Visit Resolved
	Env   Stepper
	Stage Stage
	// Last is the latest response: the observation on screen and the
	// events of the last step.
	Last StepResponse
	// Ended sums up the day that just ended (set on the test day's
	// transition screen).
	Ended *DaySummary
	// Probe is the visit's probe (not for control visits).
	Probe *ProbeResponse
	// Record is the finished visit's record (StageResult).
	Record *Record
	// Agent and Client name the newcomer in the record.
	Agent, Client string
	// Journal, if not nil, keeps the visit's progress after every change
	// (see Resume).
	Journal Journal
	// Actions are the actions taken so far, in order.
	Actions []string
	// First is the fingerprint of the visit's first observation.
	First      string
	answer     int
	confidence float64
}

// NewPlay opens visit v for a newcomer called agent of kind client
// ("human" or "model").
func NewPlay(c *Client, v Resolved, agent, client string) (*Play, error) {
	env, first, err := c.Open(v.ID)
	if err != nil {
		return nil, err
	}
	return &Play{C: c, Visit: v, Env: env, Last: first, Agent: agent, Client: client, First: Fingerprint(first), answer: -1}, nil
}

// Obs is the observation on screen.
func (p *Play) Obs() *Observation { return p.Last.Observation }

// Start leaves the consent screen for the first day's screen.
func (p *Play) Start() {
	if p.Stage == StageConsent {
		p.Stage = StageDay
		p.keep()
	}
}

// Begin leaves a day's screen for the grid.
func (p *Play) Begin() {
	if p.Stage == StageDay {
		p.Stage = StagePlay
		p.keep()
	}
}

// Act sends an action (its text form) to the module. It returns the step's
// response; the stage moves on when a day or the visit ends. Outside
// StagePlay it does nothing and returns false.
func (p *Play) Act(action string) (StepResponse, bool, error) {
	if p.Stage != StagePlay {
		return StepResponse{}, false, nil
	}
	r, err := StepShown(p.Env, action)
	if err != nil {
		return r, false, err
	}
	p.Actions = append(p.Actions, action)
	defer p.keep()
	prev := p.Last.Observation
	p.Last = r
	switch {
	case r.Done():
		p.Stage = StageProbe
		pr, err := p.Env.Probe(bg)
		if errors.Is(err, sim.ErrNoProbe) {
			p.Probe = nil
			// Control visits have no probe: straight to the result.
			return r, true, p.Finish(-1, 0)
		} else if err != nil {
			return r, true, err
		}
		p.Probe = &ProbeResponse{Question: pr.Question, Options: pr.Options}
	case r.DayOver:
		sum, err := p.Env.DayEnded(prev.Day)
		if err != nil {
			return r, true, err
		}
		p.Ended = &sum
		p.Stage = StageDay
	}
	return r, true, nil
}

// Finish answers the probe with option k (0-based; k < 0 for none) and
// confidence (held to [0, 1]), and builds the record, which carries both.
func (p *Play) Finish(k int, confidence float64) error {
	if p.Stage != StageProbe {
		return nil
	}
	if k >= 0 && p.Probe != nil {
		c := min(max(confidence, 0), 1)
		if _, err := p.Env.Answer(bg, k, &c); err != nil {
			return err
		}
	}
	rec, err := p.Env.Record(bg, p.Agent, p.Client)
	if err != nil {
		return err
	}
	if p.Visit.Suite != "" {
		rec.Suite, rec.SuiteVersion = p.Visit.Suite, p.Visit.SuiteVersion
	}
	if rec.Extra == nil {
		rec.Extra = map[string]any{"app": "normgym-web"}
	}
	p.Record = &rec
	p.Stage = StageResult
	p.answer, p.confidence = k, confidence
	p.keep()
	return nil
}

// Close frees the environment (a Play waiting for its session has none).
func (p *Play) Close() {
	if p.Env != nil {
		p.Env.Close()
	}
}

// Baselines runs every built-in baseline on the visit inside the module.
func (c *Client) Baselines(visit string, agents []string) []Outcome {
	out := make([]Outcome, 0, len(agents))
	for _, a := range agents {
		rec, err := c.RunBaseline(visit, a)
		o := Outcome{Name: a, Record: rec}
		if err != nil {
			o.Err = err.Error()
		}
		out = append(out, o)
	}
	return out
}

// FindNorm returns the catalog entry with id, or nil.
func FindNorm(ns []Norm, id string) *Norm {
	for i := range ns {
		if ns[i].ID == id {
			return &ns[i]
		}
	}
	return nil
}
