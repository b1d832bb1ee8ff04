// Package guest implements sim.wasm's ABI (wasm/ABI.md) as plain Go: each
// method takes a request's bytes and returns its JSON response. The wasm
// entry point (wasm/module) only moves bytes between linear memory and
// these methods, so the same code can be tested natively.
//
// A method never panics and never fails: every problem, including a panic
// inside the simulation, becomes an error response {"error":"..."}. The
// guest reads no clock and no randomness; its only state is the table of
// open environments.
package guest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/agents"
	"github.com/normgym/normgym/wasm/wire"
)

// Guest holds the open environments of one module instance. It is not
// safe for concurrent use (a wasm instance is single-threaded anyway).
// The bytes a method returns are valid until the next call of a method:
// the responses that carry an observation are written into one buffer.
type Guest struct {
	envs map[int]*session
	next int
	out  []byte // the last response with an observation
}

// session is an open environment: the core's Env (sim.Native, which keeps
// the contract's rules about the probe and writes every step into one
// observation, encoded at once) and the encodings of its tiles and text
// lines.
type session struct {
	env   *sim.Native
	cache visitCache
}

// bg is the context of the Native's calls, which never block.
var bg = context.Background()

// New returns a guest with no open environment.
func New() *Guest { return &Guest{envs: map[int]*session{}, next: 1} }

// Open reports how many environments are open.
func (g *Guest) Open() int { return len(g.envs) }

// errorf makes the guest's own errors.
func errorf(format string, args ...any) error {
	return fmt.Errorf("simwasm: "+format, args...)
}

// respond runs f and encodes its result, or the error or panic, as JSON.
func respond(f func() (any, error)) (out []byte) {
	defer func() {
		if p := recover(); p != nil {
			out = encodeError(fmt.Errorf("internal: %v", p))
		}
	}()
	v, err := f()
	if err != nil {
		return encodeError(err)
	}
	if enc, ok := v.(encoded); ok {
		return enc
	}
	b, err := json.Marshal(v)
	if err != nil {
		return encodeError(fmt.Errorf("internal: encoding the response: %v", err))
	}
	return b
}

// encoded is a response already in JSON (encode.go).
type encoded []byte

func encodeError(err error) []byte {
	b, mErr := json.Marshal(wire.Error{Error: err.Error()})
	if mErr != nil {
		return []byte(`{"error":"internal: unencodable error"}`)
	}
	return b
}

// decode reads exactly one JSON value from in into v. With strict set,
// unknown fields are an error (requests are small and a typo such as
// "handel" should not pass as handle 0).
func decode(in []byte, v any, strict bool) error {
	if len(bytes.TrimSpace(in)) == 0 {
		return errorf("bad request: empty input (want a JSON object)")
	}
	d := json.NewDecoder(bytes.NewReader(in))
	if strict {
		d.DisallowUnknownFields()
	}
	if err := d.Decode(v); err != nil {
		return errorf("bad request: %v", err)
	}
	if _, err := d.Token(); !errors.Is(err, io.EOF) {
		return errorf("bad request: data after the JSON object")
	}
	return nil
}

func (g *Guest) session(h int) (*session, error) {
	s, ok := g.envs[h]
	if !ok {
		return nil, errorf("unknown handle %d (closed, never opened, or opened by another instance)", h)
	}
	return s, nil
}

func (g *Guest) env(h int) (*sim.Native, error) {
	s, err := g.session(h)
	if err != nil {
		return nil, err
	}
	return s.env, nil
}

// Info describes the module: ABI, versions, suites, worlds and baselines.
func (g *Guest) Info() []byte {
	return respond(func() (any, error) {
		info := wire.Info{ABI: wire.ABI, SimVersion: sim.Version, CatalogVersion: norms.Default().Version(),
			Worlds: sim.Worlds(), Agents: agents.Names()}
		for _, s := range sim.Suites() {
			info.Suites = append(info.Suites, wire.SuiteInfo{Name: s.Name, Version: s.Version, Visits: len(s.Visits)})
		}
		return info, nil
	})
}

// Norms returns the catalog as a JSON array of norms.
func (g *Guest) Norms() []byte {
	return respond(func() (any, error) { return norms.Default().Norms(), nil })
}

// Suites returns the named suite, or every suite, with their visits.
func (g *Guest) Suites(in []byte) []byte {
	return respond(func() (any, error) {
		var req wire.SuitesRequest
		if err := decode(in, &req, true); err != nil {
			return nil, err
		}
		if req.Name == "" {
			return wire.SuitesResponse{Suites: sim.Suites()}, nil
		}
		s, err := sim.LookupSuite(req.Name)
		if err != nil {
			return nil, err
		}
		return wire.SuitesResponse{Suites: []sim.Suite{s}}, nil
	})
}

// Reset starts a visit and opens a handle for it.
func (g *Guest) Reset(in []byte) []byte {
	return respond(func() (any, error) {
		var req wire.ResetRequest
		if err := decode(in, &req, true); err != nil {
			return nil, err
		}
		if len(g.envs) >= wire.MaxHandles {
			return nil, errorf("too many open environments (%d): close some", wire.MaxHandles)
		}
		e := new(sim.Native)
		turn, err := e.Reset(bg, req.Visit)
		if err != nil {
			return nil, err
		}
		obs := e.Visit().Observe()
		h := g.next
		for g.envs[h] != nil || h <= 0 {
			h++
			if h <= 0 || h > 1<<30 {
				h = 1
			}
		}
		s := &session{env: e}
		g.envs[h] = s
		g.next = h + 1
		g.out = appendResetResponse(g.out[:0], &wire.ResetResponse{Handle: h, Observation: obs, Text: turn.Text}, &s.cache)
		return encoded(g.out), nil
	})
}

