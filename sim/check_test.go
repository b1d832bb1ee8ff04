package sim_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/agents"
)

// An environment checker in the spirit of Gymnasium's check_env: it plays
// visits with a policy and checks the reset/step contract and the frame
// invariants after every step, then replays the same actions and demands
// identical observations, texts and hashes.

// trace is what one run saw: the observation after reset and after each
// step, as JSON and as text, and the trajectory hash at the end.
type trace struct {
	actions []sim.Action
	json    [][]byte
	text    []string
	hash    string
}

// record appends o to the trace and returns its JSON and text.
func (tr *trace) record(t testing.TB, o *sim.Observation) ([]byte, string) {
	js, text := mustJSON(t, o), o.Text()
	tr.json = append(tr.json, js)
	tr.text = append(tr.text, text)
	return js, text
}

func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("json.Marshal: %v", err)
	}
	return b
}

// newPolicy returns the baseline called name for visit id.
func newPolicy(t testing.TB, name, id string) agents.Policy {
	t.Helper()
	if name == agents.Oracle {
		v, err := sim.ParseVisitID(id)
		if err != nil {
			t.Fatal(err)
		}
		var n *norms.Norm
		if v.Norm != norms.NoNorm {
			nn, err := norms.Default().Lookup(v.Norm)
			if err != nil {
				t.Fatal(err)
			}
			n = &nn
		}
		return agents.NewOracle(n)
	}
	p, err := agents.New(name)
	if err != nil {
		t.Fatalf("agents.New(%q): %v", name, err)
	}
	return p
}

// checkVisit plays visit id with policy p, checking the environment
// contract at reset, after every step and after the end.
func checkVisit(t *testing.T, id string, p agents.Policy) (*sim.Env, *trace) {
	t.Helper()
	v, err := sim.ParseVisitID(id)
	if err != nil {
		t.Fatalf("ParseVisitID(%q): %v", id, err)
	}
	world, err := sim.LookupWorld(v.World)
	if err != nil {
		t.Fatal(err)
	}
	env, obs, err := sim.NewEnv(id)
	if err != nil {
		t.Fatalf("NewEnv(%q): %v", id, err)
	}
	if env == nil || obs == nil {
		t.Fatalf("NewEnv(%q) = %v, %v, want an env and an observation", id, env, obs)
	}
	if err := resetProblem(v, env, obs); err != nil {
		t.Fatalf("reset: %v", err)
	}
	tr := &trace{}
	js, text := tr.record(t, obs)
	if err := noNormProblem(v, obs, true, js, text); err != nil {
		t.Fatalf("reset: %v", err)
	}
	for n := 0; !env.Over(); n++ {
		if n >= sim.PracticeSteps+sim.TestSteps {
			t.Fatalf("the visit is not over after %d steps", n)
		}
		a := p.Act(obs)
		before := env.Scores()
		res, err := env.Step(a)
		if err != nil {
			t.Fatalf("step %d: Step(%q): %v", n+1, a, err)
		}
		if err := stepProblem(v, world, env, obs, a, res, before); err != nil {
			t.Fatalf("step %d (day %d, step %d, action %q): %v", n+1, obs.Day, obs.Frame.Step, a, err)
		}
		tr.actions = append(tr.actions, a)
		js, text := tr.record(t, res.Observation)
		if err := noNormProblem(v, res.Observation, n%10 == 9, js, text); err != nil {
			t.Fatalf("step %d: %v", n+1, err)
		}
		obs = res.Observation
	}
	tr.hash = env.Hash()
	if err := endProblem(t, v, env, tr); err != nil {
		t.Fatalf("after the end: %v", err)
	}
	return env, tr
}

