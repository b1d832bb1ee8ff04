package simtest

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/normgym/normgym/sim"
)

// step checks the outcome res of taking action a at observation prev (a
// copy the policy never held); before holds the scores before the step.
func (c *checker) step(v *sim.Visit, prev *sim.Observation, a sim.Action, res sim.StepResult, before sim.Scores) error {
	o := res.Observation
	if o == nil {
		return errors.New("no observation")
	}
	if err := stepResult(v, o, res); err != nil {
		return err
	}
	if err := c.clock(v, prev, o, res); err != nil {
		return err
	}
	blocked, err := c.events(prev, o, a, res)
	if err != nil {
		return err
	}
	pf, f := &prev.Frame, &o.Frame
	d := prev.Day - 1
	if err := c.ownSanction(pf, f, res.DayOver, v.Scores().Violations[d]-before.Violations[d], o.Events); err != nil {
		return err
	}
	if res.DayOver && !res.Done() {
		return nil // a new layout: nothing to compare the newcomer with
	}
	return newcomerMoved(pf, f, a, blocked)
}

// stepResult checks a step's result against its observation and the
// visit: events, done, terminated vs truncated.
func stepResult(v *sim.Visit, o *sim.Observation, res sim.StepResult) error {
	if !reflect.DeepEqual(res.Events, o.Events) {
		return fmt.Errorf("StepResult.Events = %+v, but the observation has %+v", res.Events, o.Events)
	}
	if got := res.Done(); got != v.Over() || got != o.Done {
		return fmt.Errorf("Done() = %v, Over() = %v, observation done = %v", got, v.Over(), o.Done)
	}
	if res.Terminated && res.Truncated {
		return errors.New("both terminated and truncated")
	}
	if res.Done() && !res.DayOver {
		return errors.New("the visit ended but the day did not")
	}
	return nil
}

// clock checks where the step left the visit: the next step of the day,
// the end of the visit (the task done, or the test day's last step), or
// the start of the next day.
func (c *checker) clock(v *sim.Visit, prev, o *sim.Observation, res sim.StepResult) error {
	pf, f := &prev.Frame, &o.Frame
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
		if got, want := v.Scores().Task, res.Terminated; got != want {
			return fmt.Errorf("Scores().Task = %v, want %v (terminated)", got, want)
		}
	default:
		if prev.Day+1 != o.Day || f.Step != 0 {
			return fmt.Errorf("new day: day %d step %d after day %d, want day %d step 0", o.Day, f.Step, prev.Day, prev.Day+1)
		}
		sc := v.Scores()
		if got, want := sc.Steps[prev.Day-1], pf.Step+1; got != want {
			return fmt.Errorf("Scores().Steps[%d] = %d, want %d", prev.Day-1, got, want)
		}
		if !sc.PracticeTask && sc.Steps[0] != sim.PracticeSteps {
			return fmt.Errorf("the practice day ended at step %d with the task not done", sc.Steps[0])
		}
		if got, want := v.Day(), o.Day; got != want {
			return fmt.Errorf("Day() = %d, want %d", got, want)
		}
	}
	return nil
}

// events checks the step's events — who, when, and each once — and
// reports whether the newcomer's action was blocked.
func (c *checker) events(prev, o *sim.Observation, a sim.Action, res sim.StepResult) (blocked bool, err error) {
	pf, f := &prev.Frame, &o.Frame
	newDay := res.DayOver && !res.Done()
	nBlocked, days := 0, 0
	seen := map[sim.Event]bool{}
	for _, ev := range o.Events {
		if seen[ev] {
			return false, fmt.Errorf("event %+v appears twice in %+v", ev, o.Events)
		}
		seen[ev] = true
		if ev.Kind != "day" && (ev.Day != prev.Day || ev.Step != pf.Step) {
			return false, fmt.Errorf("event %+v happened at day %d step %d", ev, prev.Day, pf.Step)
		}
		switch ev.Kind {
		case "day":
			days++
			if !newDay || ev.Day != o.Day || ev.Step != 0 || !strings.Contains(ev.Text, c.worlds[o.Day-1].Title) {
				return false, fmt.Errorf("unexpected day event %+v", ev)
			}
		case "blocked":
			nBlocked++
			if prefix := `Your action "` + a.String() + `" did nothing: `; ev.To != sim.NewcomerID || !strings.HasPrefix(ev.Text, prefix) {
				return false, fmt.Errorf("blocked event %+v, want To %q and a text starting %q", ev, sim.NewcomerID, prefix)
			}
		case "sanction":
			if err := c.sanction(pf, f, newDay, ev); err != nil {
				return false, err
			}
		default:
			return false, fmt.Errorf("event of unknown kind: %+v", ev)
		}
	}
	if newDay && days != 1 {
		return false, fmt.Errorf("a new day began with %d day events", days)
	}
	if nBlocked > 1 {
		return false, fmt.Errorf("%d blocked events in one step", nBlocked)
	}
	return nBlocked == 1, nil
}

