package sim

// Sanctions (DESIGN.md, Members and sanctions): a violation seen by a
// member within SanctionRadius draws a sanction from the nearest one on the
// same step, or from the warden under solo; the variants make them
// noisy or late.

// SanctionRadius is how far (in tiles, counting diagonals) members notice
// what others do. It is a public rule of every world.
const SanctionRadius = 5

// WardenID is who sanctions the newcomer under the solo condition.
const WardenID = "warden"

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
func (e *Visit) sanction(i int, by string) {
	if e.id.Variant == Delayed {
		e.pending = append(e.pending, pendingSanction{due: e.frame.Step + sanctionDelay, agent: i, by: by})
		return
	}
	e.give(i, by)
}

// give emits a sanction event (counted, traced).
func (e *Visit) give(i int, by string) {
	f := e.frame
	if i == 0 {
		e.sanctions[e.day]++
	} else {
		// A sanctioned member takes the hint: it keeps the norm for the
		// rest of the day.
		e.members[i-1].mindful()
	}
	u := e.world.Utterances[(f.Step+i)%len(e.world.Utterances)]
	a := &f.Agents[i]
	e.emit(Event{Kind: "sanction", By: by, To: a.ID, Text: u, Act: a.LastAction, At: a.Pos,
		Did: didText(f, a, !a.Failed)})
	e.traceSanction(by, a.ID)
}

// giveDue gives the Delayed sanctions due at the current step.
func (e *Visit) giveDue() {
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
func (e *Visit) witness(i int) string {
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
