package ui

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"

	"github.com/normgym/normgym/sim"
)

// Stepper is the environment a Play acts on: a sim.Env, and what the
// screen between days shows. *Env, a visit inside the page's own sim.wasm,
// is one; a server-stepped ("sealed") session, whose module and actions
// live on the server, is another: Play and its screens work the same over
// either.
type Stepper interface {
	sim.Env
	// DayEnded sums up day d, which the last step ended.
	DayEnded(d int) (DaySummary, error)
}

// Progress is what it takes to bring a human's visit back after a reload:
// which visit, the actions taken, where the stage machine stood, and the
// probe answer once given. It holds nothing that names the norm: Key is
// the route's name of the visit (a suite and number, "assigned" for a
// server's assignment, or the id the user chose), and First the
// fingerprint of the first observation, which the player has seen.
type Progress struct {
	Key        string   `json:"key"`
	First      string   `json:"first"`
	Actions    []string `json:"actions"`
	Stage      Stage    `json:"stage"`
	Answer     int      `json:"answer"`
	Confidence float64  `json:"confidence,omitempty"`
}

// Journal is where a visit's progress is kept so that a reload resumes it
// at the same step. In the browser's own modes it is localStorage (the
// app's journal); a sealed session's journal is the server, which keeps
// every action as it steps them, so its Save has nothing to do.
type Journal interface {
	// Load returns the kept progress, if any.
	Load() (Progress, bool)
	// Save keeps p, replacing what was kept. A journal that cannot keep
	// it (storage full or refused) drops it silently: the visit goes on.
	Save(p Progress)
	// Clear forgets the kept progress.
	Clear()
}

// Key names a visit in a journal without naming its norm (for a suite
// visit or an assignment): see Progress.
func (v Resolved) Key() string {
	switch {
	case v.Assigned:
		return "assigned"
	case v.Suite != "":
		return v.Suite + "#" + itoa(v.N)
	}
	return v.ID
}

// Fingerprint identifies a visit by its first observation's text (what
// the newcomer is shown first), so that kept actions are never replayed
// into a different visit.
func Fingerprint(first StepResponse) string {
	h := sha256.Sum256([]byte(first.Text))
	return hex.EncodeToString(h[:8])
}

// Progress returns the visit's progress as a journal keeps it.
func (p *Play) Progress() Progress {
	return Progress{Key: p.Visit.Key(), First: p.First, Actions: append([]string(nil), p.Actions...),
		Stage: p.Stage, Answer: p.answer, Confidence: p.confidence}
}

// keep saves the progress in the journal, if there is one.
func (p *Play) keep() {
	if p.Journal != nil {
		p.Journal.Save(p.Progress())
	}
}

// ErrOtherVisit is returned by Resume when the kept progress belongs to
// another visit.
var ErrOtherVisit = errors.New("ui: the kept progress is of another visit")

// Resume opens visit v again and brings it to where pr left it: it
// replays pr's actions through the module (so the trajectory, and its
// hash, are the same as before the reload), moves the stages as the
// player did, and answers the probe if it was answered. The journal is
// attached afterwards, so replaying does not rewrite it.
func Resume(c *Client, v Resolved, pr Progress, agent, client string, j Journal) (*Play, error) {
	if pr.Key != v.Key() {
		return nil, ErrOtherVisit
	}
	p, err := NewPlay(c, v, agent, client)
	if err != nil {
		return nil, err
	}
	if p.First != pr.First {
		p.Close()
		return nil, ErrOtherVisit
	}
	if pr.Stage > StageConsent {
		p.Start()
	}
	for _, a := range pr.Actions {
		if p.Stage == StageDay {
			p.Begin()
		}
		if p.Stage != StagePlay {
			break
		}
		if _, _, err := p.Act(a); err != nil {
			p.Close()
			return nil, err
		}
	}
	if p.Stage == StageDay && pr.Stage >= StagePlay && len(p.Actions) == len(pr.Actions) && !p.Last.Done() {
		p.Begin()
	}
	if p.Stage == StageProbe && pr.Stage == StageResult {
		if err := p.Finish(pr.Answer, pr.Confidence); err != nil {
			p.Close()
			return nil, err
		}
	}
	p.Journal = j
	return p, nil
}
