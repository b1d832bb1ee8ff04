package sim_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/agents"
)

// Focused tests of Step: impossible actions, giving, copies, the day
// change, histories across days, and what Env.Actions records.

// TestBlockedChangesNothing compares the first three blocked actions of random
// runs with a wait in its place: the observations must agree in all but
// the newcomer's last action and the blocked event.
func TestBlockedChangesNothing(t *testing.T) {
	visits := []string{
		"orchard/social.greet=elder/observe/s21", // a requirement the newcomer may owe
		"market/place.color=red/peers/s22",
		"park/order.bow=market/solo/s23",
		"harbor/none/control/s24",
		"library/resource.carry=1/told/s25",
		"market/disposal.at=bin/observe/s26",
	}
	for _, id := range visits {
		t.Run(id, func(t *testing.T) {
			t.Parallel()
			actions := randomActions(t, id)
			_, seen := replay(t, id, actions)
			checked := 0
			for k := 0; k < len(actions) && checked < 3; k++ {
				var got sim.Observation
				if err := json.Unmarshal(seen[k+1], &got); err != nil {
					t.Fatal(err)
				}
				if !hasBlocked(got.Events) || got.Frame.Step == 0 {
					continue // not blocked, or a new day began
				}
				checked++
				_, alt := replay(t, id, append(slices.Clone(actions[:k]), sim.Action{Verb: sim.Wait}))
				var want sim.Observation
				if err := json.Unmarshal(alt[k+1], &want); err != nil {
					t.Fatal(err)
				}
				got.Frame.Agents[0].LastAction, got.Frame.Agents[0].Failed = sim.Wait, false
				got.Events = slices.DeleteFunc(got.Events, func(ev sim.Event) bool { return ev.Kind == "blocked" })
				if g, w := mustJSON(t, got), mustJSON(t, want); !bytes.Equal(g, w) {
					t.Errorf("step %d: blocked %q, want the same observation as wait but the newcomer's last action and the blocked event:\n%s\n%s", k+1, actions[k], g, w)
				}
			}
			if checked == 0 {
				t.Errorf("random never blocked early: nothing checked")
			}
		})
	}
}

func hasBlocked(evs []sim.Event) bool {
	return slices.ContainsFunc(evs, func(ev sim.Event) bool { return ev.Kind == "blocked" })
}

// randomActions returns the random baseline's actions over visit id.
func randomActions(t *testing.T, id string) []sim.Action {
	t.Helper()
	env, err := agents.Run(id, newPolicy(t, "random", id))
	if err != nil {
		t.Fatal(err)
	}
	var as []sim.Action
	for _, s := range env.Actions() {
		a, err := sim.ParseAction(s)
		if err != nil {
			t.Fatal(err)
		}
		as = append(as, a)
	}
	return as
}

// walkTo steps the newcomer along sim.Plan until it stands where goal g
// can be done, and returns the observation there.
func walkTo(t *testing.T, env *sim.Visit, obs *sim.Observation, g sim.Goal) *sim.Observation {
	t.Helper()
	for n := 0; n < 60; n++ {
		a, arrived, ok := sim.Plan(&obs.Frame, 0, g, nil, nil)
		if !ok {
			t.Fatalf("no way to %+v from %v", g, obs.Frame.Agents[0].Pos)
		}
		if arrived {
			return obs
		}
		res, err := env.Step(a)
		if err != nil {
			t.Fatal(err)
		}
		if res.DayOver {
			t.Fatalf("the day ended while walking to %+v", g)
		}
		obs = res.Observation
	}
	t.Fatalf("did not reach %+v in 60 steps", g)
	return nil
}

