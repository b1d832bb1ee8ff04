// Package simtest checks NormGym's environment contract, sim.Env, in the
// spirit of Gymnasium's check_env: every engine runs it in `make test`
// (the native core, sim.wasm under wazero, the server's sessions, the
// browser's steppers and the clients of a live server), and researchers
// run it over their own agents and any visit.
//
// CheckEnv plays a visit in an Env with a policy and holds the Env, call
// by call, to the native core playing the same actions: the same turns,
// observations (JSON and text), errors, probe and record, and silence
// about the norm in everything the Env shows before the probe. The native
// run is itself checked for the contract's invariants (frames, events,
// sanctions, scores). CheckObservation and CheckFrame check single values.
// A test of one's own agent:
//
//	func TestMyAgent(t *testing.T) {
//		s, _ := sim.LookupSuite("mini")
//		for _, visit := range s.Visits {
//			t.Run(visit, func(t *testing.T) {
//				simtest.CheckEnv(t, new(sim.Native), visit, NewMyAgent())
//			})
//		}
//	}
//
// simtest only reads: it never changes an observation it hands a policy,
// never shows a policy anything but the Env's observations and the probe
// (no visit id, norm or condition), does no I/O of its own and keeps no
// state between calls, so calls with different Envs may run in parallel.
// It checks the environment's promises, not the policy's quality: scores
// are checked for consistency, never for level (the validity tests in
// sim/agents do that).
package simtest

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"testing"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/agents"
)

// CheckEnv resets env to visit (see sim.ParseVisitID), plays it with
// policy p, answers the probe with it and returns env's record. Beside
// env it runs the native core (sim.Native) on the same actions, and
// checks, reporting through tb:
//
//   - every turn and observation: env's equal the core's (the turn's text,
//     events, flags and position; the observation's JSON byte for byte);
//     the observation's fields and frame invariants (CheckObservation);
//     and nothing env shows before the probe — text, observation, and what
//     a server delivered (sim.Turn.Wire) — names the visit id, a norm of
//     the catalog (id, rule or statement; the observation's JSON is
//     searched for the visit's at every step and for the whole catalog's
//     at every tenth), the condition or the variant, except a told visit's
//     own statement where told puts it;
//   - the core's run: at reset the first observation (day 1, step 0, just
//     the day event); after every step the result (events, terminated vs
//     truncated, day over), the counters, every event (who, when, each
//     once), who sanctioned whom (the nearest member within
//     sim.SanctionRadius, or the warden under solo), that the newcomer is
//     sanctioned when and only when it breaks the norm where someone sees
//     it, and what its action did to it;
//   - the errors, env's and the core's alike (errors.Is): a visit id that
//     does not parse (sim.ErrVisitID), a bad action (sim.ErrAction) and the probe and its answer before the end
//     (sim.ErrNotOver) at reset and along the way; steps after the end
//     (sim.ErrVisitOver) changing nothing; on a control visit no probe
//     and no answer (sim.ErrNoProbe); an option out of range
//     (sim.ErrBadAnswer), a confidence outside [0, 1]
//     (sim.ErrBadConfidence), a second answer (sim.ErrAnswered, or the
//     same answer again for a retry);
//   - the record: env's trajectory, scores, hash and probe answer
//     (with its confidence) are the core's, which agree with the run, and
//     replaying it with sim.Replay gives the same hash and scores.
//
// Under the sanction variants (noisy, delayed) a sanction need not follow
// a violation on the same step, so those checks are left out there. A
// policy that returns an action Step refuses, or a probe answer out of
// range, fails the check: CheckEnv also checks agents. It stops at the
// first problem with tb.Fatal, except for replay differences, which it
// reports with tb.Error.
func CheckEnv(tb testing.TB, env sim.Env, visit string, p agents.Policy) sim.Record {
	tb.Helper()
	r, err := newRun(env, visit, p)
	if err != nil {
		tb.Fatalf("simtest: %v", err)
	}
	if err := r.reset(); err != nil {
		tb.Fatalf("simtest: %s: reset: %v", visit, err)
	}
	for n := 0; !r.turn.Over; n++ {
		if n >= sim.PracticeSteps+sim.TestSteps {
			tb.Fatalf("simtest: %s: the visit is not over after %d steps", visit, n)
		}
		if err := r.step(n); err != nil {
			tb.Fatalf("simtest: %s: step %d (day %d, step %d): %v", visit, n+1, r.prev.Day, r.prev.Frame.Step, err)
		}
	}
	if err := r.end(); err != nil {
		tb.Fatalf("simtest: %s: after the end: %v", visit, err)
	}
	if err := r.probe(); err != nil {
		tb.Fatalf("simtest: %s: probe: %v", visit, err)
	}
	rec, err := r.record()
	if err != nil {
		tb.Fatalf("simtest: %s: record: %v", visit, err)
	}
	for _, err := range r.replay() {
		tb.Errorf("simtest: %s: %v", visit, err)
	}
	return rec
}

