// Package ui is the browser app's logic that needs no browser: typed calls
// to sim.wasm's JSON ABI, the play/watch controllers, HTML rendering of
// observations, key bindings, URL routes and result records. The GOOS=js
// program (web/app) only moves these strings in and out of the DOM, so all
// of this is tested natively against the same sim.wasm under wazero.
//
// Nothing here decides anything the simulation owns: what an action does,
// what is permitted, scores and hashes all come from sim.wasm.
package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/wasm/wire"
)

// Sim is a synchronous, JSON-in JSON-out call to an export of sim.wasm
// (wasm/ABI.md). Exports that take no request (info, norms) ignore req.
// A failure is a response of the form {"error":"..."}; Call itself never
// fails. In the browser it is the JS bridge; in tests, the wazero host.
type Sim interface {
	Call(export string, req []byte) []byte
}

// SimFunc adapts a function to Sim.
type SimFunc func(export string, req []byte) []byte

// Call calls f.
func (f SimFunc) Call(export string, req []byte) []byte { return f(export, req) }

// Error is an error response from sim.wasm, or a response the app could
// not read.
type Error struct {
	Export  string
	Message string
}

func (e *Error) Error() string { return "ui: " + e.Export + ": " + e.Message }

// Unwrap returns the error of sim.Env's contract that the module's message
// names (sim.ErrorFor), or nil.
func (e *Error) Unwrap() error { return sim.ErrorFor(e.Message) }

// Client makes typed calls to sim.wasm.
type Client struct {
	sim Sim
	// SHA256 is the hex SHA-256 of the sim.wasm behind sim, set into every
	// record this client builds.
	SHA256 string
}

// NewClient returns a client of s, whose module has the given SHA-256.
func NewClient(s Sim, sha256 string) *Client { return &Client{sim: s, SHA256: sha256} }

var errorPrefix = []byte(`{"error":`)

// Do calls export with req encoded as JSON (nil sends nothing) and decodes
// the response into resp (nil ignores it).
func (c *Client) Do(export string, req, resp any) error {
	var body []byte
	if req != nil {
		var err error
		if body, err = json.Marshal(req); err != nil {
			return &Error{export, "encoding the request: " + err.Error()}
		}
	}
	out := c.sim.Call(export, body)
	if bytes.HasPrefix(out, errorPrefix) {
		var e struct {
			Error string `json:"error"`
		}
		if err := json.Unmarshal(out, &e); err != nil {
			return &Error{export, "unreadable error response"}
		}
		return &Error{export, e.Error}
	}
	if resp == nil {
		return nil
	}
	if err := json.Unmarshal(out, resp); err != nil {
		return &Error{export, fmt.Sprintf("decoding the response: %v", err)}
	}
	return nil
}

// Info describes the module.
func (c *Client) Info() (Info, error) {
	var info Info
	err := c.Do("info", nil, &info)
	return info, err
}

// Norms returns the norm catalog.
func (c *Client) Norms() ([]Norm, error) {
	var ns []Norm
	err := c.Do("norms", nil, &ns)
	return ns, err
}

// Suite returns the suite called name with its visits.
func (c *Client) Suite(name string) (Suite, error) {
	var resp struct {
		Suites []Suite `json:"suites"`
	}
	if err := c.Do("suites", map[string]string{"name": name}, &resp); err != nil {
		return Suite{}, err
	}
	if len(resp.Suites) != 1 {
		return Suite{}, &Error{"suites", fmt.Sprintf("%d suites for %q", len(resp.Suites), name)}
	}
	return resp.Suites[0], nil
}

// bg is the context of the module's calls, which never block.
var bg = context.Background()

// Env is a visit inside the page's own module: sim.Env over the ABI's
// JSON (wasm/ABI.md), and the module's score for the day screens. The
// module's sim.Native keeps the contract; Env translates.
type Env struct {
	c      *Client
	Handle int
	Visit  string
}

var _ sim.Env = (*Env)(nil)

// NewEnv returns an Env of the client's module with no visit yet.
func (c *Client) NewEnv() *Env { return &Env{c: c} }

// Open opens the visit id in a new Env and returns it with its first
// screen.
func (c *Client) Open(visit string) (*Env, StepResponse, error) {
	e := c.NewEnv()
	t, err := e.Reset(bg, visit)
	if err != nil {
		return nil, StepResponse{}, err
	}
	first, err := Shown(e, t)
	if err != nil {
		e.Close()
		return nil, StepResponse{}, err
	}
	return e, first, nil
}

// Reset opens the visit id, then closes the Env's last one (which a
// failed Reset leaves as it was).
func (e *Env) Reset(_ context.Context, visit string) (sim.Turn, error) {
	var reset wire.ResetResponse
	if err := e.c.Do("reset", wire.ResetRequest{Visit: visit}, &reset); err != nil {
		return sim.Turn{}, err
	}
	o := reset.Observation
	if o == nil {
		return sim.Turn{}, &Error{"reset", "no observation"}
	}
	e.Close()
	e.Handle, e.Visit = reset.Handle, visit
	// reset's answer has no events of its own: the first observation's
	// events (the first day beginning) stand for them.
	return sim.Turn{Text: reset.Text, Events: o.Events, Day: o.Day, Step: o.Frame.Step, Over: o.Done}, nil
}