// nextTo returns a walkable tile next to (not on) one that passes ok,
// and the move from it onto that tile.
func nextTo(t *testing.T, f *sim.Frame, ok func(sim.Pos, sim.Tile) bool) (sim.Pos, string) {
	t.Helper()
	moves := []struct {
		verb   string
		dx, dy int
	}{{sim.North, 0, -1}, {sim.South, 0, 1}, {sim.East, 1, 0}, {sim.West, -1, 0}}
	for i, tile := range f.Tiles {
		p := sim.Pos{X: i % f.Width, Y: i / f.Width}
		if !ok(p, tile) {
			continue
		}
		for _, m := range moves {
			from := sim.Pos{X: p.X - m.dx, Y: p.Y - m.dy}
			if f.In(from) && f.At(from).Walkable() {
				return from, m.verb
			}
		}
	}
	t.Fatal("no such tile")
	return sim.Pos{}, ""
}

// TestBlocked makes each kind of impossible action happen and checks its
// reason and that the newcomer did not change. Members stand idle under solo.
func TestBlocked(t *testing.T) {
	type setup func(t *testing.T, env *sim.Visit, obs *sim.Observation) (*sim.Observation, sim.Action)
	at := func(a sim.Action) setup {
		return func(t *testing.T, env *sim.Visit, obs *sim.Observation) (*sim.Observation, sim.Action) { return obs, a }
	}
	into := func(terrain string) setup {
		return func(t *testing.T, env *sim.Visit, obs *sim.Observation) (*sim.Observation, sim.Action) {
			from, verb := nextTo(t, &obs.Frame, func(_ sim.Pos, tile sim.Tile) bool { return tile.Terrain == terrain })
			return walkTo(t, env, obs, sim.Goal{Verb: sim.Wait, At: &from}), sim.Action{Verb: verb}
		}
	}
	tests := []struct {
		name   string
		visit  string
		setup  setup
		reason string
	}{
		{name: "off the edge", visit: "orchard/resource.carry=1/solo/s31",
			setup: func(t *testing.T, env *sim.Visit, obs *sim.Observation) (*sim.Observation, sim.Action) {
				edge := sim.Pos{X: 0, Y: obs.Frame.Height - 1}
				return walkTo(t, env, obs, sim.Goal{Verb: sim.Wait, At: &edge}), sim.Action{Verb: sim.South}
			},
			reason: "the edge of the map is that way"},
		{name: "into a wall", visit: "market/resource.carry=1/solo/s32", setup: into("wall"), reason: "you cannot walk onto wall"},
		{name: "into water", visit: "park/resource.carry=1/solo/s33", setup: into("water"), reason: "you cannot walk onto water"},
		{name: "pick from nothing", visit: "orchard/resource.carry=1/solo/s34", setup: at(sim.Action{Verb: sim.Pick}), reason: "there is nothing to pick here"},
		{name: "pick from a bare source", visit: "harbor/resource.carry=1/solo/s35",
			setup: func(t *testing.T, env *sim.Visit, obs *sim.Observation) (*sim.Observation, sim.Action) {
				obs = walkTo(t, env, obs, sim.Goal{Verb: sim.Pick, Object: "source"})
				res, err := env.Step(sim.Action{Verb: sim.Pick})
				if err != nil || hasBlocked(res.Events) {
					t.Fatalf("first pick: %v %+v", err, res.Events)
				}
				return res.Observation, sim.Action{Verb: sim.Pick}
			},
			reason: "there is nothing left to pick here yet"},
		{name: "drop with empty hands", visit: "library/resource.carry=1/solo/s36",
			setup: func(t *testing.T, env *sim.Visit, obs *sim.Observation) (*sim.Observation, sim.Action) {
				res, err := env.Step(sim.Action{Verb: sim.Drop}) // the litter every day starts with
				if err != nil {
					t.Fatal(err)
				}
				return res.Observation, sim.Action{Verb: sim.Drop}
			},
			reason: "you are not carrying anything"},
		{name: "use bare ground", visit: "orchard/resource.carry=1/solo/s37", setup: at(sim.Action{Verb: sim.Use}), reason: "there is nothing to use here"},
		{name: "use the basket", visit: "orchard/resource.carry=1/solo/s38",
			setup: func(t *testing.T, env *sim.Visit, obs *sim.Observation) (*sim.Observation, sim.Action) {
				return walkTo(t, env, obs, sim.Goal{Verb: sim.Wait, Object: "basket"}), sim.Action{Verb: sim.Use}
			},
			reason: "nothing happens when you use the basket"},
		{name: "give to nobody", visit: "orchard/resource.carry=1/solo/s39", setup: at(sim.Action{Verb: sim.Give, Target: "zed"}), reason: "there is nobody called zed"},
		{name: "give to yourself", visit: "orchard/resource.carry=1/solo/s40", setup: at(sim.Action{Verb: sim.Give, Target: sim.NewcomerID}), reason: "you cannot give to yourself"},
		{name: "give to someone far", visit: "orchard/resource.carry=1/solo/s41",
			setup: func(t *testing.T, env *sim.Visit, obs *sim.Observation) (*sim.Observation, sim.Action) {
				for _, a := range obs.Frame.Agents[1:] {
					if cheb(a.Pos, obs.Frame.Agents[0].Pos) > 1 {
						return obs, sim.Action{Verb: sim.Give, Target: a.ID}
					}
				}
				t.Fatal("every member is next to the newcomer")
				return nil, sim.Action{}
			},
			reason: "is not next to you"},
		{name: "give with nothing", visit: "orchard/resource.carry=1/solo/s42",
			setup: func(t *testing.T, env *sim.Visit, obs *sim.Observation) (*sim.Observation, sim.Action) {
				elder := obs.Frame.Agents[1]
				obs = walkTo(t, env, obs, sim.Goal{Verb: sim.Wait, At: &elder.Pos})
				return obs, sim.Action{Verb: sim.Give, Target: elder.ID}
			},
			reason: "you have nothing to give"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env, obs, err := sim.NewVisit(tc.visit)
			if err != nil {
				t.Fatal(err)
			}
			obs, a := tc.setup(t, env, obs)
			res, err := env.Step(a)
			if err != nil {
				t.Fatalf("Step(%q): %v", a, err)
			}
			var texts []string
			for _, ev := range res.Events {
				if ev.Kind == "blocked" {
					texts = append(texts, ev.Text)
				}
			}
			if got, want := len(texts), 1; got != want {
				t.Fatalf("Step(%q) gave %d blocked events (%+v), want %d", a, got, res.Events, want)
			}
			if got, want := texts[0], tc.reason; !strings.Contains(got, want) {
				t.Errorf("blocked text = %q, want it to contain %q", got, want)
			}
			// A blocked action changes nothing of the newcomer but its
			// last action, marked as failed.
			was, is := obs.Frame.Agents[0], res.Observation.Frame.Agents[0]
			was.LastAction, was.Failed = a.String(), true
			if is != was {
				t.Errorf("blocked Step(%q): newcomer %+v, want %+v", a, is, was)
			}
		})
	}
}