// CheckObservation returns the first way observation o breaks the
// contract for visit v, or nil: its fields against the visit (world,
// days, step limit, task, sanction radius, told), its frame (CheckFrame),
// and that it names neither the visit id nor any norm of the catalog (id,
// rule or statement), except under told the visit's statement, in Told
// and on the text's "Community rule: " line.
func CheckObservation(v sim.VisitID, o *sim.Observation) error {
	return CheckObservationIn(nil, v, o)
}

// CheckObservationIn is CheckObservation for a visit of catalog cat (nil:
// the public catalog), whose norms it must not name.
func CheckObservationIn(cat *norms.Catalog, v sim.VisitID, o *sim.Observation) error {
	c, err := newChecker(cat, v.String())
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
	cat    *norms.Catalog      // the visit's catalog (nil: the public one)
	own    []needle            // what every observation must not name
	words  []string            // the condition and variant, as words
	// wordRes find words in a text, case aside.
	wordRes []*regexp.Regexp
}

func newChecker(cat *norms.Catalog, visit string) (*checker, error) {
	lookup := norms.Default()
	if cat != nil {
		lookup = cat
	}
	v, err := sim.ParseVisitIDIn(lookup, visit)
	if err != nil {
		return nil, err
	}
	c := &checker{v: v, cat: cat, own: []needle{newNeedle("visit id", v.String())}, words: []string{v.Condition}}
	if v.Variant != "" {
		c.words = append(c.words, v.Variant)
	}
	for _, w := range c.words {
		c.wordRes = append(c.wordRes, regexp.MustCompile(`(?i)\b`+regexp.QuoteMeta(w)+`\b`))
	}
	for d := range c.worlds {
		if c.worlds[d], err = sim.LookupWorld(v.DayWorld(d)); err != nil {
			return nil, err
		}
	}
	if v.Norm != norms.NoNorm {
		n, err := lookup.Lookup(v.Norm)
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

// run is one CheckEnv: the Env under test beside the native core.
type run struct {
	c    *checker
	ctx  context.Context
	env  sim.Env
	ref  *sim.Native // the core, playing the same actions
	p    agents.Policy
	n    int              // turns seen
	turn sim.Turn         // env's latest turn
	obs  *sim.Observation // env's latest observation: the policy's
	last []byte           // env's latest observation as JSON
	prev *sim.Observation // a copy of the core's latest, for its checks
	acts []sim.Action     // the actions taken, as Step read them
}

func newRun(env sim.Env, visit string, p agents.Policy) (*run, error) {
	c, err := newChecker(nil, visit)
	if err != nil {
		return nil, err
	}
	return &run{c: c, ctx: context.Background(), env: env, ref: new(sim.Native), p: p}, nil
}

// reset starts the visit in both and compares what they show.
func (r *run) reset() error {
	visit := r.c.v.String()
	want, err := r.ref.Reset(r.ctx, visit)
	if err != nil {
		return fmt.Errorf("the core: %v", err)
	}
	wantObs, err := r.ref.Observe(r.ctx)
	if err != nil {
		return err
	}
	if err := r.c.reset(r.ref.Visit(), wantObs); err != nil {
		return fmt.Errorf("the core: %v", err)
	}
	const bad = "atlantis/none/control/s1"
	_, gotErr := r.env.Reset(r.ctx, bad)
	_, wantErr := new(sim.Native).Reset(r.ctx, bad)
	if err := sameError(fmt.Sprintf("Reset(%q)", bad), gotErr, wantErr, sim.ErrVisitID); err != nil {
		return err
	}
	got, err := r.env.Reset(r.ctx, visit)
	if err != nil {
		return fmt.Errorf("Reset(%q): %v", visit, err)
	}
	if err := r.shown(got, want, wantObs); err != nil {
		return err
	}
	r.prev = copyObservation(wantObs)
	return r.refusals()
}

// step takes the policy's action in both and compares the outcomes.
func (r *run) step(n int) error {
	if n%40 == 17 {
		if err := r.refusals(); err != nil {
			return err
		}
	}
	a := r.p.Act(r.obs)
	before := r.ref.Visit().Scores()
	got, err := r.env.Step(r.ctx, a.String())
	if err != nil {
		return fmt.Errorf("the policy's action %q is refused: %v", a, err)
	}
	res, err := r.ref.StepObserve(a.String())
	if err != nil {
		return fmt.Errorf("the policy's action %q is refused by the core: %v", a, err)
	}
	canon, err := sim.ParseAction(a.String()) // as Step read it
	if err != nil {
		return fmt.Errorf("Step took %q, which does not parse: %v", a, err)
	}
	r.acts = append(r.acts, canon)
	if err := r.c.step(r.ref.Visit(), r.prev, canon, res, before); err != nil {
		return fmt.Errorf("action %q: the core: %v", canon, err)
	}
	if err := r.shown(got, sim.TurnOf(res.Observation, res), res.Observation); err != nil {
		return fmt.Errorf("action %q: %v", canon, err)
	}
	r.prev = copyObservation(res.Observation)
	return nil
}

// shown compares env's turn got and its observation with the core's
// (want, wantObs), checks them, and keeps them as the latest.
func (r *run) shown(got, want sim.Turn, wantObs *sim.Observation) error {
	if err := sameTurn(got, want); err != nil {
		return err
	}
	obs, err := r.env.Observe(r.ctx)
	if err != nil {
		return fmt.Errorf("Observe: %v", err)
	}
	js, err := json.Marshal(obs)
	if err != nil {
		return fmt.Errorf("encoding the observation: %v", err)
	}
	wantJS, err := json.Marshal(wantObs)
	if err != nil {
		return err
	}
	if string(js) != string(wantJS) {
		return fmt.Errorf("the observation differs from the core's:\n%s\nwant\n%s", js, wantJS)
	}
	if err := r.c.observation(obs, js, got.Text, r.n%10 == 0); err != nil {
		return err
	}
	if err := r.c.hidesWire(got); err != nil {
		return err
	}
	r.turn, r.obs, r.last = got, obs, js
	r.n++
	return nil
}

// sameTurn reports how turn got differs from want, or nil.
func sameTurn(got, want sim.Turn) error {
	if got.Text != want.Text {
		return fmt.Errorf("the turn's text differs from the core's:\n%s\nwant\n%s", got.Text, want.Text)
	}
	if !slices.Equal(got.Events, want.Events) && !(len(got.Events) == 0 && len(want.Events) == 0) {
		return fmt.Errorf("events %+v, want the core's %+v", got.Events, want.Events)
	}
	got.Text, got.Events, got.Wire = "", nil, nil
	want.Text, want.Events, want.Wire = "", nil, nil
	if !reflect.DeepEqual(got, want) {
		return fmt.Errorf("turn %+v, want the core's %+v", got, want)
	}
	return nil
}

// copyObservation returns a deep copy of o, for the checks to keep while
// the core writes its next step into o.
func copyObservation(o *sim.Observation) *sim.Observation {
	c := *o
	c.Frame = *o.Frame.Clone()
	c.Events = slices.Clone(o.Events)
	return &c
}
