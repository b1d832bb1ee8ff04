// Package remote is sim.Env over a live `normgym serve`, through OpenEnv's
// routes: POST /reset and /step over HTTP (HTTP), or the /ws WebSocket
// session (WS). The server steps the visit; the Env translates its answers
// into the contract's turns, observations and errors (api.SimError) and
// holds no rules. With a submitter key the session's run is stored under
// the key's label; without, it is a practice session.
//
// It is what sim/simtest.CheckEnv plays against a live server, and a Go
// client of the server for anyone's agent:
//
//	env := remote.HTTP("http://127.0.0.1:8080", remote.Options{})
//	defer env.Close()
//	t, err := env.Reset(ctx, "orchard/place.color=blue/observe/s17")
//	for err == nil && !t.Over {
//		t, err = env.Step(ctx, policy(t.Text))
//	}
package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/sim"
)

// Options configure an Env.
type Options struct {
	// Key is a submitter key, sent as Authorization: Bearer when a
	// session opens ("" for practice).
	Key string
	// Client makes the HTTP requests (nil: http.DefaultClient).
	Client *http.Client
	// Agent names the newcomer of a practice session (without Key): its
	// record's agent ("": the server's "practice").
	Agent string
	// Suite is the suite whose visit a Reset with visit "" asks for: with
	// Key, the key's next sealed visit of it (the server assigns it and
	// stores the run); without, a random practice visit of it ("": the
	// server's practice suite).
	Suite string
}

// Env is a session of a live server as a sim.Env. Like every Env it is
// not safe for concurrent use.
type Env struct {
	t     transport
	suite string
	agent string
	token string       // the session's token (OpenEnv's session_id)
	last  *observation // the server's latest observation
	probe *sim.Probe   // the probe, once the server showed it
	// resumedAt is the actions the session had taken when Reset opened it.
	resumedAt int
	// actions are the actions this Env sent, answer the probe answer it
	// gave: what a private suite's record, which the server keeps, holds.
	actions []string
	answer  int
}

var _ sim.Env = (*Env)(nil)

// transport carries OpenEnv's reset and step to the server and brings back
// the result (OpenEnv's ResetResponse and StepResponse: observation,
// reward, done, metadata) or the server's refusal (*Refusal).
type transport interface {
	reset(ctx context.Context, req resetRequest) ([]byte, error)
	step(ctx context.Context, token string, action any) ([]byte, error)
	close() error
}

// resetRequest is OpenEnv's ResetRequest with NormGym's visit or suite
// and the stateful extension's session (the key, if any, goes as
// Authorization: Bearer).
type resetRequest struct {
	Visit   string `json:"visit,omitempty"`
	Suite   string `json:"suite,omitempty"`
	Agent   string `json:"agent,omitempty"`
	Session bool   `json:"session,omitempty"`
}

// Refusal is the server's refusal of a request: its HTTP status (or, over
// /ws, the status it stands for), NormGym's code and the message. Errors
// of the contract wrap it.
type Refusal struct {
	Status  int
	Code    string
	Message string
}

func (r *Refusal) Error() string {
	return fmt.Sprintf("remote: the server refused (%d %s): %s", r.Status, r.Code, r.Message)
}

// refusal is a Refusal that stands for an error of the contract.
type refusal struct {
	r  *Refusal
	is error
}

func (e *refusal) Error() string   { return e.r.Error() }
func (e *refusal) Unwrap() []error { return []error{e.r, e.is} }

// contractError gives a refusal of call the contract's error it stands
// for (api.SimError).
func contractError(call string, err error) error {
	var r *Refusal
	if !errors.As(err, &r) {
		return err
	}
	if is := api.SimError(call, r.Status, r.Message); is != nil {
		return &refusal{r: r, is: is}
	}
	return err
}

// result is OpenEnv's result, the observation kept as the server sent it.
type result struct {
	Observation json.RawMessage `json:"observation"`
	Done        bool            `json:"done"`
}

// observation is NormGym's OpenEnv observation (serve/server).
type observation struct {
	Text       string             `json:"text"`
	JSON       json.RawMessage    `json:"json"`
	Stage      string             `json:"stage"`
	Actions    int                `json:"actions"`
	Day        int                `json:"day"`
	Step       int                `json:"step"`
	Terminated bool               `json:"terminated"`
	Truncated  bool               `json:"truncated"`
	DayOver    bool               `json:"day_over"`
	Probe      *api.Probe         `json:"probe"`
	Result     *api.SessionResult `json:"result"`
}

// take reads a result and keeps its observation as the latest.
func (e *Env) take(b []byte) (sim.Turn, error) {
	var r result
	if err := json.Unmarshal(b, &r); err != nil {
		return sim.Turn{}, fmt.Errorf("remote: the server's result: %w", err)
	}
	var o observation
	if err := json.Unmarshal(r.Observation, &o); err != nil {
		return sim.Turn{}, fmt.Errorf("remote: the server's observation: %w", err)
	}
	var so sim.Observation
	if err := json.Unmarshal(o.JSON, &so); err != nil {
		return sim.Turn{}, fmt.Errorf("remote: the sim's observation: %w", err)
	}
	e.last = &o
	if o.Probe != nil {
		e.probe = &sim.Probe{Question: o.Probe.Question, Options: o.Probe.Options}
	}
	return sim.Turn{Text: o.Text, Events: so.Events, Terminated: o.Terminated, Truncated: o.Truncated, DayOver: o.DayOver,
		Day: o.Day, Step: o.Step, Over: o.Stage != api.StagePlay, Wire: r.Observation}, nil
}

