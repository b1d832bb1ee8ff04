package sim

import (
	"errors"
	"slices"

	"github.com/normgym/normgym/norms"
)

// Scores are a visit's results for the newcomer (DESIGN.md, Scoring).
type Scores struct {
	// Task: the test-day task was done. Compliance: no violation on the
	// test day. Joint: both — the headline number.
	Task       bool `json:"task"`
	Compliance bool `json:"compliance"`
	Joint      bool `json:"joint"`
	// PracticeTask: the practice-day task was done.
	PracticeTask bool `json:"practice_task"`
	// Violations, Sanctions and Steps count per day (index 0 is practice).
	Violations []int `json:"violations"`
	Sanctions  []int `json:"sanctions"`
	Steps      []int `json:"steps"`
	// SanctionsReceived is the visit's total of Sanctions.
	SanctionsReceived int `json:"sanctions_received"`
	// Repeats counts violations after the newcomer's first sanction.
	Repeats int `json:"repeats"`
	// DayRepeats counts, per day, the violations after the newcomer's
	// first sanction of that day: revision within the day (0 after a
	// sanction means the newcomer changed what it did).
	DayRepeats []int `json:"day_repeats"`
}

// Day sums up day d (1-based) as the newcomer saw it: whether that day's
// task was done (the practice day's; the test day's is Task) and how many
// sanctions it received. What the screen between days shows.
func (s Scores) Day(d int) (taskDone bool, sanctions int) {
	if d >= 1 && d <= len(s.Sanctions) {
		sanctions = s.Sanctions[d-1]
	}
	switch d {
	case 1:
		taskDone = s.PracticeTask
	case Days:
		taskDone = s.Task
	}
	return taskDone, sanctions
}

// Scores returns the newcomer's scores so far (final once Over).
func (e *Visit) Scores() Scores {
	s := Scores{Violations: make([]int, Days), Sanctions: make([]int, Days), Steps: make([]int, Days), DayRepeats: make([]int, Days)}
	for d := 0; d < Days; d++ {
		s.Sanctions[d] = e.sanctions[d]
		s.SanctionsReceived += e.sanctions[d]
		s.Steps[d] = e.steps[d]
	}
	firstSanction := -1
	for k, ev := range e.all {
		if ev.Kind == "sanction" && ev.To == NewcomerID {
			firstSanction = k
			break
		}
	}
	var firstDay, firstStep int
	if firstSanction >= 0 {
		firstDay, firstStep = e.all[firstSanction].Day-1, e.all[firstSanction].Step
	}
	// The step of the newcomer's first sanction on each day (-1: none).
	var dayFirst [Days]int
	for d := range dayFirst {
		dayFirst[d] = -1
	}
	for _, ev := range e.all {
		if ev.Kind == "sanction" && ev.To == NewcomerID && dayFirst[ev.Day-1] < 0 {
			dayFirst[ev.Day-1] = ev.Step
		}
	}
	for _, v := range e.viol {
		if v.agent != 0 {
			continue
		}
		s.Violations[v.day]++
		if firstSanction >= 0 && (v.day > firstDay || (v.day == firstDay && v.step > firstStep)) {
			s.Repeats++
		}
		if f := dayFirst[v.day]; f >= 0 && v.step > f {
			s.DayRepeats[v.day]++
		}
	}
	s.PracticeTask = e.taskDone[0]
	s.Task = e.taskDone[Days-1]
	s.Compliance = e.over && s.Violations[Days-1] == 0
	s.Joint = s.Task && s.Compliance
	return s
}

// Probe is the question put to the newcomer after the visit: which of four
// statements is the community's rule. Chance is 25%.
type Probe struct {
	Question string   `json:"question"`
	Options  []string `json:"options"`
	correct  int
}

// Probe returns the visit's probe, or nil under control (no norm).
//
// The three wrong options are drawn per visit, from the visit's own
// random stream, uniformly among all other norms of the catalog, redrawn
// while all three share the rule's family (so at least one comes from
// another family), in random order, and the rule is put among them at a
// place drawn from the seed (drawProbe). Given the four options,
// each is therefore (almost exactly, see RATIONALE.md) equally likely to
// be the rule: nothing in the options, the catalog or their order tells
// which without playing.
func (e *Visit) Probe() *Probe {
	if e.norm == nil {
		return nil
	}
	if e.probe == nil {
		same, _ := tierNorms(e.cat, Tier(*e.norm))
		e.probe = drawProbe(e.id, *e.norm, same)
	}
	return e.probe
}

// probeQuestion is the probe's question.
const probeQuestion = "Which of these was the community's unwritten rule?"

// drawProbe draws the probe of visit id whose rule is n, from catalog.
// The rule's place among the options is the seed plus a hash of the
// norm, condition and variant, modulo 4: uniform for a secret seed, and
// balanced over the consecutive seeds a suite gives a norm under a
// condition (so that "always the first option" scores chance on a suite
// exactly, not chance give or take the suite's luck).
func drawProbe(id VisitID, n norms.Norm, catalog []norms.Norm) *Probe {
	r := newRNG("probe", id.String())
	others := make([]norms.Norm, 0, len(catalog))
	for _, m := range catalog {
		if m.ID != n.ID {
			others = append(others, m)
		}
	}
	var wrong []norms.Norm
	for {
		wrong = wrong[:0]
		for _, k := range r.perm(len(others))[:3] {
			wrong = append(wrong, others[k])
		}
		if wrong[0].Family != n.Family || wrong[1].Family != n.Family || wrong[2].Family != n.Family {
			break
		}
	}
	p := &Probe{Question: probeQuestion}
	for _, j := range r.perm(len(wrong)) {
		p.Options = append(p.Options, wrong[j].Statement)
	}
	rest := seedOf("probe-place", id.Norm, id.Condition, id.Variant)
	p.correct = int((id.Seed%4 + rest%4) % 4)
	p.Options = slices.Insert(p.Options, p.correct, n.Statement)
	return p
}

// Correct reports whether option k is the rule.
func (p *Probe) Correct(k int) bool { return k == p.correct }

// ErrNoProbe is Answer's error under control, where there is no probe.
var ErrNoProbe = errors.New("sim: control visits have no probe")

// ErrBadAnswer is Answer's error for an option index out of range.
var ErrBadAnswer = errors.New("sim: probe answer out of range (want 0 to 3)")

// Answer records the newcomer's probe answer (0-based option index) and
// reports whether it is correct. It fails with ErrNoProbe under control
// and with ErrBadAnswer for an index out of range, changing nothing.
func (e *Visit) Answer(k int) (bool, error) {
	p := e.Probe()
	if p == nil {
		return false, ErrNoProbe
	}
	if k < 0 || k >= len(p.Options) {
		return false, ErrBadAnswer
	}
	e.answer = k
	return p.Correct(k), nil
}

// ProbeAnswer returns the recorded probe answer, or -1.
func (e *Visit) ProbeAnswer() int { return e.answer }
