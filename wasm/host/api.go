package host

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/wasm/wire"
)

// Info describes a module: its ABI, versions, suites, worlds and the
// built-in baselines RunBaseline accepts (the info export's answer).
type Info = wire.Info

// SuiteInfo summarises one suite in Info.
type SuiteInfo = wire.SuiteInfo

// Info asks the module to describe itself.
func (r *Runtime) Info(ctx context.Context) (Info, error) {
	var info Info
	err := r.do(ctx, nil, "info", nil, &info)
	return info, err
}

// Norms returns the module's norm catalog.
func (r *Runtime) Norms(ctx context.Context) ([]norms.Norm, error) {
	var ns []norms.Norm
	err := r.do(ctx, nil, "norms", nil, &ns)
	return ns, err
}

// Suites returns every suite with its visits.
func (r *Runtime) Suites(ctx context.Context) ([]sim.Suite, error) {
	var resp wire.SuitesResponse
	err := r.do(ctx, nil, "suites", wire.SuitesRequest{}, &resp)
	return resp.Suites, err
}

// Suite returns the suite called name with its visits.
func (r *Runtime) Suite(ctx context.Context, name string) (sim.Suite, error) {
	if name == "" {
		return sim.Suite{}, &Error{Export: "suites", Message: "empty suite name"}
	}
	var resp wire.SuitesResponse
	if err := r.do(ctx, nil, "suites", wire.SuitesRequest{Name: name}, &resp); err != nil {
		return sim.Suite{}, err
	}
	if len(resp.Suites) != 1 {
		return sim.Suite{}, fmt.Errorf("host: suites: %d suites for %q, want 1", len(resp.Suites), name)
	}
	return resp.Suites[0], nil
}

// Visit is a visit in progress inside a module instance: the host side of
// the module's sim.Native (Env wraps it as a sim.Env). Its methods are safe for concurrent use (calls are taken one
// at a time). Close it to free its slot; an instance holds at most 256.
type Visit struct {
	rt     *Runtime
	in     *instance
	handle int
	id     string
	mu     sync.Mutex // serialises Close
	closed atomic.Bool
	memoMu sync.Mutex // serialises reading responses with memo
	memo   tileMemo
}

// ID returns the visit id.
func (v *Visit) ID() string { return v.id }

// Handle returns the module's handle for the visit.
func (v *Visit) Handle() int { return v.handle }

// Reset starts the visit named by id (see sim.ParseVisitID) in a pooled
// instance and returns it with its first observation and that
// observation's text form.
func (r *Runtime) Reset(ctx context.Context, id string) (*Visit, *sim.Observation, string, error) {
	in, err := r.acquire(ctx, true)
	if err != nil {
		return nil, nil, "", err
	}
	v := &Visit{rt: r, in: in, id: id}
	var resp wire.ResetResponse
	err = r.decodeHeld(ctx, in, "reset", wire.ResetRequest{Visit: id}, &memoized{&resp, &v.memo})
	if err != nil {
		return nil, nil, "", err
	}
	v.handle = resp.Handle
	return v, resp.Observation, resp.Text, nil
}

// decodeHeld is do for an instance the caller holds; it releases it (or
// discards it after a trap) and counts a visit opened by reset.
func (r *Runtime) decodeHeld(ctx context.Context, in *instance, export string, req, resp any) error {
	body, err := marshal(export, req)
	if err == nil {
		var out []byte
		if out, err = r.call(ctx, in, export, body, true); err == nil {
			err = unmarshal(export, out, resp)
		}
	}
	if err == nil && export == "reset" {
		r.mu.Lock()
		in.visits++
		r.mu.Unlock()
	}
	if in.dead.Load() {
		r.discard(in)
	} else {
		r.release(in)
	}
	return err
}

// StepResult is what Step returns: sim.StepResult plus the text form of
// the observation.
type StepResult struct {
	Observation *sim.Observation
	// Text is Observation.Text(), rendered by the module.
	Text   string
	Events []sim.Event
	// Terminated, Truncated and DayOver are as in sim.StepResult.
	Terminated bool
	Truncated  bool
	DayOver    bool
	// Day (1-based), Step and Over say where the visit stands after the
	// step, also when Observation is left out (StepText).
	Day  int
	Step int
	Over bool
}

