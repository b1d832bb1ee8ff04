package sim

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
)

// Env is the newcomer's environment: NormGym's one contract, whatever runs
// the visit. The native core (Native), sim.wasm under wazero (wasm/host),
// the server's sessions (serve/session), the browser's steppers
// (web/internal/ui) and a client of a live server (serve/remote) implement
// it; sim/simtest.CheckEnv holds each to the native core's trajectories,
// errors and silence about the norm. Nothing outside package sim and the
// module that embeds it steps a visit but through an Env.
//
// A visit goes: Reset; Step until a Turn says Over; then, unless it is a
// control visit, Probe and Answer; Record. Observe gives the structured
// observation of the moment at any time after Reset.
//
// The errors are sim's own wherever the visit runs (errors.Is holds across
// the wasm ABI and HTTP), and a call that fails changes nothing:
//
//   - before the first Reset every call fails with ErrNoVisit;
//   - Reset: ErrVisitID for an id that does not parse or names a norm the
//     Env's catalog lacks;
//   - Step: ErrVisitOver once the visit is over, else ErrAction for an
//     action that does not parse;
//   - Probe: ErrNotOver before the visit is over (under control too: the
//     lack of a probe must not tell the condition early), then ErrNoProbe
//     on a control visit, which has none;
//   - Answer: as Probe, then ErrBadAnswer for an option out of range,
//     ErrBadConfidence for a confidence outside [0, 1], and ErrAnswered
//     for a second answer with another option (the same option again is a
//     retry: it answers as the first did);
//   - Record: an Env whose visit runs on a server gives the record only
//     once the visit is done (the probe answered, or a control visit over)
//     and fails with ErrNotOver before; the others give the record so far.
//
// An Env is not safe for concurrent use. Implementations translate between
// the contract and their transport; they hold no rules of their own: what
// an action does, when a visit ends and whether it has a probe are the
// core's to say.
type Env interface {
	// Reset starts the visit named by visit (see ParseVisitID) and returns
	// its first turn. A visit the Env held before is closed. An Env that
	// asks a server for its visit may take "" for the visit the server
	// assigns (a sealed session).
	Reset(ctx context.Context, visit string) (Turn, error)
	// Step makes the newcomer take action (its text form, see
	// ParseAction), lets every member act, and returns the turn.
	Step(ctx context.Context, action string) (Turn, error)
	// Observe returns the current observation, a copy the caller owns.
	Observe(ctx context.Context) (*Observation, error)
	// Probe returns the question after the visit: which of four
	// statements was the rule.
	Probe(ctx context.Context) (*Probe, error)
	// Answer answers the probe with option k (0-based) and, if not nil, a
	// confidence in [0, 1] that the record carries; it reports whether k
	// is the rule.
	Answer(ctx context.Context, k int, confidence *float64) (bool, error)
	// Record returns the visit's record for a newcomer called agent of
	// kind client ("human", "model", "baseline"), with SimSHA256 naming
	// what ran it. A server's session names the newcomer itself.
	Record(ctx context.Context, agent, client string) (Record, error)
	// Close frees what the Env holds (a module's slot; a server's session
	// waits there until it expires). Closing twice is harmless.
	Close() error
}

// Turn is where a visit stands after a reset or a step, as every Env
// reports it: the text the newcomer reads and what the step did. The
// structured observation is Env.Observe's.
type Turn struct {
	// Text is the observation's text form (Observation.Text), rendered by
	// the sim: the prompt a language model reads.
	Text string `json:"text"`
	// Events are the step's visible events (after a reset, the first day
	// beginning).
	Events []Event `json:"events"`
	// Terminated: the visit ended because the test-day task was done.
	// Truncated: it ended because the test day ran out of steps.
	Terminated bool `json:"terminated"`
	Truncated  bool `json:"truncated"`
	// DayOver reports that a day ended on this step.
	DayOver bool `json:"day_over"`
	// Day (1-based) and Step say where the visit stands after the step;
	// Over that it has ended.
	Day  int  `json:"day"`
	Step int  `json:"step"`
	Over bool `json:"over"`
	// Wire is the observation as a server delivered it (OpenEnv's
	// observation object, the session API's observation and text), for
	// Envs whose visit runs elsewhere: what an agent wrapper would hand a
	// model. It is nil for Envs that run the visit themselves. CheckEnv
	// holds it to the same silence about the norm as Text.
	Wire json.RawMessage `json:"-"`
}

// TurnOf is the turn of observation o after a step whose result is res
// (for a reset, res holds only o's events), with its own copy of the
// events.
func TurnOf(o *Observation, res StepResult) Turn {
	return Turn{Text: o.Text(), Events: slices.Clone(res.Events), Terminated: res.Terminated, Truncated: res.Truncated,
		DayOver: res.DayOver, Day: o.Day, Step: o.Frame.Step, Over: o.Done}
}

// The errors of the contract that StepResult and the Visit do not define
// already (ErrVisitID, ErrAction, ErrVisitOver, ErrNoProbe, ErrBadAnswer).
var (
	// ErrNoVisit is every call's error before an Env's first Reset.
	ErrNoVisit = errors.New("sim: no visit: reset one first")
	// ErrNotOver is the error of Probe and Answer before the visit is
	// over, and of a server's Record before it is done.
	ErrNotOver = errors.New("sim: the visit is not over yet")
	// ErrAnswered is Answer's error for a second answer with another
	// option.
	ErrAnswered = errors.New("sim: the probe is answered already")
	// ErrBadConfidence is Answer's error for a confidence outside [0, 1].
	ErrBadConfidence = errors.New("sim: probe confidence out of range (want 0 to 1)")
)

// contractErrors are the errors an Env reports, for ErrorFor.
var contractErrors = []error{ErrVisitID, ErrAction, ErrVisitOver, ErrNoProbe, ErrBadAnswer,
	ErrNoVisit, ErrNotOver, ErrAnswered, ErrBadConfidence}

// ErrorFor returns the error of the contract whose text starts msg
// ("sim: bad action: …" gives ErrAction), or nil: for hosts that receive
// sim's errors as text (the wasm module's error values) and wrap it, so
// that errors.Is holds on both sides.
func ErrorFor(msg string) error {
	for _, e := range contractErrors {
		if strings.HasPrefix(msg, e.Error()) {
			return e
		}
	}
	return nil
}
