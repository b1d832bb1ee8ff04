package sim

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"strconv"

	"github.com/normgym/normgym/norms"
)

// Version is the simulation's version. It changes whenever a trajectory
// for the same visit id and actions could change.
//
// Version 4: one layout where the errand crosses a full-width band twice;
// both days' errands pick several goods, hand some to members and get rid
// of litter; the etiquette of bows; a day with an act owed lasts one more
// step; probe options drawn per visit; sanction events say what the
// sanctioned one did and where.
const Version = "4"

// SanctionRadius is how far (in tiles, counting diagonals) members notice
// what others do. It is a public rule of every world.
const SanctionRadius = 4

// Step limits and errand sizes per day. Both days' errands hold every
// kind of act a norm can be about: picking from several sources, carrying
// more than one thing, putting goods in the basket, handing goods to
// members (so walking up to them), and getting rid of litter.
const (
	PracticeSteps = 60
	TestSteps     = 100
	practiceGoods = 1 // into the basket
	practiceGifts = 2 // to different members
	testGoods     = 1
	testGifts     = 3
)

// Days is the number of days in a visit: one practice day, one test day.
const Days = 2

// WardenID is who sanctions the newcomer under the solo condition.
const WardenID = "warden"

// Event is something visible that happened. Kind is "sanction" (By
// sanctions To, saying Text), "blocked" (the newcomer's action was
// impossible; Text says why) or "day" (a new day began; Text describes it).
//
// A sanction also says what the sanctioned one had just done and where, as
// anyone watching would have seen it: Act is that agent's latest action
// (canonical text), At where it stood after it, and Did the same in words
// with the tile ("walked east onto x=6 y=1 (floor in the market)"). It
// never says why: which feature of the act mattered is for the watcher to
// infer. Under delayed sanctions the latest act is not the one that broke
// the norm.
type Event struct {
	Day  int    `json:"day"`
	Step int    `json:"step"`
	Kind string `json:"kind"`
	By   string `json:"by,omitempty"`
	To   string `json:"to,omitempty"`
	Text string `json:"text"`
	Act  string `json:"act,omitempty"`
	At   Pos    `json:"at,omitzero"`
	Did  string `json:"did,omitempty"`
}

// Task is the newcomer's errand for a day.
type Task struct {
	Text string `json:"text"`
	// Goods is how many goods to deliver into the basket.
	Goods int `json:"goods"`
	// Gifts is how many different members to hand one good each.
	Gifts int `json:"gifts"`
	// Litter asks the newcomer to get rid of the litter it carries.
	Litter bool `json:"litter"`
}

// Picks is how many goods the task needs picked.
func (t Task) Picks() int { return t.Goods + t.Gifts }

// violation is a hidden record of a broken norm.
type violation struct {
	day, step, agent int
}

// Env is one visit in progress. Create it with NewEnv; it is not safe for
// concurrent use.
type Env struct {
	id        VisitID
	cat       *norms.Catalog
	world     World
	norm      *norms.Norm
	rules     []norms.Rule
	day       int // 0 practice, 1 test
	lay       layout
	frame     *Frame
	members   []*member
	hist      []Hist
	regrow    []int
	task      Task
	limit     int
	events    []Event // since the last step
	all       []Event
	actions   []string
	viol      []violation
	steps     [Days]int
	taskDone  [Days]bool
	over      bool
	truncated bool
	sanctions [Days]int
	trace     hash.Hash
	srng      *rng              // sanction noise (Noisy); its own stream
	pending   []pendingSanction // Delayed sanctions not yet given
	lastOK    []bool            // per agent: its latest action was possible
	lastPhase string            // the phase the latest step was taken in
	bows      int               // members' bows so far
	traceLine []byte            // the current tick's line of the trace
	probe     *Probe
	answer    int
}

// StepResult is what Step returns.
type StepResult struct {
	Observation *Observation `json:"observation"`
	// Events are the visible events of this step (also in the observation).
	Events []Event `json:"events"`
	// Terminated: the visit ended because the test-day task was done.
	// Truncated: it ended because the test day ran out of steps.
	Terminated bool `json:"terminated"`
	Truncated  bool `json:"truncated"`
	// DayOver reports that a day ended on this step (the observation is
	// then the first of the next day, or the last of the visit).
	DayOver bool `json:"day_over"`
}