// taskDone reports whether o's newcomer has done o's task.
func taskDone(o *sim.Observation) bool {
	me := o.Frame.Agents[0]
	return me.Delivered >= o.Task.Goods && sim.GiftsGiven(&o.Frame) >= o.Task.Gifts && (!o.Task.Litter || me.Litter == 0)
}

// sanction checks a sanction event of the tick from frame pf to frame f.
func (c *checker) sanction(pf, f *sim.Frame, newDay bool, ev sim.Event) error {
	if c.v.Condition == sim.Control {
		return fmt.Errorf("sanction under control: %+v", ev)
	}
	if w := c.worlds[ev.Day-1]; !slices.Contains(w.Utterances, ev.Text) {
		return fmt.Errorf("sanction %+v: the text is not one of %s's utterances", ev, w.Name)
	}
	if c.v.Condition == sim.Solo {
		if ev.By != sim.WardenID || ev.To != sim.NewcomerID {
			return fmt.Errorf("sanction %+v under solo, want the warden sanctioning the newcomer", ev)
		}
		return nil
	}
	by, to := pf.AgentIndex(ev.By), pf.AgentIndex(ev.To)
	if by < 1 || to < 0 || by == to {
		return fmt.Errorf("sanction %+v: want a member sanctioning someone else", ev)
	}
	if newDay || c.v.Variant == sim.Delayed {
		return nil // a new layout, or the witness stood elsewhere steps ago
	}
	if got, want := ev.By, witness(pf, f, to); got != want {
		return fmt.Errorf("sanction %+v by %q, want the nearest member within the radius, %q", ev, got, want)
	}
	return nil
}

// witness returns who sees agent i's act in the tick from frame pf to
// frame f: the nearest other member within the sanction radius (ties:
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
		if d := chebyshev(p, f.Agents[i].Pos); d < bestD {
			best, bestD = f.Agents[j].ID, d
		}
	}
	return best
}

func chebyshev(a, b sim.Pos) int { return max(abs(a.X-b.X), abs(a.Y-b.Y)) }

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// ownSanction checks that the newcomer was sanctioned in a step exactly
// when it broke the norm (violated: its day's violation count went up)
// and someone saw it: the warden under solo, else the nearest member. At
// the end of a day an act still owed counts as a violation nobody
// sanctions, and under the variants sanctions are missed, false or late:
// there only the count is checked.
func (c *checker) ownSanction(pf, f *sim.Frame, dayOver bool, violated int, evs []sim.Event) error {
	var by []string
	for _, ev := range evs {
		if ev.Kind == "sanction" && ev.To == sim.NewcomerID {
			by = append(by, ev.By)
		}
	}
	most := 1
	if dayOver {
		most = 2 // its act, and an act owed when the day ends
	}
	if violated < 0 || violated > most {
		return fmt.Errorf("the newcomer's violations went up by %d in one step", violated)
	}
	if c.v.Condition == sim.Control && violated != 0 {
		return errors.New("a violation under control")
	}
	var want []string
	switch {
	case c.v.Variant != "" || dayOver:
		want = by
	case violated == 0:
	case c.v.Condition == sim.Solo:
		want = []string{sim.WardenID}
	default:
		if w := witness(pf, f, 0); w != "" {
			want = []string{w}
		}
	}
	if !slices.Equal(by, want) {
		return fmt.Errorf("violations +%d, newcomer sanctioned by %q, want %q", violated, by, want)
	}
	return nil
}

// newcomerMoved checks what action a did to the newcomer between frames
// pf and f of one day: nothing if it was blocked, its effect otherwise.
func newcomerMoved(pf, f *sim.Frame, a sim.Action, blocked bool) error {
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
