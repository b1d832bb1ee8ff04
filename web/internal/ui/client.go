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
	"encoding/json"
	"fmt"
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

// Env is an open visit inside the module.
type Env struct {
	c      *Client
	Handle int
	Visit  string
	closed bool
}

// Reset opens the visit id and returns it with its first observation.
func (c *Client) Reset(visit string) (*Env, StepResponse, error) {
	var reset wire.ResetResponse
	if err := c.Do("reset", wire.ResetRequest{Visit: visit}, &reset); err != nil {
		return nil, StepResponse{}, err
	}
	if reset.Observation == nil {
		return nil, StepResponse{}, &Error{"reset", "no observation"}
	}
	// reset's answer has no events of its own: the first observation's
	// events (the first day beginning) stand for them.
	resp := StepResponse{Observation: reset.Observation, Text: reset.Text, Events: reset.Observation.Events,
		Day: reset.Observation.Day, Step: reset.Observation.Frame.Step}
	return &Env{c: c, Handle: reset.Handle, Visit: visit}, resp, nil
}

// Step makes the newcomer take action (its canonical text form).
func (e *Env) Step(action string) (StepResponse, error) {
	var resp StepResponse
	err := e.c.Do("step", wire.StepRequest{Handle: e.Handle, Action: action}, &resp)
	if err == nil && resp.Observation == nil {
		err = &Error{"step", "no observation"}
	}
	return resp, err
}

// Observe returns the current observation.
func (e *Env) Observe() (StepResponse, error) {
	var resp StepResponse
	err := e.c.Do("observe", wire.HandleRequest{Handle: e.Handle}, &resp)
	return resp, err
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

// Probe returns the visit's probe; control visits have none (an error).
func (e *Env) Probe() (ProbeResponse, error) {
	var resp ProbeResponse
	err := e.c.Do("probe", wire.HandleRequest{Handle: e.Handle}, &resp)
	return resp, err
}

// Answer answers the probe with a 0-based option and reports whether it
// is right.
func (e *Env) Answer(k int) (bool, error) {
	var resp wire.AnswerResponse
	err := e.c.Do("answer", wire.AnswerRequest{Handle: e.Handle, Answer: k}, &resp)
	return resp.Correct, err
}

// AnswerProbe answers the probe with option k; the confidence goes into
// the record the Play builds, not into the module.
func (e *Env) AnswerProbe(k int, _ float64) error {
	_, err := e.Answer(k)
	return err
}

// Record returns the visit's record for a newcomer called agent of kind
// client ("human", "model"), with SimSHA256 set.
func (e *Env) Record(agent, client string) (Record, error) {
	var rec Record
	err := e.c.Do("record", wire.RecordRequest{Handle: e.Handle, Agent: agent, Client: client}, &rec)
	rec.SimSHA256 = e.c.SHA256
	return rec, err
}

// Close frees the visit's slot in the module. Closing twice is a no-op.
func (e *Env) Close() {
	if e == nil || e.closed {
		return
	}
	e.closed = true
	_ = e.c.Do("close", wire.HandleRequest{Handle: e.Handle}, nil)
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