// Done reports whether the visit is over.
func (r StepResult) Done() bool { return r.Terminated || r.Truncated }

// ErrVisitOver is returned by Step once the visit has ended.
var ErrVisitOver = errors.New("sim: the visit is over")

// NewEnv starts the visit named by id (see ParseVisitID) and returns the
// environment and its first observation.
func NewEnv(id string) (*Env, *Observation, error) { return NewEnvIn(norms.Default(), id) }

// NewEnvIn is NewEnv for a visit whose norm is in cat instead of the
// public catalog (an operator's private suite): the norm is looked up
// there, the probe's wrong options are drawn from it and the record
// carries its version. Stepping is the same: with a catalog holding the
// public norms, NewEnvIn gives NewEnv's trajectories and hashes.
func NewEnvIn(cat *norms.Catalog, id string) (*Env, *Observation, error) {
	v, err := ParseVisitIDIn(cat, id)
	if err != nil {
		return nil, nil, err
	}
	e := &Env{id: v, cat: cat, trace: sha256.New(), answer: -1, srng: newRNG("sanctions", v.String())}
	if v.Norm != norms.NoNorm {
		n, err := cat.Lookup(v.Norm)
		if err != nil {
			return nil, nil, err
		}
		e.norm = &n
		e.rules = []norms.Rule{n.Rule}
	}
	fmt.Fprintf(e.trace, "normgym sim %s visit %s\n", Version, v)
	e.startDay(0)
	return e, e.Observe(), nil
}

// ID returns the visit id.
func (e *Env) ID() VisitID { return e.id }

// World returns the current day's world.
func (e *Env) World() World { return e.world }

// Norm returns the active norm, or nil under control. Policies other than
// the oracle must not call it.
func (e *Env) Norm() *norms.Norm { return e.norm }

func (e *Env) startDay(day int) {
	e.events = e.events[:0] // Step puts back the events of the step that ended the day
	e.day = day
	e.pending = e.pending[:0] // sanctions still due when a day ends are never given
	e.world, _ = LookupWorld(e.id.DayWorld(day))
	e.lay = newLayout(e.world, e.id.Seed, day)
	e.frame = e.lay.frame.Clone()
	e.frame.Step = 0
	e.frame.Phase = phaseAt(0, e.lay.phaseOffset)
	e.hist = make([]Hist, len(e.frame.Agents))
	e.lastOK = make([]bool, len(e.frame.Agents))
	e.lastPhase = ""
	e.regrow = make([]int, len(e.frame.Tiles))
	e.members = e.members[:0]
	careful := e.id.Condition == Peers
	for i := 1; i < len(e.frame.Agents); i++ {
		e.members = append(e.members, newMember(i, e.frame.Agents[i].Role, e.world, e.id.Seed, day, careful))
	}
	e.task = Task{Goods: practiceGoods, Gifts: practiceGifts, Litter: true}
	e.limit = PracticeSteps
	if day == Days-1 {
		e.task = Task{Goods: testGoods, Gifts: testGifts, Litter: true}
		e.limit = TestSteps
	}
	e.frame.Agents[0].Litter = 1
	e.task.Text = e.taskText()
	text := fmt.Sprintf("Day %d of %d begins (practice day): a new layout of %s.", day+1, Days, e.world.Title)
	if day == Days-1 {
		text = fmt.Sprintf("Day %d of %d begins (test day): a new layout of %s.", day+1, Days, e.world.Title)
		if e.id.TestWorld != "" {
			text = fmt.Sprintf("Day %d of %d begins (test day): a new place, %s, where the same community rule holds.", day+1, Days, e.world.Title)
		}
	}
	e.emit(Event{Kind: "day", Text: text})
	fmt.Fprintf(e.trace, "day %d\n", day)
}

func (e *Env) taskText() string {
	w, t := e.world, e.task
	s := fmt.Sprintf("Pick %d %s: put %s in the basket and give %s; then get rid of your litter (the %s).",
		t.Picks(), Plural(w.Goods, t.Picks()), countWord(t.Goods), giftsText(t.Gifts), w.Litter)
	return s
}

// giftsText says how many members get one good each.
func giftsText(n int) string {
	if n == 1 {
		return "one to a member"
	}
	return "one each to " + countWord(n) + " different members"
}