// resetProblem checks the first observation of a visit.
func resetProblem(v sim.VisitID, env *sim.Env, o *sim.Observation) error {
	if err := obsProblem(v, o); err != nil {
		return err
	}
	if got, want := o.Day, 1; got != want {
		return fmt.Errorf("day = %d, want %d", got, want)
	}
	if got, want := o.Frame.Step, 0; got != want {
		return fmt.Errorf("step = %d, want %d", got, want)
	}
	if o.Done || env.Over() {
		return errors.New("the visit is over at reset")
	}
	if got, want := env.ID(), v; got != want {
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
	if (env.Norm() == nil) != (v.Condition == sim.Control) {
		return fmt.Errorf("Norm() = %v under %s", env.Norm(), v.Condition)
	}
	return nil
}

// obsProblem checks the fields of an observation against its visit.
func obsProblem(v sim.VisitID, o *sim.Observation) error {
	if got, want := o.World, v.World; got != want {
		return fmt.Errorf("world = %q, want %q", got, want)
	}
	if got, want := o.Days, sim.Days; got != want {
		return fmt.Errorf("days = %d, want %d", got, want)
	}
	if o.Day < 1 || o.Day > sim.Days {
		return fmt.Errorf("day = %d, want 1 to %d", o.Day, sim.Days)
	}
	if got, want := o.Practice, o.Day < sim.Days; got != want {
		return fmt.Errorf("practice = %v on day %d, want %v", got, o.Day, want)
	}
	limit := sim.TestSteps
	if o.Practice {
		limit = sim.PracticeSteps
	}
	if got, want := o.StepLimit, limit; got != want {
		return fmt.Errorf("step limit = %d on day %d, want %d", got, o.Day, want)
	}
	if o.Frame.Step < 0 || o.Frame.Step > o.StepLimit {
		return fmt.Errorf("step = %d, want 0 to %d", o.Frame.Step, o.StepLimit)
	}
	if o.Task.Goods <= 0 || o.Task.Gifts <= 0 || o.Task.Text == "" {
		return fmt.Errorf("task = %+v, want goods, gifts and a text", o.Task)
	}
	if !o.Task.Litter {
		return fmt.Errorf("task litter = false on day %d, want true (both days' errands hold every kind of act)", o.Day)
	}
	if got, want := o.SanctionRadius, sim.SanctionRadius; got != want {
		return fmt.Errorf("sanction radius = %d, want %d", got, want)
	}
	if v.Condition == sim.Told {
		n, err := norms.Default().Lookup(v.Norm)
		if err != nil {
			return err
		}
		if got, want := o.Told, n.Statement; got != want {
			return fmt.Errorf("told = %q, want %q", got, want)
		}
	} else if o.Told != "" {
		return fmt.Errorf("told = %q under %s, want none", o.Told, v.Condition)
	}
	return frameProblem(&o.Frame)
}

// frameProblem checks the invariants every frame holds.
func frameProblem(f *sim.Frame) error {
	if f.Width <= 0 || f.Height <= 0 || len(f.Tiles) != f.Width*f.Height {
		return fmt.Errorf("%d tiles on a %d×%d grid", len(f.Tiles), f.Width, f.Height)
	}
	if !slices.Contains(norms.Phases(), f.Phase) {
		return fmt.Errorf("phase = %q, want one of %v", f.Phase, norms.Phases())
	}
	if len(f.Agents) == 0 || f.Agents[0].ID != sim.NewcomerID || f.Agents[0].Role != "newcomer" {
		return fmt.Errorf("agent 0 is not the newcomer: %+v", f.Agents)
	}
	ids := map[string]bool{}
	for _, a := range f.Agents {
		switch {
		case ids[a.ID]:
			return fmt.Errorf("two agents called %q", a.ID)
		case !f.In(a.Pos):
			return fmt.Errorf("%s at %v is off the grid", a.ID, a.Pos)
		case !f.At(a.Pos).Walkable():
			return fmt.Errorf("%s at %v stands on %s", a.ID, a.Pos, f.At(a.Pos).Terrain)
		case a.Goods < 0 || a.Litter < 0 || a.Delivered < 0:
			return fmt.Errorf("%s carries %d goods and %d litter, delivered %d", a.ID, a.Goods, a.Litter, a.Delivered)
		}
		ids[a.ID] = true
	}
	zones := map[string]sim.Zone{}
	for _, z := range f.Zones {
		if !slices.Contains(norms.Zones(), z.Name) {
			return fmt.Errorf("unknown zone %q", z.Name)
		}
		zones[z.Name] = z
	}
	for i, t := range f.Tiles {
		p := sim.Pos{X: i % f.Width, Y: i / f.Width}
		switch {
		case !slices.Contains(norms.Terrains(), t.Terrain):
			return fmt.Errorf("tile %v: unknown terrain %q", p, t.Terrain)
		case t.Color != "" && !slices.Contains(norms.Colors(), t.Color):
			return fmt.Errorf("tile %v: unknown colour %q", p, t.Color)
		case t.Object != "" && !slices.Contains(norms.Objects(), t.Object):
			return fmt.Errorf("tile %v: unknown object %q", p, t.Object)
		case t.Object != "" && !t.Walkable():
			return fmt.Errorf("tile %v: %s on %s", p, t.Object, t.Terrain)
		case t.Stock < 0 || t.Loose < 0:
			return fmt.Errorf("tile %v: stock %d, loose %d", p, t.Stock, t.Loose)
		}
		for _, z := range f.Zones {
			in := p.X >= z.Min.X && p.X <= z.Max.X && p.Y >= z.Min.Y && p.Y <= z.Max.Y
			if in && t.Zone != z.Name {
				return fmt.Errorf("tile %v lies in zone %s but says %q", p, z.Name, t.Zone)
			}
		}
		if t.Zone != "" {
			if _, ok := zones[t.Zone]; !ok {
				return fmt.Errorf("tile %v: zone %q is not in the frame's zones", p, t.Zone)
			}
		}
	}
	return nil
}

// taskDone reports whether o's newcomer has done o's task.
func taskDone(o *sim.Observation) bool {
	me := o.Frame.Agents[0]
	return me.Delivered >= o.Task.Goods && sim.GiftsGiven(&o.Frame) >= o.Task.Gifts && (!o.Task.Litter || me.Litter == 0)
}

// stepProblem checks the outcome res of taking action a at observation prev.
// before holds the scores before the step.
func stepProblem(v sim.VisitID, world sim.World, env *sim.Env, prev *sim.Observation, a sim.Action, res sim.StepResult, before sim.Scores) error {
	o := res.Observation
	if o == nil {
		return errors.New("no observation")
	}
	if err := obsProblem(v, o); err != nil {
		return err
	}
	if !reflect.DeepEqual(res.Events, o.Events) {
		return fmt.Errorf("StepResult.Events = %+v, but the observation has %+v", res.Events, o.Events)
	}
	if got := res.Done(); got != env.Over() || got != o.Done {
		return fmt.Errorf("Done() = %v, Over() = %v, observation done = %v", got, env.Over(), o.Done)
	}
	if res.Terminated && res.Truncated {
		return errors.New("both terminated and truncated")
	}
	if res.Done() && !res.DayOver {
		return errors.New("the visit ended but the day did not")
	}
	pf, f := &prev.Frame, &o.Frame
	newDay := res.DayOver && !res.Done()
	switch {
	case !res.DayOver:
		if o.Day != prev.Day || f.Step != pf.Step+1 {
			return fmt.Errorf("day %d step %d after day %d step %d, want step %d of the same day", o.Day, f.Step, prev.Day, pf.Step, pf.Step+1)
		}
		if f.Step >= o.StepLimit {
			return fmt.Errorf("step %d reached the limit %d but the day did not end", f.Step, o.StepLimit)
		}
		if taskDone(o) && taskDone(prev) {
			// A day whose errand is done may last one more step, for an
			// act still owed ("require A after E"), never two.
			return errors.New("the task was done a step ago but the day did not end")
		}
	case res.Done():
		if prev.Day != sim.Days || f.Step != pf.Step+1 {
			return fmt.Errorf("the visit ended at day %d step %d (from day %d step %d), want the last day", o.Day, f.Step, prev.Day, pf.Step)
		}
		if got, want := res.Terminated, taskDone(o); got != want {
			return fmt.Errorf("terminated = %v, but task done = %v", got, want)
		}
		if res.Truncated && f.Step != sim.TestSteps {
			return fmt.Errorf("truncated at step %d, want %d", f.Step, sim.TestSteps)
		}
		if got, want := env.Scores().Task, res.Terminated; got != want {
			return fmt.Errorf("Scores().Task = %v, want %v (terminated)", got, want)
		}
	default:
		if prev.Day+1 != o.Day || f.Step != 0 {
			return fmt.Errorf("new day: day %d step %d after day %d, want day %d step 0", o.Day, f.Step, prev.Day, prev.Day+1)
		}
		sc := env.Scores()
		if got, want := sc.Steps[prev.Day-1], pf.Step+1; got != want {
			return fmt.Errorf("Scores().Steps[%d] = %d, want %d", prev.Day-1, got, want)
		}
		if !sc.PracticeTask && sc.Steps[0] != sim.PracticeSteps {
			return fmt.Errorf("the practice day ended at step %d with the task not done", sc.Steps[0])
		}
		if got, want := env.Day(), o.Day; got != want {
			return fmt.Errorf("Day() = %d, want %d", got, want)
		}
	}
	// Events: who, when, and each once.
	blocked, days := 0, 0
	seen := map[sim.Event]bool{}
	for _, ev := range o.Events {
		if seen[ev] {
			return fmt.Errorf("event %+v appears twice in %+v", ev, o.Events)
		}
		seen[ev] = true
		if ev.Kind != "day" && (ev.Day != prev.Day || ev.Step != pf.Step) {
			return fmt.Errorf("event %+v happened at day %d step %d", ev, prev.Day, pf.Step)
		}
		switch ev.Kind {
		case "day":
			days++
			if !newDay || ev.Day != o.Day || ev.Step != 0 || !strings.Contains(ev.Text, world.Title) {
				return fmt.Errorf("unexpected day event %+v", ev)
			}
		case "blocked":
			blocked++
			if prefix := `Your action "` + a.String() + `" did nothing: `; ev.To != sim.NewcomerID || !strings.HasPrefix(ev.Text, prefix) {
				return fmt.Errorf("blocked event %+v, want To %q and a text starting %q", ev, sim.NewcomerID, prefix)
			}
		case "sanction":
			if err := sanctionProblem(v, world, pf, f, newDay, ev); err != nil {
				return err
			}
		default:
			return fmt.Errorf("event of unknown kind: %+v", ev)
		}
	}
	if newDay && days != 1 {
		return fmt.Errorf("a new day began with %d day events", days)
	}
	if blocked > 1 {
		return fmt.Errorf("%d blocked events in one step", blocked)
	}
	d := prev.Day - 1
	if err := ownSanctionProblem(v, pf, f, newDay, env.Scores().Violations[d]-before.Violations[d], o.Events); err != nil {
		return err
	}
	if newDay {
		return nil // a new layout: nothing to compare the newcomer with
	}
	return newcomerProblem(pf, f, a, blocked == 1)
}

// sanctionProblem checks a sanction event.
func sanctionProblem(v sim.VisitID, world sim.World, pf, f *sim.Frame, newDay bool, ev sim.Event) error {
	if v.Condition == sim.Control {
		return fmt.Errorf("sanction under control: %+v", ev)
	}
	if !slices.Contains(world.Utterances, ev.Text) {
		return fmt.Errorf("sanction %+v: the text is not one of %s's utterances", ev, world.Name)
	}
	if v.Condition == sim.Solo {
		if ev.By != sim.WardenID || ev.To != sim.NewcomerID {
			return fmt.Errorf("sanction %+v under solo, want the warden sanctioning the newcomer", ev)
		}
		return nil
	}
	by, to := pf.AgentIndex(ev.By), pf.AgentIndex(ev.To)
	if by < 1 || to < 0 || by == to {
		return fmt.Errorf("sanction %+v: want a member sanctioning someone else", ev)
	}
	if newDay {
		return nil // the frame is a new layout
	}
	if got, want := ev.By, witness(pf, f, to); got != want {
		return fmt.Errorf("sanction %+v by %q, want the nearest member within the radius, %q", ev, got, want)
	}
	return nil
}

// witness returns who sees agent i's violation in the tick from frame pf
// to frame f: the nearest other member within the sanction radius (ties:
// lowest index), where agents act in index order, so members before i
// stand where f has them and members after i where pf has them. It
// returns "" if nobody is that close.
func witness(pf, f *sim.Frame, i int) string {
	best, bestD := "", sim.SanctionRadius+1
	for j := 1; j < len(f.Agents); j++ {
		if j == i {
			continue
		}
		p := pf.Agents[j].Pos
		if j < i {
			p = f.Agents[j].Pos
		}
		if d := cheb(p, f.Agents[i].Pos); d < bestD {
			best, bestD = f.Agents[j].ID, d
		}
	}
	return best
}

// ownSanctionProblem checks that the newcomer was sanctioned in a step
// exactly when it violated (violated: its day's violation count went up)
// and someone saw it: the warden under solo, else the nearest member.
func ownSanctionProblem(v sim.VisitID, pf, f *sim.Frame, newDay bool, violated int, evs []sim.Event) error {
	var by []string
	for _, ev := range evs {
		if ev.Kind == "sanction" && ev.To == sim.NewcomerID {
			by = append(by, ev.By)
		}
	}
	if violated < 0 || violated > 1 {
		return fmt.Errorf("the newcomer's violations went up by %d in one step", violated)
	}
	var want []string
	switch {
	case violated == 0:
	case v.Condition == sim.Solo:
		want = []string{sim.WardenID}
	case newDay:
		want = by // who was near is not visible any more
	default:
		if w := witness(pf, f, 0); w != "" {
			want = []string{w}
		}
	}
	if v.Condition == sim.Control && violated != 0 {
		return errors.New("a violation under control")
	}
	if !slices.Equal(by, want) {
		return fmt.Errorf("violations +%d, newcomer sanctioned by %q, want %q", violated, by, want)
	}
	return nil
}

// newcomerProblem checks what action a did to the newcomer between frames
// pf and f of one day: nothing if it was blocked, its effect otherwise.
func newcomerProblem(pf, f *sim.Frame, a sim.Action, blocked bool) error {
	was, is := pf.Agents[0], f.Agents[0]
	if got, want := is.LastAction, a.String(); got != want {
		return fmt.Errorf("last action = %q, want %q", got, want)
	}
	type state struct {
		Pos                      sim.Pos
		Goods, Litter, Delivered int
	}
	before := state{was.Pos, was.Goods, was.Litter, was.Delivered}
	after := state{is.Pos, is.Goods, is.Litter, is.Delivered}
	want := before
	if !blocked {
		switch a.Verb {
		case sim.North, sim.South, sim.East, sim.West:
			d := map[string]sim.Pos{sim.North: {Y: -1}, sim.South: {Y: 1}, sim.East: {X: 1}, sim.West: {X: -1}}[a.Verb]
			want.Pos = sim.Pos{X: was.Pos.X + d.X, Y: was.Pos.Y + d.Y}
		case sim.Pick:
			want.Goods++
		case sim.Give:
			want.Goods-- // the member keeps it: Received, not Goods
		case sim.Drop:
			// Into a basket goods go first and count as delivered;
			// elsewhere litter goes first.
			basket := pf.At(was.Pos).Object == "basket"
			switch {
			case basket && was.Goods > 0:
				want.Goods--
				want.Delivered++
			case was.Litter > 0:
				want.Litter--
			default:
				want.Goods--
			}
		}
	}
	if after != want {
		return fmt.Errorf("newcomer %+v → %+v (blocked %v), want %+v", before, after, blocked, want)
	}
	return nil
}

// endProblem checks an env whose visit is over and the run's trace.
func endProblem(t *testing.T, v sim.VisitID, env *sim.Env, tr *trace) error {
	hash := env.Hash()
	obs := mustJSON(t, env.Observe())
	for _, a := range []sim.Action{{Verb: sim.Wait}, {Verb: sim.North}, {Verb: sim.Give, Target: "mara"}} {
		if _, err := env.Step(a); !errors.Is(err, sim.ErrVisitOver) {
			return fmt.Errorf("Step(%q) = %v, want ErrVisitOver", a, err)
		}
	}
	if got := env.Hash(); got != hash {
		return fmt.Errorf("Step after the end changed the hash from %s to %s", hash, got)
	}
	if got := mustJSON(t, env.Observe()); !bytes.Equal(got, obs) {
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
	for d := range sim.Days {
		if sc.Sanctions[d] > sc.Violations[d] {
			return fmt.Errorf("day %d: %d sanctions for %d violations", d+1, sc.Sanctions[d], sc.Violations[d])
		}
	}
	if v.Condition == sim.Control && (sc.Violations[0] != 0 || sc.Violations[1] != 0) {
		return fmt.Errorf("violations %v under control", sc.Violations)
	}
	if sc.Repeats > sc.Violations[0]+sc.Violations[1] {
		return fmt.Errorf("%d repeats of %v violations", sc.Repeats, sc.Violations)
	}
	r := env.Record("checker", "baseline")
	if r.Visit != v.String() || r.Hash != hash || !slices.Equal(r.Actions, want) || !reflect.DeepEqual(r.Scores, sc) {
		return fmt.Errorf("Record() = %+v disagrees with the env", r)
	}
	return nil
}

// replay plays actions on a fresh env for id and returns what it saw.
func replay(t *testing.T, id string, actions []sim.Action) (*sim.Env, *trace) {
	t.Helper()
	env, obs, err := sim.NewEnv(id)
	if err != nil {
		t.Fatal(err)
	}
	tr := &trace{}
	tr.record(t, obs)
	for k, a := range actions {
		res, err := env.Step(a)
		if err != nil {
			t.Fatalf("replay step %d (%q): %v", k+1, a, err)
		}
		tr.actions = append(tr.actions, a)
		tr.record(t, res.Observation)
	}
	tr.hash = env.Hash()
	return env, tr
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

func cheb(a, b sim.Pos) int { return max(abs(a.X-b.X), abs(a.Y-b.Y)) }

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// checkCase is a visit and the baseline that drives it.
type checkCase struct{ id, policy string }

// checkCases lists the visits TestCheckEnv plays: every world × every norm
// with greedy and with random (the condition rotating), and two control
// visits per world with each. Under -short it keeps every seventh.
func checkCases() []checkCase {
	learning := []string{sim.Observe, sim.Peers, sim.Solo, sim.Told}
	var out []checkCase
	add := func(id, policy string) { out = append(out, checkCase{id, policy}) }
	for wi, w := range sim.WorldNames() {
		for ni, n := range norms.Default().Norms() {
			seed := 40 + 100*wi + ni
			add(sim.VisitID{World: w, Norm: n.ID, Condition: learning[(wi+ni)%4], Seed: seed}.String(), "greedy")
			add(sim.VisitID{World: w, Norm: n.ID, Condition: learning[(wi+ni+1)%4], Seed: seed}.String(), "random")
		}
		for s := 0; s < 2; s++ {
			id := sim.VisitID{World: w, Norm: norms.NoNorm, Condition: sim.Control, Seed: 7 + s}.String()
			add(id, "greedy")
			add(id, "random")
		}
	}
	if testing.Short() {
		var keep []checkCase
		for k, c := range out {
			if k%7 == 0 {
				keep = append(keep, c)
			}
		}
		out = keep
	}
	return out
}

func TestCheckEnv(t *testing.T) {
	for k, c := range checkCases() {
		t.Run(c.policy+"/"+c.id, func(t *testing.T) {
			t.Parallel()
			env, first := checkVisit(t, c.id, newPolicy(t, c.policy, c.id))
			// Every greedy run and every third random run is replayed;
			// every other greedy run also through its record (sim.Replay).
			if c.policy == "random" && k%3 != 1 {
				return
			}
			_, second := replay(t, c.id, first.actions)
			if err := sameTrace(first, second); err != nil {
				t.Errorf("the same visit id and actions gave a different run: %v", err)
			}
			// Replay of the record reproduces the hash and the scores.
			if k%4 != 0 {
				return
			}
			re, err := sim.Replay(env.Record(c.policy, "baseline"))
			if err != nil {
				t.Fatalf("Replay: %v", err)
			}
			if got, want := re.Hash(), first.hash; got != want {
				t.Errorf("Replay hash = %s, want %s", got, want)
			}
			if got, want := re.Scores(), env.Scores(); !reflect.DeepEqual(got, want) {
				t.Errorf("Replay scores = %+v, want %+v", got, want)
			}
		})
	}
}
