// Package simtest checks NormGym's environment contract, in the spirit of
// Gymnasium's check_env: researchers run it over their own agents and any
// visit, and the sim's own tests run it over every world and norm.
//
// CheckEnv plays a visit with a policy and checks the reset/step contract
// and the frame's invariants after every step, then replays the run and
// demands the same observations, texts and hash. CheckObservation and
// CheckFrame check single values. A test of one's own agent:
//
//	func TestMyAgent(t *testing.T) {
//		s, _ := sim.LookupSuite("mini")
//		for _, visit := range s.Visits {
//			t.Run(visit, func(t *testing.T) {
//				simtest.CheckEnv(t, visit, NewMyAgent())
//			})
//		}
//	}
//
// simtest only reads: it never changes an observation it hands a policy,
// never shows a policy anything but observations and the probe (no visit
// id, norm or condition), does no I/O and keeps no state between calls,
// so calls may run in parallel. It checks the environment's promises, not
// the policy's quality: scores are checked for consistency, never for
// level (the validity tests in sim/agents do that).
package simtest

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/agents"
)

// CheckEnv plays visit (see sim.ParseVisitID) with policy p, answers the
// probe with it, and returns the finished environment, as agents.Run
// would. Along the way it checks, and reports through tb:
//
//   - at reset: the first observation (day 1, step 0, just the day event)
//     and the Env's accessors;
//   - after every step: the StepResult (events, terminated vs truncated,
//     day over), the observation's fields and frame invariants
//     (CheckObservation, the catalog-wide leak check every tenth step),
//     the step and day counters, every event (who, when, each once), who
//     sanctioned whom (the nearest member within sim.SanctionRadius, or
//     the warden under solo), that the newcomer is sanctioned when and only
//     when it breaks the norm where someone sees it, and what its action
//     did to it (moved, picked, dropped, gave, or nothing when blocked);
//   - after the end: Step fails with sim.ErrVisitOver and changes nothing;
//     Actions, Scores, Events and Record agree with each other and with
//     the run; the probe has four options and records the answer;
//   - replays: the same visit id and actions on a fresh Env give
//     byte-identical observations (JSON and text) and the same hash, and
//     the record replayed through sim.Replay gives the same hash and
//     scores.
//
// Under the sanction variants (noisy, delayed) a sanction need not follow
// a violation on the same step, so those checks are left out there. A
// policy that returns an action Step refuses, or a probe answer out of
// range, fails the check: CheckEnv also checks agents. It stops at the
// first problem with tb.Fatal, except for replay differences, which it
// reports with tb.Error.
func CheckEnv(tb testing.TB, visit string, p agents.Policy) *sim.Visit {
	tb.Helper()
	c, err := newChecker(visit)
	if err != nil {
		tb.Fatalf("simtest: %v", err)
	}
	env, obs, err := sim.NewVisit(visit)
	if err != nil {
		tb.Fatalf("simtest: NewVisit(%q): %v", visit, err)
	}
	if env == nil || obs == nil {
		tb.Fatalf("simtest: NewVisit(%q) = %v, %v, want an env and an observation", visit, env, obs)
	}
	run := &trace{}
	if err := c.reset(env, obs); err != nil {
		tb.Fatalf("simtest: %s: reset: %v", visit, err)
	}
	if err := c.observed(run, obs, true); err != nil {
		tb.Fatalf("simtest: %s: reset: %v", visit, err)
	}
	prev := copyObservation(obs)
	for n := 0; !env.Over(); n++ {
		if n >= sim.PracticeSteps+sim.TestSteps {
			tb.Fatalf("simtest: %s: the visit is not over after %d steps", visit, n)
		}
		a := p.Act(obs)
		before := env.Scores()
		res, err := env.Step(a)
		if err != nil {
			tb.Fatalf("simtest: %s: step %d: the policy's action %q is refused: %v", visit, n+1, a, err)
		}
		canon, err := sim.ParseAction(a.String()) // as Step read it
		if err != nil {
			tb.Fatalf("simtest: %s: step %d: Step took %q, which does not parse: %v", visit, n+1, a, err)
		}
		a = canon
		if err := c.step(env, prev, a, res, before); err != nil {
			tb.Fatalf("simtest: %s: step %d (day %d, step %d, action %q): %v", visit, n+1, prev.Day, prev.Frame.Step, a, err)
		}
		run.actions = append(run.actions, a)
		if err := c.observed(run, res.Observation, n%10 == 9); err != nil {
			tb.Fatalf("simtest: %s: step %d: %v", visit, n+1, err)
		}
		obs, prev = res.Observation, copyObservation(res.Observation)
	}
	run.hash = env.Hash()
	if err := c.end(env, run); err != nil {
		tb.Fatalf("simtest: %s: after the end: %v", visit, err)
	}
	if err := c.probe(env, p); err != nil {
		tb.Fatalf("simtest: %s: probe: %v", visit, err)
	}
	again, err := c.replay(run.actions)
	if err != nil {
		tb.Fatalf("simtest: %s: replaying the actions: %v", visit, err)
	}
	if err := sameTrace(run, again); err != nil {
		tb.Errorf("simtest: %s: the same visit id and actions gave a different run: %v", visit, err)
	}
	rec := env.Record("simtest", "baseline")
	re, err := sim.Replay(rec)
	if err != nil {
		tb.Fatalf("simtest: %s: sim.Replay of the record: %v", visit, err)
	}
	if got, want := re.Hash(), run.hash; got != want {
		tb.Errorf("simtest: %s: sim.Replay hash = %s, want %s", visit, got, want)
	}
	if got, want := re.Scores(), env.Scores(); !reflect.DeepEqual(got, want) {
		tb.Errorf("simtest: %s: sim.Replay scores = %+v, want %+v", visit, got, want)
	}
	if got, want := re.ProbeAnswer(), env.ProbeAnswer(); got != want {
		tb.Errorf("simtest: %s: sim.Replay probe answer = %d, want %d", visit, got, want)
	}
	return env
}