// Close forgets an environment.
func (g *Guest) Close(in []byte) []byte {
	return respond(func() (any, error) {
		var req wire.HandleRequest
		if err := decode(in, &req, true); err != nil {
			return nil, err
		}
		if _, err := g.env(req.Handle); err != nil {
			return nil, err
		}
		delete(g.envs, req.Handle)
		return wire.Closed{Closed: true}, nil
	})
}

// Step makes the newcomer of an open environment act.
func (g *Guest) Step(in []byte) []byte {
	return respond(func() (any, error) {
		req, err := decodeStep(in)
		if err != nil {
			return nil, err
		}
		s, err := g.session(req.Handle)
		if err != nil {
			return nil, err
		}
		res, err := s.env.StepObserve(req.Action)
		if err != nil {
			return nil, err
		}
		o := res.Observation
		resp := wire.StepResponse{Observation: o, Text: o.Text(), Events: res.Events,
			Terminated: res.Terminated, Truncated: res.Truncated, DayOver: res.DayOver,
			Day: o.Day, Step: o.Frame.Step, Over: o.Done}
		if req.TextOnly {
			resp.Observation = nil
		}
		g.out = appendStepResponse(g.out[:0], &resp, &s.cache)
		return encoded(g.out), nil
	})
}

// Observe returns an open environment's current observation.
func (g *Guest) Observe(in []byte) []byte {
	return respond(func() (any, error) {
		e, err := g.handle(in)
		if err != nil {
			return nil, err
		}
		o := e.Visit().Observe()
		g.out = appendObserveResponse(g.out[:0], &wire.ObserveResponse{Observation: o, Text: o.Text()}, nil)
		return encoded(g.out), nil
	})
}

// Score returns an open environment's scores and trajectory hash so far.
func (g *Guest) Score(in []byte) []byte {
	return respond(func() (any, error) {
		e, err := g.handle(in)
		if err != nil {
			return nil, err
		}
		v := e.Visit()
		return wire.ScoreResponse{Scores: v.Scores(), Hash: v.Hash(), Over: v.Over()}, nil
	})
}

// Probe returns an open environment's probe once its visit is over;
// control visits have none (sim.Env's contract).
func (g *Guest) Probe(in []byte) []byte {
	return respond(func() (any, error) {
		e, err := g.handle(in)
		if err != nil {
			return nil, err
		}
		p, err := e.Probe(bg)
		if err != nil {
			return nil, err
		}
		return wire.ProbeResponse{Question: p.Question, Options: p.Options}, nil
	})
}

// Answer records the newcomer's probe answer and confidence (sim.Env's
// contract).
func (g *Guest) Answer(in []byte) []byte {
	return respond(func() (any, error) {
		var req wire.AnswerRequest
		if err := decode(in, &req, true); err != nil {
			return nil, err
		}
		e, err := g.env(req.Handle)
		if err != nil {
			return nil, err
		}
		ok, err := e.Answer(bg, req.Answer, req.Confidence)
		if err != nil {
			return nil, err
		}
		return wire.AnswerResponse{Correct: ok}, nil
	})
}

// Record returns an open environment's record so far.
func (g *Guest) Record(in []byte) []byte {
	return respond(func() (any, error) {
		var req wire.RecordRequest
		if err := decode(in, &req, true); err != nil {
			return nil, err
		}
		e, err := g.env(req.Handle)
		if err != nil {
			return nil, err
		}
		return e.Record(bg, req.Agent, req.Client)
	})
}

func (g *Guest) handle(in []byte) (*sim.Native, error) {
	var req wire.HandleRequest
	if err := decode(in, &req, true); err != nil {
		return nil, err
	}
	return g.env(req.Handle)
}

// Run plays whole visits with a built-in baseline and returns their
// records (client "baseline"). It opens no handle.
func (g *Guest) Run(in []byte) []byte {
	return respond(func() (any, error) {
		var req wire.RunRequest
		if err := decode(in, &req, true); err != nil {
			return nil, err
		}
		switch {
		case req.Visit != "" && req.Visits != nil:
			return nil, errorf("bad request: give either visit or visits, not both")
		case req.Visit != "":
			return runOne(req.Visit, req.Agent)
		case req.Visits == nil:
			return nil, errorf("bad request: give visit or visits")
		case len(req.Visits) > wire.MaxBatch:
			return nil, errorf("bad request: %d visits in one run, more than %d", len(req.Visits), wire.MaxBatch)
		}
		resp := wire.RunBatchResponse{Records: make([]sim.Record, 0, len(req.Visits))}
		for _, v := range req.Visits {
			r, err := runOne(v, req.Agent)
			if err != nil {
				return nil, err
			}
			resp.Records = append(resp.Records, r)
		}
		return resp, nil
	})
}

func runOne(visit, agent string) (sim.Record, error) {
	e, err := agents.Play(visit, agent)
	if err != nil {
		return sim.Record{}, err
	}
	return e.Record(agent, "baseline"), nil
}

// Replay recomputes a submitted record and compares it with the original.
func (g *Guest) Replay(in []byte) []byte {
	return respond(func() (any, error) {
		var rec sim.Record
		// Records are a growing format: fields this module does not know
		// are ignored, not refused.
		if err := decode(in, &rec, false); err != nil {
			return nil, err
		}
		return Replay(rec)
	})
}

// Replay recomputes rec with sim.Verify: the recomputed record and the
// names of the fields that disagree (sim.DiffRecords).
func Replay(rec sim.Record) (wire.ReplayResponse, error) {
	out, diffs, err := sim.Verify(rec)
	if err != nil {
		return wire.ReplayResponse{}, err
	}
	return wire.ReplayResponse{Record: out, Match: len(diffs) == 0, Diffs: diffs}, nil
}