// countWord spells small counts.
func countWord(n int) string {
	if n >= 0 && n < len(smallNumbers) {
		return smallNumbers[n]
	}
	return strconv.Itoa(n)
}

var smallNumbers = []string{"none", "one", "two", "three", "four", "five", "six"}

// Plural is the English plural of a thing's name when there are n of it.
func Plural(s string, n int) string {
	if n == 1 {
		return s
	}
	switch s {
	case "fish":
		return s
	case "loaf":
		return "loaves"
	}
	return s + "s"
}

func (e *Env) emit(ev Event) {
	ev.Day, ev.Step = e.day+1, e.frame.Step
	e.events = append(e.events, ev)
	e.all = append(e.all, ev)
}

// Step makes the newcomer take action a, then lets every member act, and
// returns the outcome. An impossible action changes nothing but the step
// count and yields a "blocked" event. After the visit ends, Step returns
// ErrVisitOver.
func (e *Env) Step(a Action) (StepResult, error) {
	res, err := e.advance(a)
	if err != nil {
		return res, err
	}
	res.Observation = e.Observe()
	res.Events = res.Observation.Events
	return res, nil
}

// advance is Step without building the observation (replays need none).
func (e *Env) advance(a Action) (StepResult, error) {
	if e.over {
		return StepResult{}, ErrVisitOver
	}
	if a.Verb == "" {
		return StepResult{}, fmt.Errorf("%w: empty action", errAction)
	}
	a, err := ParseAction(a.String())
	if err != nil {
		return StepResult{}, err
	}
	e.events = e.events[:0]
	f := e.frame
	e.lastPhase = f.Phase
	e.traceLine = strconv.AppendInt(e.traceLine[:0], int64(f.Step), 10)
	e.traceLine = append(e.traceLine, ' ')
	e.traceLine = append(e.traceLine, a.String()...)
	e.actions = append(e.actions, a.String())
	e.act(0, a)
	for _, m := range e.members {
		var ma Action
		if e.id.Condition == Solo {
			ma = Action{Verb: Wait}
		} else {
			ma = m.act(f, e.rules, e.hist[m.agent:m.agent+1])
		}
		e.traceLine = append(append(e.traceLine, ' '), ma.String()...)
		e.act(m.agent, ma)
	}
	e.giveDue()
	for i, t := range f.Tiles {
		if t.Object == "source" && t.Stock == 0 {
			e.regrow[i]++
			if e.regrow[i] >= regrowSteps {
				f.Tiles[i].Stock, e.regrow[i] = 1, 0
			}
		}
	}
	f.Step++
	f.Phase = phaseAt(f.Step, e.lay.phaseOffset)
	e.steps[e.day] = f.Step
	e.traceLine = append(e.traceLine, '\n')
	e.trace.Write(e.traceLine)
	res := StepResult{}
	// The errand is done once nothing is owed: an act owed under
	// "require A after E" gets its step before the day ends.
	if e.taskComplete() && !e.hist[0].Owe {
		e.taskDone[e.day] = true
		res.DayOver = true
	} else if f.Step >= e.limit {
		res.DayOver = true
	}
	if res.DayOver {
		// An act still owed ("require A after E") when the day ends will
		// never come: the omission is certain now. Nobody is left to
		// sanction it, but it counts.
		for i := range e.hist {
			if e.hist[i].Owe {
				e.viol = append(e.viol, violation{day: e.day, step: f.Step, agent: i})
			}
		}
		if e.day == Days-1 {
			e.over = true
			res.Terminated = e.taskDone[e.day]
			res.Truncated = !res.Terminated
		} else {
			evs := append([]Event(nil), e.events...)
			e.startDay(e.day + 1)
			e.events = append(evs, e.events...)
		}
	}
	return res, nil
}