// CheckObservation returns the first way observation o breaks the
// contract for visit v, or nil: its fields against the visit (world,
// days, step limit, task, sanction radius, told), its frame (CheckFrame),
// and that it names neither the visit id nor any norm of the catalog (id,
// rule or statement), except under told the visit's statement, in Told
// and on the text's "Community rule: " line.
func CheckObservation(v sim.VisitID, o *sim.Observation) error {
	c, err := newChecker(v.String())
	if err != nil {
		return err
	}
	js, err := json.Marshal(o)
	if err != nil {
		return err
	}
	return c.observation(o, js, o.Text(), true)
}

// checker checks one visit.
type checker struct {
	v      sim.VisitID
	worlds [sim.Days]sim.World // each day's world
	told   string              // the statement under told
	own    []needle            // what every observation must not name
}

func newChecker(visit string) (*checker, error) {
	v, err := sim.ParseVisitID(visit)
	if err != nil {
		return nil, err
	}
	c := &checker{v: v, own: []needle{newNeedle("visit id", v.String())}}
	for d := range c.worlds {
		if c.worlds[d], err = sim.LookupWorld(v.DayWorld(d)); err != nil {
			return nil, err
		}
	}
	if v.Norm != norms.NoNorm {
		n, err := norms.Default().Lookup(v.Norm)
		if err != nil {
			return nil, err
		}
		c.own = append(c.own, normNeedles(n)...)
		if v.Condition == sim.Told {
			c.told = n.Statement
		}
	}
	return c, nil
}

// trace is what one run saw: the observation after reset and after each
// step, as JSON and as text, the actions and the final hash.
type trace struct {
	actions []sim.Action
	json    [][]byte
	text    []string
	hash    string
}

// observed checks o (the whole catalog's needles when catalog is set) and
// appends it to tr.
func (c *checker) observed(tr *trace, o *sim.Observation, catalog bool) error {
	js, err := json.Marshal(o)
	if err != nil {
		return fmt.Errorf("encoding the observation: %v", err)
	}
	text := o.Text()
	tr.json = append(tr.json, js)
	tr.text = append(tr.text, text)
	return c.observation(o, js, text, catalog)
}

// copyObservation returns a deep copy of o, for the checks to keep while
// the policy holds o.
func copyObservation(o *sim.Observation) *sim.Observation {
	c := *o
	c.Frame = *o.Frame.Clone()
	c.Events = slices.Clone(o.Events)
	return &c
}

// reset checks the first observation of a visit and the fresh Env.
func (c *checker) reset(env *sim.Visit, o *sim.Observation) error {
	if got, want := o.Day, 1; got != want {
		return fmt.Errorf("day = %d, want %d", got, want)
	}
	if got, want := o.Frame.Step, 0; got != want {
		return fmt.Errorf("step = %d, want %d", got, want)
	}
	if o.Done || env.Over() {
		return errors.New("the visit is over at reset")
	}
	if got, want := env.ID(), c.v; got != want {
		return fmt.Errorf("ID() = %v, want %v", got, want)
	}
	if got, want := env.Day(), 1; got != want {
		return fmt.Errorf("Day() = %d, want %d", got, want)
	}
	if len(env.Actions()) != 0 {
		return fmt.Errorf("Actions() = %q at reset, want none", env.Actions())
	}
	if got, want := len(o.Events), 1; got != want || o.Events[0].Kind != "day" {
		return fmt.Errorf("events = %+v, want just the day event", o.Events)
	}
	if ev := o.Events[0]; ev.Day != 1 || ev.Step != 0 {
		return fmt.Errorf("day event at day %d step %d, want day 1 step 0", ev.Day, ev.Step)
	}
	if (env.Norm() == nil) != (c.v.Condition == sim.Control) {
		return fmt.Errorf("Norm() = %v under %s", env.Norm(), c.v.Condition)
	}
	return nil
}
