package server

import (
	"context"
	"hash/fnv"
	"time"

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/serve/domain"
	"github.com/normgym/normgym/serve/session"
	"github.com/normgym/normgym/sim"
)

// A study's quota: each cell needs Target completed, non-excluded
// participants. A participant holds a place from entering until the
// visit is played or the time limit passes (then the place is released:
// the participant is abandoned, and cannot go on). An entry takes the
// cell with the fewest participants completed or holding a place, ties
// broken by a hash of the participant and the cell; a cell whose
// completed and held places reach its target takes nobody. The study is
// full (closed) when every cell has its target.

// Participant outcomes.
const (
	outcomeCompleted  = "completed"
	outcomeInProgress = "in_progress"
	outcomeAbandoned  = "abandoned"
)

// outcome is where a participant's visit stands: played (completed),
// within the time limit (in progress), or past it unplayed (abandoned).
func (s *Server) outcome(st domain.Study, p domain.StudyRow) string {
	switch {
	case p.Run != nil:
		return outcomeCompleted
	case s.now().After(studyDeadline(st, p.StudyParticipant)):
		return outcomeAbandoned
	}
	return outcomeInProgress
}

// studyDeadline is when a participant's time limit ends.
func studyDeadline(st domain.Study, p domain.StudyParticipant) time.Time {
	return p.EnteredAt.Add(time.Duration(st.Design.TimeLimitMinutes) * time.Minute)
}

// settledRows reads a study's participants and decides the rules on
// every played visit not yet decided under the rules in force (a new
// participant, or a rule change since), storing the verdicts.
func (s *Server) settledRows(ctx context.Context, ss domain.StudyStorage, st domain.Study) ([]domain.StudyRow, error) {
	rows, err := ss.StudyRows(ctx, st.Code)
	if err != nil {
		return nil, err
	}
	for i := range rows {
		p := &rows[i]
		if p.Run == nil || p.Session == nil || (p.Verdicts != nil && p.VerdictsN == st.RulesN) {
			continue
		}
		e, err := s.effortOf(ctx, ss, *p)
		if err != nil {
			return nil, err
		}
		v, excluded := verdicts(st.Rules, e)
		if err := ss.SetStudyVerdicts(ctx, p.ID, v, st.RulesN, excluded); err != nil {
			return nil, err
		}
		p.Verdicts, p.VerdictsN, p.Excluded = v, st.RulesN, excluded
	}
	return rows, nil
}

// effortOf measures a participant's played visit.
func (s *Server) effortOf(ctx context.Context, ss domain.StudyStorage, p domain.StudyRow) (effort, error) {
	if p.Session == nil {
		return effort{Correct: p.CheckCorrect}, nil
	}
	acts, err := ss.TimedActions(ctx, p.Session.ID)
	if err != nil {
		return effort{}, err
	}
	return measure(p.StudyParticipant, p.Session.CreatedAt, acts), nil
}

// quota is a study's cells and how full they are.
type quota struct {
	target int
	cells  []cellLoad
	byKey  map[string]int
}

// cellLoad is a cell with its counts.
type cellLoad struct {
	studyCell
	// n counts completed, non-excluded participants; held those in
	// progress.
	n, held int
	// norms and visits count the participants (abandoned ones aside) by
	// norm and by norm × world: a cell is filled evenly across them.
	norms, places map[string]int
}

// quotaOf counts rows into the cells.
func (s *Server) quotaOf(st domain.Study, cells []studyCell, rows []domain.StudyRow) *quota {
	q := &quota{target: st.Design.Target, byKey: map[string]int{}}
	for i, c := range cells {
		q.byKey[c.Key] = i
		q.cells = append(q.cells, cellLoad{studyCell: c, norms: map[string]int{}, places: map[string]int{}})
	}
	for _, p := range rows {
		i, ok := q.byKey[p.Cell]
		if !ok {
			continue
		}
		c := &q.cells[i]
		switch s.outcome(st, p) {
		case outcomeAbandoned:
			continue
		case outcomeCompleted:
			if !p.Excluded {
				c.n++
			}
		default:
			c.held++
		}
		norm, place := placeOf(p.Visit)
		c.norms[norm]++
		c.places[place]++
	}
	return q
}

// placeOf reads a visit's norm and its norm × world.
func placeOf(visit string) (norm, place string) {
	id, err := sim.ParseVisitID(visit)
	if err != nil {
		return "", ""
	}
	w, _, _ := session.VisitParts(visit, id.Norm)
	return id.Norm, id.Norm + "|" + w
}

// full reports whether every cell has its target.
func (q *quota) full() bool {
	for _, c := range q.cells {
		if c.n < q.target {
			return false
		}
	}
	return true
}

// status is the study's status (api.StudyOpen, StudyBusy, StudyFull).
func (q *quota) status() string {
	switch {
	case q.full():
		return api.StudyFull
	case q.free() == nil:
		return api.StudyBusy
	}
	return api.StudyOpen
}

// free lists the cells that take a participant now.
func (q *quota) free() []*cellLoad {
	var out []*cellLoad
	for i := range q.cells {
		if c := &q.cells[i]; c.n+c.held < q.target {
			out = append(out, c)
		}
	}
	return out
}

// pick chooses participant id's cell and the suite visit whose cell it
// plays: the free cell with the fewest completed or held places (ties
// by a hash of id and cell), then its least-used norm, then its least-used
// world of that norm (ties by a hash of id and visit). ok is false when
// no cell is free.
func (q *quota) pick(id string) (c *cellLoad, visit string, ok bool) {
	for _, f := range q.free() {
		if c == nil || f.n+f.held < c.n+c.held || f.n+f.held == c.n+c.held && tie(id, f.Key) < tie(id, c.Key) {
			c = f
		}
	}
	if c == nil {
		return nil, "", false
	}
	best := ""
	for _, v := range c.Visits {
		if best == "" || lessUsed(c, id, v, best) {
			best = v
		}
	}
	return c, best, true
}

// lessUsed reports whether visit a of cell c fills it more evenly than b.
func lessUsed(c *cellLoad, id, a, b string) bool {
	na, pa := placeOf(a)
	nb, pb := placeOf(b)
	switch {
	case c.norms[na] != c.norms[nb]:
		return c.norms[na] < c.norms[nb]
	case c.places[pa] != c.places[pb]:
		return c.places[pa] < c.places[pb]
	}
	return tie(id, a) < tie(id, b)
}

// tie is a hash of a participant and a choice, to break ties.
func tie(id, key string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(id + "|" + key))
	return h.Sum64()
}