// TestGive hands a good to an idle member next to the newcomer.
func TestGive(t *testing.T) {
	env, obs, err := sim.NewVisit("orchard/resource.carry=1/solo/s43")
	if err != nil {
		t.Fatal(err)
	}
	obs = walkTo(t, env, obs, sim.Goal{Verb: sim.Pick, Object: "source"})
	res, err := env.Step(sim.Action{Verb: sim.Pick})
	if err != nil {
		t.Fatal(err)
	}
	obs = res.Observation
	elder := obs.Frame.Agents[1]
	next, _ := nextTo(t, &obs.Frame, func(p sim.Pos, _ sim.Tile) bool { return p == elder.Pos })
	obs = walkTo(t, env, obs, sim.Goal{Verb: sim.Wait, At: &next})
	res, err = env.Step(sim.Action{Verb: sim.Give, Target: elder.ID})
	if err != nil {
		t.Fatal(err)
	}
	if hasBlocked(res.Events) {
		t.Fatalf("give was blocked: %+v", res.Events)
	}
	f := &res.Observation.Frame
	if got, want := f.Agents[0].Goods, obs.Frame.Agents[0].Goods-1; got != want {
		t.Errorf("newcomer goods = %d, want %d", got, want)
	}
	if got, want := f.Agents[1].Goods, elder.Goods; got != want {
		t.Errorf("%s goods = %d, want %d (a gift is kept, not carried)", elder.ID, got, want)
	}
	if got, want := f.Agents[1].Received, elder.Received+1; got != want {
		t.Errorf("%s received = %d, want %d", elder.ID, got, want)
	}
	if got, want := f.Agents[0].Delivered, 0; got != want {
		t.Errorf("delivered = %d, want %d (giving is not delivering)", got, want)
	}
}

