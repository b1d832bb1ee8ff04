package sim

import (
	"errors"
	"fmt"
	"slices"

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
	// Variant is the sanction variant, if any (see VisitID).
	Variant string `json:"variant,omitempty"`
	// Agent names the newcomer: a baseline name, a model name or "human".
	Agent string `json:"agent"`
	// Client is "baseline", "model" or "human".
	Client  string       `json:"client"`
	Actions []string     `json:"actions"`
	Events  []Event      `json:"events"`
	Scores  Scores       `json:"scores"`
	Probe   *ProbeResult `json:"probe,omitempty"`
	// Hash is the trajectory hash (Visit.Hash).
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
func (e *Visit) Record(agent, client string) Record {
	r := Record{
		Visit: e.id.String(), World: e.id.World, Norm: e.id.Norm, Condition: e.id.Condition, Variant: e.id.Variant,
		Agent: agent, Client: client, Actions: e.Actions(), Events: e.Events(), Scores: e.Scores(),
		Hash: e.Hash(), SimVersion: Version, Catalog: e.cat.Version(),
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
// compare them with the returned Visit's.
func Replay(r Record) (*Visit, error) { return ReplayIn(norms.Default(), r) }

// ReplayIn is Replay for a visit of catalog cat (see NewVisitIn).
func ReplayIn(cat *norms.Catalog, r Record) (*Visit, error) {
	if len(r.Actions) > MaxActions {
		return nil, fmt.Errorf("sim: replay: %d actions, more than a visit can take (%d)", len(r.Actions), MaxActions)
	}
	env, _, err := NewVisitIn(cat, r.Visit)
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

// Verify re-executes rec (see Replay) and returns the recomputed record and
// the fields where rec disagrees with it (see DiffRecords). The recomputed
// record carries over what nothing can check: agent, client, the probe
// confidence, suite, suite version and extra. SimSHA256 is left for the
// host to set.
func Verify(rec Record) (Record, []string, error) { return VerifyIn(norms.Default(), rec) }

// VerifyIn is Verify for a record of a visit of catalog cat (see NewVisitIn).
func VerifyIn(cat *norms.Catalog, rec Record) (Record, []string, error) {
	env, err := ReplayIn(cat, rec)
	if err != nil {
		return Record{}, nil, err
	}
	out := env.Record(rec.Agent, rec.Client)
	if rec.Probe != nil && out.Probe != nil {
		out.Probe.Confidence = rec.Probe.Confidence
	}
	out.Suite, out.SuiteVersion, out.Extra = rec.Suite, rec.SuiteVersion, rec.Extra
	return out, DiffRecords(rec, out), nil
}

// DiffRecords lists the verifiable fields where got (submitted) differs
// from want (recomputed), in Record field order: "world", "norm",
// "family", "condition", "actions", "events" (only when got has events),
// "scores.<field>" (day_repeats after repeats), "probe" (present in only one), "probe.answer",
// "probe.correct", "probe.confidence" (outside [0, 1]), "hash",
// "sim_version", "catalog_version". Every host (the wasm module, the
// servers, the CLI) reports these names.
func DiffRecords(got, want Record) []string {
	diffs := []string{}
	add := func(differ bool, name string) {
		if differ {
			diffs = append(diffs, name)
		}
	}
	add(got.World != want.World, "world")
	add(got.Norm != want.Norm, "norm")
	add(got.Family != want.Family, "family")
	add(got.Condition != want.Condition, "condition")
	add(!slices.Equal(got.Actions, want.Actions), "actions")
	add(got.Events != nil && !slices.Equal(got.Events, want.Events), "events")
	gs, ws := got.Scores, want.Scores
	add(gs.Task != ws.Task, "scores.task")
	add(gs.Compliance != ws.Compliance, "scores.compliance")
	add(gs.Joint != ws.Joint, "scores.joint")
	add(gs.PracticeTask != ws.PracticeTask, "scores.practice_task")
	add(!slices.Equal(gs.Violations, ws.Violations), "scores.violations")
	add(!slices.Equal(gs.Sanctions, ws.Sanctions), "scores.sanctions")
	add(!slices.Equal(gs.Steps, ws.Steps), "scores.steps")
	add(gs.SanctionsReceived != ws.SanctionsReceived, "scores.sanctions_received")
	add(gs.Repeats != ws.Repeats, "scores.repeats")
	add(!slices.Equal(gs.DayRepeats, ws.DayRepeats), "scores.day_repeats")
	switch {
	case (got.Probe == nil) != (want.Probe == nil):
		add(true, "probe")
	case got.Probe != nil:
		add(got.Probe.Answer != want.Probe.Answer, "probe.answer")
		add(got.Probe.Correct != want.Probe.Correct, "probe.correct")
		if c := got.Probe.Confidence; c != nil {
			add(!(*c >= 0 && *c <= 1), "probe.confidence")
		}
	}
	add(got.Hash != want.Hash, "hash")
	add(got.SimVersion != want.SimVersion, "sim_version")
	add(got.Catalog != want.Catalog, "catalog_version")
	return diffs
}