// Done reports whether the visit is over.
func (s StepResult) Done() bool { return s.Terminated || s.Truncated }

func (v *Visit) do(ctx context.Context, export string, req, resp any) error {
	if v.closed.Load() {
		return fmt.Errorf("host: %s: visit %s is closed", export, v.id)
	}
	return v.rt.do(ctx, v.in, export, req, resp)
}

// doMemo is do for a response that holds an observation, read with the
// visit's tile memo.
func (v *Visit) doMemo(ctx context.Context, export string, req, resp any) error {
	v.memoMu.Lock()
	defer v.memoMu.Unlock()
	return v.do(ctx, export, req, &memoized{resp, &v.memo})
}

// Step makes the newcomer take action (in text form, see
// sim.ParseAction). A bad action or a visit that is over yields an *Error.
func (v *Visit) Step(ctx context.Context, action string) (StepResult, error) {
	var resp wire.StepResponse
	if err := v.doMemo(ctx, "step", wire.StepRequest{Handle: v.handle, Action: action}, &resp); err != nil {
		return StepResult{}, err
	}
	return StepResult(resp), nil
}

// StepText is Step without the structured observation: Observation is
// nil and Text, Events, Day, Step and Over say what happened. The module
// skips encoding the observation, most of the cost of a step, so model
// harnesses that send only the text use it.
func (v *Visit) StepText(ctx context.Context, action string) (StepResult, error) {
	var resp wire.StepResponse
	if err := v.do(ctx, "step", wire.StepRequest{Handle: v.handle, Action: action, TextOnly: true}, &resp); err != nil {
		return StepResult{}, err
	}
	return StepResult(resp), nil
}

// Observe returns the current observation and its text form.
func (v *Visit) Observe(ctx context.Context) (*sim.Observation, string, error) {
	var resp wire.ObserveResponse
	err := v.doMemo(ctx, "observe", wire.HandleRequest{Handle: v.handle}, &resp)
	return resp.Observation, resp.Text, err
}

// Score is a visit's scores and trajectory hash so far.
type Score struct {
	Scores sim.Scores `json:"scores"`
	// Hash is the trajectory hash (sim.Visit.Hash).
	Hash string `json:"hash"`
	// Over reports that the visit has ended: the scores are final.
	Over bool `json:"over"`
}

// Score returns the scores and trajectory hash so far (final once Over).
func (v *Visit) Score(ctx context.Context) (Score, error) {
	var resp Score
	err := v.do(ctx, "score", wire.HandleRequest{Handle: v.handle}, &resp)
	return resp, err
}

// Probe returns the visit's probe once it is over. Before, and on a
// control visit (which has none), it fails with an *Error that wraps
// sim.ErrNotOver or sim.ErrNoProbe.
func (v *Visit) Probe(ctx context.Context) (*sim.Probe, error) {
	var resp wire.ProbeResponse
	if err := v.do(ctx, "probe", wire.HandleRequest{Handle: v.handle}, &resp); err != nil {
		return nil, err
	}
	return &sim.Probe{Question: resp.Question, Options: resp.Options}, nil
}

// Answer records the probe answer (0-based option) with a confidence in
// [0, 1] if not nil, and reports whether it is correct.
func (v *Visit) Answer(ctx context.Context, k int, confidence *float64) (bool, error) {
	var resp wire.AnswerResponse
	err := v.do(ctx, "answer", wire.AnswerRequest{Handle: v.handle, Answer: k, Confidence: confidence}, &resp)
	return resp.Correct, err
}

// Record returns the visit's record so far for a newcomer called agent of
// kind client, with SimSHA256 set to the module's hash.
func (v *Visit) Record(ctx context.Context, agent, client string) (sim.Record, error) {
	var rec sim.Record
	if err := v.do(ctx, "record", wire.RecordRequest{Handle: v.handle, Agent: agent, Client: client}, &rec); err != nil {
		return sim.Record{}, err
	}
	rec.SimSHA256 = v.rt.sha
	return rec, nil
}