// TestObservationIsACopy changes a returned observation and checks that
// the env did not notice.
func TestObservationIsACopy(t *testing.T) {
	env, obs, err := sim.NewVisit("orchard/place.color=blue/observe/s17")
	if err != nil {
		t.Fatal(err)
	}
	before := mustJSON(t, env.Observe())
	obs.Frame.Tiles[0].Terrain = "water"
	obs.Frame.Agents[0].Pos = sim.Pos{X: -1, Y: -1}
	obs.Frame.Zones[0].Name = "nowhere"
	obs.Events[0].Text = "changed"
	obs.Task.Goods = 99
	fr := env.Frame()
	fr.Agents[1].Goods = 42
	if got := mustJSON(t, env.Observe()); !bytes.Equal(got, before) {
		t.Errorf("changing a returned observation or frame changed the env:\n%s\n%s", got, before)
	}
}

// TestDayChangeEventsOnce checks the observation that opens the test day:
// it holds the last practice step's events once each, then the day event.
func TestDayChangeEventsOnce(t *testing.T) {
	// Greedy's last practice act is dropping its litter, without bowing:
	// under solo the warden sanctions it on that last step.
	for _, id := range []string{"orchard/order.bow=drop/solo/s1", "market/order.bow=drop/solo/s2"} {
		t.Run(id, func(t *testing.T) {
			p := newPolicy(t, "greedy", id)
			env, obs, err := sim.NewVisit(id)
			if err != nil {
				t.Fatal(err)
			}
			for obs.Day == 1 {
				res, err := env.Step(p.Act(obs))
				if err != nil {
					t.Fatal(err)
				}
				obs = res.Observation
			}
			last := env.Scores().Steps[0] - 1
			var want []sim.Event
			for _, ev := range env.Events() {
				if ev.Day == 1 && ev.Step == last || ev.Day == 2 {
					want = append(want, ev)
				}
			}
			if len(want) < 2 {
				t.Fatalf("the last practice step had no events; pick another visit")
			}
			if got := obs.Events; !reflect.DeepEqual(got, want) {
				t.Errorf("events opening the test day = %+v, want %+v", got, want)
			}
		})
	}
}

// TestHistResetsEachDay: a bow on the practice day does not count for the
// test day. The newcomer bows once (in place: the rule calls for a bow
// before entering the market), waits out the practice day, then walks into
// the market.
func TestHistResetsEachDay(t *testing.T) {
	env, obs, err := sim.NewVisit("orchard/order.bow=market/solo/s44")
	if err != nil {
		t.Fatal(err)
	}
	for obs.Day == 1 {
		a := sim.Action{Verb: sim.Wait}
		if obs.Frame.Step == 0 {
			a.Verb = sim.Bow
		}
		res, err := env.Step(a)
		if err != nil {
			t.Fatal(err)
		}
		obs = res.Observation
	}
	var market sim.Pos
	for _, z := range obs.Frame.Zones {
		if z.Name == "market" {
			market = z.Min
		}
	}
	walkTo(t, env, obs, sim.Goal{Verb: sim.Wait, At: &market})
	sc := env.Scores()
	if got, want := sc.Violations[0], 0; got != want {
		t.Errorf("practice-day violations = %d, want %d", got, want)
	}
	if got, want := sc.Violations[1], 1; got != want {
		t.Errorf("test-day violations = %d, want %d (entering the market without a bow that day)", got, want)
	}
}

