package sim

import (
	"crypto/sha256"
	"fmt"
	"hash"

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
//
// Version 5: every layout leaves a compliant way through the errand under
// any one-feature restriction of walking (passable); the test day has 150
// steps; members harvest one good at a time; the text marks any agent's
// act that did nothing, recaps the step that ended a day
// (Observation.DayEnd) and lists the objects with their ground and
// whether each source is ready.
const Version = "5"

// violation is a hidden record of a broken norm.
type violation struct {
	day, step, agent int
}

// Visit is one visit in progress in the native core. Create it with NewVisit; it is not safe for
// concurrent use.
type Visit struct {
	id        VisitID
	cat       *norms.Catalog
	world     World
	norm      *norms.Norm
	rules     []norms.Rule
	day       int // 0 practice, 1 test
	lay       layout
	frame     *Frame
	members   []*member
	hist      [][]Hist // per agent, per rule
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
	lastPhase string            // the phase the latest step was taken in
	dayEnd    string            // the recap line of the step that ended the previous day, on a day's first observation
	bows      int               // members' bows so far
	traceLine []byte            // the current tick's line of the trace
	probe     *Probe
	answer    int
}

// NewVisit starts the visit named by id (see ParseVisitID) in the native
// core and returns it with its first observation.
func NewVisit(id string) (*Visit, *Observation, error) { return NewVisitIn(norms.Default(), id) }

// NewVisitIn is NewVisit for a visit whose norm is in cat instead of the
// public catalog (an operator's private suite): the norm is looked up
// there, the probe's wrong options are drawn from it and the record
// carries its version. Stepping is the same: with a catalog holding the
// public norms, NewVisitIn gives NewVisit's trajectories and hashes.
func NewVisitIn(cat *norms.Catalog, id string) (*Visit, *Observation, error) {
	if n := len(cat.Families()); n < 2 {
		return nil, nil, fmt.Errorf("sim: the catalog has %d family: a probe draws a wrong option from another family, so a catalog needs two at least", n)
	}
	v, err := ParseVisitIDIn(cat, id)
	if err != nil {
		return nil, nil, err
	}
	e := &Visit{id: v, cat: cat, trace: sha256.New(), answer: -1, srng: newRNG("sanctions", v.String())}
	if v.Norm != norms.NoNorm {
		n, err := cat.Lookup(v.Norm)
		if err != nil {
			return nil, nil, err
		}
		e.norm = &n
		e.rules = n.Rules()
	}
	e.traceVisit()
	e.startDay(0)
	return e, e.Observe(), nil
}

// Catalog returns the catalog the visit's norm and probe come from (the
// public one, or an operator's private catalog).
func (e *Visit) Catalog() *norms.Catalog { return e.cat }

// ID returns the visit id.
func (e *Visit) ID() VisitID { return e.id }

// World returns the current day's world.
func (e *Visit) World() World { return e.world }

// Norm returns the active norm, or nil under control. Policies other than
// the oracle must not call it.
func (e *Visit) Norm() *norms.Norm { return e.norm }

// Over reports whether the visit has ended.
func (e *Visit) Over() bool { return e.over }

// MemberBows returns how many times members have bowed in the visit so
// far. Members bow only where the norm calls for a bow, so bows are a
// signal anyone watching can read; the validity tests measure it.
func (e *Visit) MemberBows() int { return e.bows }

// Actions returns the newcomer's actions so far, in canonical text form.
func (e *Visit) Actions() []string { return append([]string(nil), e.actions...) }

// Events returns every visible event of the visit so far.
func (e *Visit) Events() []Event { return append([]Event(nil), e.all...) }

// Frame returns a copy of the current visible state.
func (e *Visit) Frame() *Frame { return e.frame.Clone() }

// Day returns the current day, 1-based.
func (e *Visit) Day() int { return e.day + 1 }