// Step makes the newcomer take action (its text form). The module leaves
// the structured observation out (Observe has it).
func (e *Env) Step(_ context.Context, action string) (sim.Turn, error) {
	if e.Handle == 0 {
		return sim.Turn{}, sim.ErrNoVisit
	}
	var resp StepResponse
	err := e.c.Do("step", wire.StepRequest{Handle: e.Handle, Action: action, TextOnly: true}, &resp)
	return resp.Turn(), err
}

// Observe returns the current observation.
func (e *Env) Observe(context.Context) (*Observation, error) {
	if e.Handle == 0 {
		return nil, sim.ErrNoVisit
	}
	var resp wire.ObserveResponse
	if err := e.c.Do("observe", wire.HandleRequest{Handle: e.Handle}, &resp); err != nil {
		return nil, err
	}
	if resp.Observation == nil {
		return nil, &Error{"observe", "no observation"}
	}
	return resp.Observation, nil
}

// Score returns the scores and trajectory hash so far.
func (e *Env) Score() (ScoreResponse, error) {
	var resp ScoreResponse
	err := e.c.Do("score", wire.HandleRequest{Handle: e.Handle}, &resp)
	return resp, err
}

// DayEnded sums up day d from the scores so far.
func (e *Env) DayEnded(d int) (DaySummary, error) {
	sc, err := e.Score()
	if err != nil {
		return DaySummary{Day: d}, err
	}
	sum := DaySummary{Day: d}
	sum.TaskDone, sum.Sanctions = sc.Scores.Day(d)
	return sum, nil
}

// Probe returns the visit's probe once it is over; control visits have
// none (an error wrapping sim.ErrNoProbe).
func (e *Env) Probe(context.Context) (*sim.Probe, error) {
	if e.Handle == 0 {
		return nil, sim.ErrNoVisit
	}
	var resp ProbeResponse
	if err := e.c.Do("probe", wire.HandleRequest{Handle: e.Handle}, &resp); err != nil {
		return nil, err
	}
	return &sim.Probe{Question: resp.Question, Options: resp.Options}, nil
}

// Answer answers the probe with option k (0-based) and, if not nil, a
// confidence that the record carries; it reports whether k is right.
func (e *Env) Answer(_ context.Context, k int, confidence *float64) (bool, error) {
	if e.Handle == 0 {
		return false, sim.ErrNoVisit
	}
	var resp wire.AnswerResponse
	err := e.c.Do("answer", wire.AnswerRequest{Handle: e.Handle, Answer: k, Confidence: confidence}, &resp)
	return resp.Correct, err
}

// Record returns the visit's record for a newcomer called agent of kind
// client ("human", "model"), with SimSHA256 set.
func (e *Env) Record(_ context.Context, agent, client string) (Record, error) {
	if e.Handle == 0 {
		return Record{}, sim.ErrNoVisit
	}
	var rec Record
	err := e.c.Do("record", wire.RecordRequest{Handle: e.Handle, Agent: agent, Client: client}, &rec)
	rec.SimSHA256 = e.c.SHA256
	return rec, err
}

// Close frees the visit's slot in the module. Closing twice is a no-op.
func (e *Env) Close() error {
	if e == nil || e.Handle == 0 {
		return nil
	}
	h := e.Handle
	e.Handle = 0
	return e.c.Do("close", wire.HandleRequest{Handle: h}, nil)
}

// Shown is what the screens draw after turn t of env: the turn with the
// observation it leads to.
func Shown(env sim.Env, t sim.Turn) (StepResponse, error) {
	o, err := env.Observe(bg)
	if err != nil {
		return StepResponse{}, err
	}
	return StepResponse{Observation: o, Text: t.Text, Events: t.Events, Terminated: t.Terminated, Truncated: t.Truncated,
		DayOver: t.DayOver, Day: t.Day, Step: t.Step, Over: t.Over}, nil
}

// StepShown steps env with action and returns what the screens draw.
func StepShown(env sim.Env, action string) (StepResponse, error) {
	t, err := env.Step(bg, action)
	if err != nil {
		return StepResponse{}, err
	}
	return Shown(env, t)
}

// RunBaseline plays a whole visit with a built-in baseline inside the
// module and returns its record.
func (c *Client) RunBaseline(visit, agent string) (Record, error) {
	var rec Record
	err := c.Do("run", wire.RunRequest{Visit: visit, Agent: agent}, &rec)
	rec.SimSHA256 = c.SHA256
	return rec, err
}

// Replay recomputes a record inside the module and compares it.
func (c *Client) Replay(rec Record) (ReplayResponse, error) {
	var resp ReplayResponse
	err := c.Do("replay", rec, &resp)
	return resp, err
}
