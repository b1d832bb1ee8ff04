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

// reset checks the first observation of a visit and the fresh core.
func (c *checker) reset(v *sim.Visit, o *sim.Observation) error {
	if got, want := o.Day, 1; got != want {
		return fmt.Errorf("day = %d, want %d", got, want)
	}
	if got, want := o.Frame.Step, 0; got != want {
		return fmt.Errorf("step = %d, want %d", got, want)
	}
	if o.Done || v.Over() {
		return errors.New("the visit is over at reset")
	}
	if got, want := v.ID(), c.v; got != want {
		return fmt.Errorf("ID() = %v, want %v", got, want)
	}
	if got, want := v.Day(), 1; got != want {
		return fmt.Errorf("Day() = %d, want %d", got, want)
	}
	if len(v.Actions()) != 0 {
		return fmt.Errorf("Actions() = %q at reset, want none", v.Actions())
	}
	if got, want := len(o.Events), 1; got != want || o.Events[0].Kind != "day" {
		return fmt.Errorf("events = %+v, want just the day event", o.Events)
	}
	if ev := o.Events[0]; ev.Day != 1 || ev.Step != 0 {
		return fmt.Errorf("day event at day %d step %d, want day 1 step 0", ev.Day, ev.Step)
	}
	if (v.Norm() == nil) != (c.v.Condition == sim.Control) {
		return fmt.Errorf("Norm() = %v under %s", v.Norm(), c.v.Condition)
	}
	return nil
}

// end checks the core's visit once it is over, after actions: steps fail
// and change nothing, and the accessors, scores and record agree.
func (c *checker) end(v *sim.Visit, actions []sim.Action) error {
	hash := v.Hash()
	obs, err := json.Marshal(v.Observe())
	if err != nil {
		return err
	}
	for _, a := range []sim.Action{{Verb: sim.Wait}, {Verb: sim.North}, {Verb: sim.Give, Target: "mara"}} {
		if _, err := v.Step(a); !errors.Is(err, sim.ErrVisitOver) {
			return fmt.Errorf("Step(%q) = %v, want ErrVisitOver", a, err)
		}
	}
	if got := v.Hash(); got != hash {
		return fmt.Errorf("Step after the end changed the hash from %s to %s", hash, got)
	}
	if got, err := json.Marshal(v.Observe()); err != nil || !bytes.Equal(got, obs) {
		return errors.New("Step after the end changed the observation")
	}
	var want []string
	for _, a := range actions {
		want = append(want, a.String())
	}
	if got := v.Actions(); !slices.Equal(got, want) {
		return fmt.Errorf("Actions() = %q, want %q", got, want)
	}
	sc := v.Scores()
	if err := c.scores(sc, len(actions), v.Events()); err != nil {
		return err
	}
	r := v.Record("simtest", "baseline")
	if r.Visit != c.v.String() || r.Hash != hash || !slices.Equal(r.Actions, want) || !reflect.DeepEqual(r.Scores, sc) || r.Probe != nil {
		return fmt.Errorf("Record() = %+v disagrees with the visit", r)
	}
	return nil
}

// scores checks a finished visit's scores against themselves, the number
// of actions and the events.
func (c *checker) scores(sc sim.Scores, actions int, events []sim.Event) error {
	if got := sc.Steps[0] + sc.Steps[1]; got != actions {
		return fmt.Errorf("steps %v add up to %d, want %d", sc.Steps, got, actions)
	}
	if got, want := sc.Joint, sc.Task && sc.Compliance; got != want {
		return fmt.Errorf("joint = %v, want task ∧ compliance = %v", got, want)
	}
	if got, want := sc.Compliance, sc.Violations[sim.Days-1] == 0; got != want {
		return fmt.Errorf("compliance = %v with test-day violations %d", got, sc.Violations[sim.Days-1])
	}
	perDay := make([]int, sim.Days)
	total := 0
	for _, ev := range events {
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
	return nil
}