// Close frees the visit's slot in its instance. Closing twice, or after
// the instance was lost, is not an error.
func (v *Visit) Close(ctx context.Context) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.closed.Load() {
		return nil
	}
	err := v.rt.do(ctx, v.in, "close", wire.HandleRequest{Handle: v.handle}, nil)
	if err == nil || errors.Is(err, ErrInstanceLost) || errors.Is(err, ErrClosed) {
		v.closed.Store(true)
		v.rt.mu.Lock()
		v.in.visits--
		v.rt.mu.Unlock()
		return nil
	}
	return err
}

// RunBaseline plays a whole visit with a built-in baseline (see
// agents.Names) inside the module, in one call, and returns its record
// (client "baseline", SimSHA256 set).
func (r *Runtime) RunBaseline(ctx context.Context, visit, agent string) (sim.Record, error) {
	var rec sim.Record
	if err := r.do(ctx, nil, "run", wire.RunRequest{Visit: visit, Agent: agent}, &rec); err != nil {
		return sim.Record{}, err
	}
	rec.SimSHA256 = r.sha
	return rec, nil
}

// RunBaselines is RunBaseline over several visits in one call (at most
// 4096): the records come in the order of visits. One bad visit fails the
// whole call.
func (r *Runtime) RunBaselines(ctx context.Context, visits []string, agent string) ([]sim.Record, error) {
	if visits == nil {
		visits = []string{}
	}
	var resp wire.RunBatchResponse
	if err := r.do(ctx, nil, "run", wire.RunRequest{Visits: visits, Agent: agent}, &resp); err != nil {
		return nil, err
	}
	for i := range resp.Records {
		resp.Records[i].SimSHA256 = r.sha
	}
	return resp.Records, nil
}

// ReplayResult is what Replay returns.
type ReplayResult struct {
	// Record is recomputed from the submitted record's visit, actions and
	// probe answer, with SimSHA256 set to this module's hash. Agent,
	// client, probe confidence, suite, suite version and extra are
	// carried over from the submitted record.
	Record sim.Record
	// Match reports that the submitted record agrees with Record.
	Match bool
	// Diffs names the fields where it does not, e.g. "hash",
	// "scores.joint" (see wasm/ABI.md for the list).
	Diffs []string
}

// Replay re-executes a record inside the module and compares the result
// with it. A record that cannot be replayed (bad visit id, bad action, too
// few or too many actions, probe answer out of range) yields an *Error.
func (r *Runtime) Replay(ctx context.Context, rec sim.Record) (ReplayResult, error) {
	var resp wire.ReplayResponse
	if err := r.do(ctx, nil, "replay", rec, &resp); err != nil {
		return ReplayResult{}, err
	}
	resp.Record.SimSHA256 = r.sha
	return ReplayResult(resp), nil
}

// StepJSON is Step with the module's answer as it wrote it: the JSON of
// the step export's response ({"observation","text","events",
// "terminated","truncated","day_over","day","step","over"}, wasm/ABI.md),
// for hosts that pass the observation on without decoding it (the
// server's sessions). A bad action or a visit that is over yields an
// *Error.
func (v *Visit) StepJSON(ctx context.Context, action string) ([]byte, error) {
	return v.raw(ctx, "step", wire.StepRequest{Handle: v.handle, Action: action})
}

// StepTextJSON is StepJSON with the observation left out ("observation":
// null), as StepText: for replaying actions whose observations nobody reads.
func (v *Visit) StepTextJSON(ctx context.Context, action string) ([]byte, error) {
	return v.raw(ctx, "step", wire.StepRequest{Handle: v.handle, Action: action, TextOnly: true})
}

// ObserveJSON is Observe with the module's answer as it wrote it:
// {"observation","text"}.
func (v *Visit) ObserveJSON(ctx context.Context) ([]byte, error) {
	return v.raw(ctx, "observe", wire.HandleRequest{Handle: v.handle})
}

// raw calls export on the visit's instance and returns the response bytes.
func (v *Visit) raw(ctx context.Context, export string, req any) ([]byte, error) {
	if v.closed.Load() {
		return nil, fmt.Errorf("host: %s: visit %s is closed", export, v.id)
	}
	body, err := marshal(export, req)
	if err != nil {
		return nil, err
	}
	return v.rt.doRaw(ctx, v.in, export, body, true)
}