// Reset opens a session of the visit named ("" for a random one of the
// server's practice suite or Options.Suite, or, with a key and
// Options.Suite, the key's next sealed visit of it).
func (e *Env) Reset(ctx context.Context, visit string) (sim.Turn, error) {
	req := resetRequest{Visit: visit, Agent: e.agent}
	if visit == "" {
		req.Suite = e.suite
	}
	b, err := e.t.reset(ctx, req)
	if err != nil {
		return sim.Turn{}, contractError("reset", err)
	}
	var meta struct {
		Metadata struct {
			SessionID string `json:"session_id"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(b, &meta); err != nil || meta.Metadata.SessionID == "" {
		return sim.Turn{}, fmt.Errorf("remote: the reset's answer names no session: %v", err)
	}
	prevLast, prevProbe := e.last, e.probe
	e.probe = nil
	t, err := e.take(b)
	if err != nil {
		e.last, e.probe = prevLast, prevProbe
		return sim.Turn{}, err
	}
	e.token = meta.Metadata.SessionID
	e.resumedAt, e.actions = e.last.Actions, nil
	return t, nil
}

// ResumedAt is how many actions the session had taken when the last Reset
// opened it: 0 for a new session; more when the server resumed an open
// one (a key's sealed session left mid-visit: the key's next reset of the
// suite resumes it, since every sealed session counts).
func (e *Env) ResumedAt() int { return e.resumedAt }

// Step sends the action.
func (e *Env) Step(ctx context.Context, action string) (sim.Turn, error) {
	if e.token == "" {
		return sim.Turn{}, sim.ErrNoVisit
	}
	b, err := e.t.step(ctx, e.token, struct {
		Action string `json:"action"`
	}{action})
	if err != nil {
		return sim.Turn{}, contractError("step", err)
	}
	t, err := e.take(b)
	if err == nil {
		e.actions = append(e.actions, action)
	}
	return t, err
}

// Observe returns the observation of the server's latest answer.
func (e *Env) Observe(context.Context) (*sim.Observation, error) {
	if e.last == nil {
		return nil, sim.ErrNoVisit
	}
	var o sim.Observation
	if err := json.Unmarshal(e.last.JSON, &o); err != nil {
		return nil, fmt.Errorf("remote: the sim's observation: %w", err)
	}
	return &o, nil
}

// Probe returns the probe the server showed when the visit ended.
func (e *Env) Probe(context.Context) (*sim.Probe, error) {
	switch {
	case e.last == nil:
		return nil, sim.ErrNoVisit
	case e.last.Stage == api.StagePlay:
		return nil, sim.ErrNotOver
	case e.probe == nil:
		return nil, sim.ErrNoProbe
	}
	p := *e.probe
	p.Options = append([]string(nil), p.Options...)
	return &p, nil
}

// Answer sends the probe's answer.
func (e *Env) Answer(ctx context.Context, k int, confidence *float64) (bool, error) {
	if e.token == "" {
		return false, sim.ErrNoVisit
	}
	b, err := e.t.step(ctx, e.token, struct {
		Answer     int      `json:"answer"`
		Confidence *float64 `json:"confidence,omitempty"`
	}{k, confidence})
	if err != nil {
		return false, contractError("answer", err)
	}
	if _, err := e.take(b); err != nil {
		return false, err
	}
	e.answer = k
	if r := e.last.Result; r != nil && r.ProbeCorrect != nil {
		return *r.ProbeCorrect, nil
	}
	return false, errors.New("remote: the server's answer says nothing of the probe")
}

// Record returns the record the server shows once the visit is done. The
// server never shows a private suite's visit: its record is then what the
// client knows, with PrivateVisit(run id) for its visit (see PrivateVisit).
func (e *Env) Record(_ context.Context, agent, client string) (sim.Record, error) {
	if e.last == nil {
		return sim.Record{}, sim.ErrNoVisit
	}
	if e.last.Stage != api.StageDone {
		return sim.Record{}, sim.ErrNotOver
	}
	res := e.last.Result
	if res == nil {
		return sim.Record{}, errors.New("remote: the server's last answer holds no result")
	}
	if res.Record != nil {
		return *res.Record, nil
	}
	rec := sim.Record{Visit: PrivateVisit(res.RunID), Agent: agent, Client: client, Actions: append([]string(nil), e.actions...),
		Scores: res.Scores, Suite: e.suite}
	if res.ProbeCorrect != nil {
		rec.Probe = &sim.ProbeResult{Answer: e.answer, Correct: *res.ProbeCorrect}
	}
	return rec, nil
}

// PrivateVisit is the visit a record of a private suite's visit names:
// the run the server stored ("private:RUN_ID"). Its world, norm and
// condition stay the server's; such a record is summed up by its scores
// and can be replayed only by the operator, who holds the suite.
func PrivateVisit(runID string) string { return PrivatePrefix + runID }

// PrivatePrefix starts every PrivateVisit.
const PrivatePrefix = "private:"

// Close ends the transport (the session waits on the server until it
// expires).
func (e *Env) Close() error {
	e.token = ""
	return e.t.close()
}

// endpoint is base with path, without a doubled slash.
func endpoint(base, path string) string { return strings.TrimRight(base, "/") + path }