// act applies agent i's action: judge it, apply it, sanction it if seen.
func (e *Env) act(i int, a Action) {
	f := e.frame
	tr := f.Preview(i, f.Agents[i].Pos, a)
	violated := false
	for k := range e.rules {
		violated, e.hist[i] = judge(f, &e.rules[k], &tr, e.hist[i])
	}
	f.Apply(tr)
	e.lastOK[i] = tr.OK
	if i > 0 && tr.OK && a.Verb == Bow {
		e.bows++
	}
	if i == 0 && !tr.OK {
		e.emit(Event{Kind: "blocked", To: NewcomerID, Text: "Your action \"" + a.String() + "\" did nothing: " + tr.Reason + "."})
	}
	if !violated {
		if e.id.Variant == Noisy && tr.OK && e.norm != nil {
			if by := e.witness(i); by != "" && e.srng.float() < falseSanctionRate {
				e.sanction(i, by)
			}
		}
		return
	}
	e.viol = append(e.viol, violation{day: e.day, step: f.Step, agent: i})
	by := e.witness(i)
	if by == "" || (e.id.Variant == Noisy && e.srng.float() >= noticeRate) {
		return
	}
	e.sanction(i, by)
}

// Sanction variant rates and delay.
const (
	noticeRate        = 0.6
	falseSanctionRate = 0.02
	sanctionDelay     = 2
)

// pendingSanction is a Delayed sanction waiting for its step.
type pendingSanction struct {
	due, agent int
	by         string
}

// sanction has by sanction agent i now, or later under Delayed.
func (e *Env) sanction(i int, by string) {
	if e.id.Variant == Delayed {
		e.pending = append(e.pending, pendingSanction{due: e.frame.Step + sanctionDelay, agent: i, by: by})
		return
	}
	e.give(i, by)
}

// give emits a sanction event (counted, traced).
func (e *Env) give(i int, by string) {
	f := e.frame
	if i == 0 {
		e.sanctions[e.day]++
	}
	u := e.world.Utterances[(f.Step+i)%len(e.world.Utterances)]
	a := &f.Agents[i]
	e.emit(Event{Kind: "sanction", By: by, To: a.ID, Text: u, Act: a.LastAction, At: a.Pos,
		Did: didText(f, a, e.lastOK[i])})
	e.traceLine = append(append(append(append(e.traceLine, " !"...), by...), '>'), f.Agents[i].ID...)
}

// giveDue gives the Delayed sanctions due at the current step.
func (e *Env) giveDue() {
	kept := e.pending[:0]
	for _, p := range e.pending {
		if p.due == e.frame.Step {
			e.give(p.agent, p.by)
		} else {
			kept = append(kept, p)
		}
	}
	e.pending = kept
}

// witness returns who sanctions agent i's violation, or "" if nobody saw it.
func (e *Env) witness(i int) string {
	f := e.frame
	if e.id.Condition == Solo {
		if i == 0 {
			return WardenID
		}
		return ""
	}
	best, bestD := "", SanctionRadius+1
	for j := 1; j < len(f.Agents); j++ {
		if j == i {
			continue
		}
		if d := chebyshev(f.Agents[j].Pos, f.Agents[i].Pos); d < bestD {
			best, bestD = f.Agents[j].ID, d
		}
	}
	return best
}

func (e *Env) taskComplete() bool {
	n := e.frame.Agents[0]
	return n.Delivered >= e.task.Goods && GiftsGiven(e.frame) >= e.task.Gifts && (!e.task.Litter || n.Litter == 0)
}

// GiftsGiven counts the members who received a good today: the
// newcomer's gifts to different members (members never give).
func GiftsGiven(f *Frame) int {
	n := 0
	for _, a := range f.Agents[1:] {
		if a.Received > 0 {
			n++
		}
	}
	return n
}

// Over reports whether the visit has ended.
func (e *Env) Over() bool { return e.over }

// MemberBows returns how many times members have bowed in the visit so
// far. Members bow only where the norm calls for a bow, so bows are a
// signal anyone watching can read; the validity tests measure it.
func (e *Env) MemberBows() int { return e.bows }

// Actions returns the newcomer's actions so far, in canonical text form.
func (e *Env) Actions() []string { return append([]string(nil), e.actions...) }

// Events returns every visible event of the visit so far.
func (e *Env) Events() []Event { return append([]Event(nil), e.all...) }

// Hash returns the trajectory hash so far: SHA-256 over the visit id and
// every agent's action and every sanction, tick by tick, in hex.
func (e *Env) Hash() string {
	h := e.trace
	// Sum does not change the running hash.
	return hex.EncodeToString(h.Sum(nil))
}

// Frame returns a copy of the current visible state.
func (e *Env) Frame() *Frame { return e.frame.Clone() }

// Day returns the current day, 1-based.
func (e *Env) Day() int { return e.day + 1 }
