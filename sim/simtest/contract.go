package simtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"

	"github.com/normgym/normgym/sim"
)

// errClass is the error of sim.Env's contract that err wraps, or err
// itself when it wraps none (nil for nil).
func errClass(err error) error {
	if err == nil {
		return nil
	}
	for _, e := range []error{sim.ErrVisitID, sim.ErrAction, sim.ErrVisitOver, sim.ErrNoProbe, sim.ErrBadAnswer,
		sim.ErrNoVisit, sim.ErrNotOver, sim.ErrAnswered, sim.ErrBadConfidence} {
		if errors.Is(err, e) {
			return e
		}
	}
	return err
}

// sameError reports unless env's error got and the core's want are both
// the contract's error is.
func sameError(call string, got, want, is error) error {
	if !errors.Is(want, is) {
		return fmt.Errorf("%s: the core answered %v, want %v", call, want, is)
	}
	if !errors.Is(got, is) {
		return fmt.Errorf("%s: %v (%v), want %v as the core answers", call, got, errClass(got), is)
	}
	return nil
}

// confidence is a pointer to c.
func confidence(c float64) *float64 { return &c }

// refusals checks, while the visit goes on, what both must refuse and
// leave as it was: a bad action, and the probe and its answer.
func (r *run) refusals() error {
	for _, bad := range []string{"fly", "", "give", "north south"} {
		_, got := r.env.Step(r.ctx, bad)
		_, want := r.ref.Step(r.ctx, bad)
		if err := sameError(fmt.Sprintf("Step(%q)", bad), got, want, sim.ErrAction); err != nil {
			return err
		}
	}
	_, got := r.env.Probe(r.ctx)
	_, want := r.ref.Probe(r.ctx)
	if err := sameError("Probe before the end", got, want, sim.ErrNotOver); err != nil {
		return err
	}
	_, got = r.env.Answer(r.ctx, 0, confidence(0.5))
	_, want = r.ref.Answer(r.ctx, 0, confidence(0.5))
	return sameError("Answer before the end", got, want, sim.ErrNotOver)
}

// end checks both once the visit is over: steps fail and change nothing.
func (r *run) end() error {
	if err := r.c.end(r.ref.Visit(), r.acts); err != nil {
		return fmt.Errorf("the core: %v", err)
	}
	for _, a := range []string{"wait", "fly", "give mara"} {
		_, got := r.env.Step(r.ctx, a)
		_, want := r.ref.Step(r.ctx, a)
		if err := sameError(fmt.Sprintf("Step(%q)", a), got, want, sim.ErrVisitOver); err != nil {
			return err
		}
	}
	o, err := r.env.Observe(r.ctx)
	if err != nil {
		return fmt.Errorf("Observe: %v", err)
	}
	if js, err := json.Marshal(o); err != nil || !bytes.Equal(js, r.last) {
		return errors.New("steps after the end changed the observation")
	}
	return nil
}

// probe checks the probe and the answers both take; the policy answers.
func (r *run) probe() error {
	got, gotErr := r.env.Probe(r.ctx)
	want, wantErr := r.ref.Probe(r.ctx)
	if r.c.v.Condition == sim.Control {
		if err := sameError("Probe under control", gotErr, wantErr, sim.ErrNoProbe); err != nil {
			return err
		}
		_, gotErr = r.env.Answer(r.ctx, 0, nil)
		_, wantErr = r.ref.Answer(r.ctx, 0, nil)
		return sameError("Answer under control", gotErr, wantErr, sim.ErrNoProbe)
	}
	if wantErr != nil {
		return fmt.Errorf("the core has no probe: %v", wantErr)
	}
	if gotErr != nil {
		return fmt.Errorf("Probe: %v", gotErr)
	}
	if got.Question != want.Question || !slices.Equal(got.Options, want.Options) {
		return fmt.Errorf("probe %+v, want the core's %+v", got, want)
	}
	if want.Question == "" || len(want.Options) != 4 {
		return fmt.Errorf("probe %+v, want a question and four options", want)
	}
	for _, bad := range []struct {
		k    int
		c    *float64
		is   error
		call string
	}{
		{len(want.Options), nil, sim.ErrBadAnswer, "an option out of range"},
		{-1, nil, sim.ErrBadAnswer, "option -1"},
		{0, confidence(1.5), sim.ErrBadConfidence, "a confidence of 1.5"},
	} {
		_, gotErr := r.env.Answer(r.ctx, bad.k, bad.c)
		_, wantErr := r.ref.Answer(r.ctx, bad.k, bad.c)
		if err := sameError("Answer with "+bad.call, gotErr, wantErr, bad.is); err != nil {
			return err
		}
	}
	return r.answer(got)
}

