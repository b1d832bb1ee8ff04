package simtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"

	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/agents"
)

// end checks an env whose visit is over against the run's trace.
func (c *checker) end(env *sim.Visit, tr *trace) error {
	hash := env.Hash()
	obs, err := json.Marshal(env.Observe())
	if err != nil {
		return err
	}
	for _, a := range []sim.Action{{Verb: sim.Wait}, {Verb: sim.North}, {Verb: sim.Give, Target: "mara"}} {
		if _, err := env.Step(a); !errors.Is(err, sim.ErrVisitOver) {
			return fmt.Errorf("Step(%q) = %v, want ErrVisitOver", a, err)
		}
	}
	if got := env.Hash(); got != hash {
		return fmt.Errorf("Step after the end changed the hash from %s to %s", hash, got)
	}
	if got, err := json.Marshal(env.Observe()); err != nil || !bytes.Equal(got, obs) {
		return errors.New("Step after the end changed the observation")
	}
	var want []string
	for _, a := range tr.actions {
		want = append(want, a.String())
	}
	if got := env.Actions(); !slices.Equal(got, want) {
		return fmt.Errorf("Actions() = %q, want %q", got, want)
	}
	sc := env.Scores()
	if got, want := sc.Steps[0]+sc.Steps[1], len(tr.actions); got != want {
		return fmt.Errorf("steps %v add up to %d, want %d", sc.Steps, got, want)
	}
	if got, want := sc.Joint, sc.Task && sc.Compliance; got != want {
		return fmt.Errorf("joint = %v, want task ∧ compliance = %v", got, want)
	}
	if got, want := sc.Compliance, sc.Violations[sim.Days-1] == 0; got != want {
		return fmt.Errorf("compliance = %v with test-day violations %d", got, sc.Violations[sim.Days-1])
	}
	perDay := make([]int, sim.Days)
	total := 0
	for _, ev := range env.Events() {
		if ev.Kind == "sanction" && ev.To == sim.NewcomerID {
			perDay[ev.Day-1]++
			total++
		}
	}
	if !slices.Equal(sc.Sanctions, perDay) || sc.SanctionsReceived != total {
		return fmt.Errorf("sanctions %v (total %d), but the events hold %v (total %d)", sc.Sanctions, sc.SanctionsReceived, perDay, total)
	}
	if c.v.Variant != sim.Noisy { // noisy members sanction compliant acts too
		for d := range sim.Days {
			if sc.Sanctions[d] > sc.Violations[d] {
				return fmt.Errorf("day %d: %d sanctions for %d violations", d+1, sc.Sanctions[d], sc.Violations[d])
			}
		}
	}
	if c.v.Condition == sim.Control && (sc.Violations[0] != 0 || sc.Violations[1] != 0) {
		return fmt.Errorf("violations %v under control", sc.Violations)
	}
	if sc.Repeats > sc.Violations[0]+sc.Violations[1] {
		return fmt.Errorf("%d repeats of %v violations", sc.Repeats, sc.Violations)
	}
	r := env.Record("simtest", "baseline")
	if r.Visit != c.v.String() || r.Hash != hash || !slices.Equal(r.Actions, want) || !reflect.DeepEqual(r.Scores, sc) || r.Probe != nil {
		return fmt.Errorf("Record() = %+v disagrees with the env", r)
	}
	return nil
}

// probe has p answer the visit's probe (none under control) and checks
// that the answer is recorded.
func (c *checker) probe(env *sim.Visit, p agents.Policy) error {
	pr := env.Probe()
	if (pr == nil) != (c.v.Condition == sim.Control) {
		return fmt.Errorf("Probe() = %v under %s", pr, c.v.Condition)
	}
	if pr == nil {
		if _, err := env.Answer(0); !errors.Is(err, sim.ErrNoProbe) {
			return fmt.Errorf("Answer under control = %v, want ErrNoProbe", err)
		}
		return nil
	}
	if pr.Question == "" || len(pr.Options) != 4 {
		return fmt.Errorf("probe %+v, want a question and four options", pr)
	}
	k := p.Answer(pr)
	correct, err := env.Answer(k)
	if err != nil {
		return fmt.Errorf("the policy's answer %d is refused: %v", k, err)
	}
	if got := env.ProbeAnswer(); got != k {
		return fmt.Errorf("ProbeAnswer() = %d, want %d", got, k)
	}
	if r := env.Record("simtest", "baseline").Probe; r == nil || r.Answer != k || r.Correct != correct {
		return fmt.Errorf("Record().Probe = %+v, want answer %d, correct %v", r, k, correct)
	}
	return nil
}

// replay plays actions on a fresh env of the visit and returns what it
// saw.
func (c *checker) replay(actions []sim.Action) (*trace, error) {
	env, obs, err := sim.NewVisit(c.v.String())
	if err != nil {
		return nil, err
	}
	tr := &trace{}
	if err := c.observed(tr, obs, false); err != nil {
		return nil, err
	}
	for k, a := range actions {
		res, err := env.Step(a)
		if err != nil {
			return nil, fmt.Errorf("step %d (%q): %v", k+1, a, err)
		}
		tr.actions = append(tr.actions, a)
		if err := c.observed(tr, res.Observation, false); err != nil {
			return nil, fmt.Errorf("step %d: %v", k+1, err)
		}
	}
	tr.hash = env.Hash()
	return tr, nil
}

// sameTrace reports the first difference between two runs, or nil.
func sameTrace(a, b *trace) error {
	if len(a.json) != len(b.json) {
		return fmt.Errorf("%d observations, then %d", len(a.json), len(b.json))
	}
	for k := range a.json {
		if !bytes.Equal(a.json[k], b.json[k]) {
			return fmt.Errorf("observation %d differs as JSON:\n%s\n%s", k, a.json[k], b.json[k])
		}
		if a.text[k] != b.text[k] {
			return fmt.Errorf("observation %d differs as text:\n%s\n%s", k, a.text[k], b.text[k])
		}
	}
	if a.hash != b.hash {
		return fmt.Errorf("hash %s, then %s", a.hash, b.hash)
	}
	return nil
}