// TestStepActionsReplay: Env.Actions records what Step did, so replaying
// it gives the same run — also for Action values not in canonical form.
func TestStepActionsReplay(t *testing.T) {
	tests := []struct {
		name string
		a    sim.Action
	}{
		{name: "canonical move", a: sim.Action{Verb: sim.North}},
		{name: "canonical give", a: sim.Action{Verb: sim.Give, Target: "mara"}},
		{name: "wait with a stray target", a: sim.Action{Verb: sim.Wait, Target: "mara"}},
		{name: "upper-case verb", a: sim.Action{Verb: "North"}},
		{name: "abbreviated verb", a: sim.Action{Verb: "n"}},
		{name: "upper-case give target", a: sim.Action{Verb: sim.Give, Target: "Mara"}},
	}
	const id = "orchard/none/control/s3"
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env, _, err := sim.NewVisit(id)
			if err != nil {
				t.Fatal(err)
			}
			res, err := env.Step(tc.a)
			if err != nil {
				t.Fatalf("Step(%#v): %v", tc.a, err)
			}
			var actions []sim.Action
			for _, s := range env.Actions() {
				a, err := sim.ParseAction(s)
				if err != nil {
					t.Fatalf("Actions() holds %q: %v", s, err)
				}
				actions = append(actions, a)
			}
			again, seen := replay(t, id, actions)
			if got, want := seen[1], mustJSON(t, res.Observation); !bytes.Equal(got, want) {
				var o sim.Observation
				if err := json.Unmarshal(got, &o); err != nil {
					t.Fatal(err)
				}
				t.Errorf("Step(%#v) recorded %q; replaying it: newcomer %+v, events %+v; want newcomer %+v, events %+v",
					tc.a, env.Actions(), o.Frame.Agents[0], o.Events, res.Observation.Frame.Agents[0], res.Observation.Events)
			}
			if got, want := again.Hash(), env.Hash(); got != want {
				t.Errorf("Step(%#v) recorded %q; replaying it: hash %.12s…, want %.12s…", tc.a, env.Actions(), got, want)
			}
		})
	}
}

// TestStepInto: StepInto writing into one observation gives, step by
// step, the observation Step gives; a refused step leaves it as it was.
func TestStepInto(t *testing.T) {
	for _, id := range []string{"orchard/place.color=blue/observe/s17", "harbor/order.bow=drop/solo/s2", "park/none/control/s5"} {
		t.Run(id, func(t *testing.T) {
			p := newPolicy(t, "greedy", id)
			a, obs, err := sim.NewVisit(id)
			if err != nil {
				t.Fatal(err)
			}
			b, into, err := sim.NewVisit(id)
			if err != nil {
				t.Fatal(err)
			}
			first := mustJSON(t, into)
			if _, err := b.StepInto(sim.Action{Verb: "fly"}, into); !errors.Is(err, sim.ErrAction) {
				t.Errorf("StepInto(fly) = %v, want ErrAction", err)
			}
			if got := mustJSON(t, into); !bytes.Equal(got, first) {
				t.Errorf("a refused StepInto changed the observation")
			}
			for step := 1; !a.Over(); step++ {
				act := p.Act(obs)
				ra, err := a.Step(act)
				if err != nil {
					t.Fatal(err)
				}
				rb, err := b.StepInto(act, into)
				if err != nil {
					t.Fatal(err)
				}
				if rb.Observation != into {
					t.Fatalf("step %d: StepInto returned another observation", step)
				}
				if got, want := mustJSON(t, rb), mustJSON(t, ra); !bytes.Equal(got, want) {
					t.Fatalf("step %d: StepInto gave\n%s\nStep gave\n%s", step, got, want)
				}
				obs = ra.Observation
			}
			before := mustJSON(t, into)
			if _, err := b.StepInto(sim.Action{Verb: sim.Wait}, into); !errors.Is(err, sim.ErrVisitOver) {
				t.Errorf("StepInto after the end = %v, want ErrVisitOver", err)
			}
			if _, err := b.StepInto(sim.Action{Verb: "fly"}, into); !errors.Is(err, sim.ErrVisitOver) {
				t.Errorf("StepInto(fly) after the end = %v, want ErrVisitOver", err)
			}
			if got := mustJSON(t, into); !bytes.Equal(got, before) {
				t.Errorf("a refused StepInto changed the observation")
			}
		})
	}
}