// answer gives the policy's answer to both, then again (a retry) and
// another (refused).
func (r *run) answer(p *sim.Probe) error {
	k := r.p.Answer(p)
	gotOK, err := r.env.Answer(r.ctx, k, confidence(0.75))
	if err != nil {
		return fmt.Errorf("the policy's answer %d is refused: %v", k, err)
	}
	wantOK, err := r.ref.Answer(r.ctx, k, confidence(0.75))
	if err != nil {
		return fmt.Errorf("the policy's answer %d is refused by the core: %v", k, err)
	}
	if gotOK != wantOK {
		return fmt.Errorf("answer %d: correct = %v, the core says %v", k, gotOK, wantOK)
	}
	if again, err := r.env.Answer(r.ctx, k, nil); err != nil || again != gotOK {
		return fmt.Errorf("the same answer again = %v, %v; want %v as the first (a retry)", again, err, gotOK)
	}
	other := (k + 1) % len(p.Options)
	_, gotErr := r.env.Answer(r.ctx, other, nil)
	_, wantErr := r.ref.Answer(r.ctx, other, nil)
	if err := sameError("a second answer", gotErr, wantErr, sim.ErrAnswered); err != nil {
		return err
	}
	if got := r.ref.Visit().ProbeAnswer(); got != k {
		return fmt.Errorf("the core's ProbeAnswer() = %d, want %d", got, k)
	}
	return nil
}

// record compares env's record with the core's, which must hold the run.
func (r *run) record() (sim.Record, error) {
	got, err := r.env.Record(r.ctx, "simtest", "baseline")
	if err != nil {
		return got, err
	}
	want, err := r.ref.Record(r.ctx, "simtest", "baseline")
	if err != nil {
		return got, err
	}
	if want.Hash != r.ref.Visit().Hash() || len(want.Actions) != len(r.acts) {
		return got, fmt.Errorf("the core's record %+v disagrees with its run", want)
	}
	if (want.Probe == nil) != (r.c.v.Condition == sim.Control) || want.Probe != nil && (want.Probe.Confidence == nil || *want.Probe.Confidence != 0.75) {
		return got, fmt.Errorf("the core's record holds the probe answer %+v", want.Probe)
	}
	a, b := trajectory(got), trajectory(want)
	if !reflect.DeepEqual(a, b) {
		return got, fmt.Errorf("record %+v, want the core's %+v", a, b)
	}
	return got, nil
}

// trajectory is a record without what its host may fill in as it likes:
// who played (a server's session names the newcomer), the sim.wasm hash,
// the suite and extra.
func trajectory(r sim.Record) sim.Record {
	r.Agent, r.Client, r.SimSHA256, r.Suite, r.SuiteVersion, r.Extra = "", "", "", "", "", nil
	return r
}

// replay replays the core's record through sim.Replay: same hash, scores
// and answer.
func (r *run) replay() []error {
	rec, err := r.ref.Record(r.ctx, "simtest", "baseline")
	if err != nil {
		return []error{err}
	}
	v := r.ref.Visit()
	re, err := sim.Replay(rec)
	if err != nil {
		return []error{fmt.Errorf("sim.Replay of the record: %v", err)}
	}
	var errs []error
	if got, want := re.Hash(), v.Hash(); got != want {
		errs = append(errs, fmt.Errorf("sim.Replay hash = %s, want %s", got, want))
	}
	if got, want := re.Scores(), v.Scores(); !reflect.DeepEqual(got, want) {
		errs = append(errs, fmt.Errorf("sim.Replay scores = %+v, want %+v", got, want))
	}
	if got, want := re.ProbeAnswer(), v.ProbeAnswer(); got != want {
		errs = append(errs, fmt.Errorf("sim.Replay probe answer = %d, want %d", got, want))
	}
	return errs
}
