package server

import (
	"hash/fnv"
	"net/http"

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/sim"
)

// assignSuite is the suite human participants draw from outside rooms.
const assignSuite = "standard"

// assign handles GET /api/assign?participant=P[&room=CODE]: the next visit
// for a human. Across participants every norm × condition of the visit
// set is covered evenly: the least-played cell comes first (human runs
// plus pending assignments), ties broken by a hash of the participant and
// the cell, so that concurrent newcomers spread out; within the cell the
// least-played visit, ties in set order. A participant never meets a norm
// twice (control counts as one norm, "none"). Asking again before
// submitting returns the same visit until the assignment expires.
func (s *Server) assign(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	p := q.Get("participant")
	if !api.ValidParticipant(p) {
		return errf("invalid", "participant must be a random pseudonym of 8 to 64 letters, digits, '-' or '_' (never a name or an email address)")
	}
	ctx := r.Context()
	out := api.Assignment{Participant: p}
	var visits []string
	if code := q.Get("room"); code != "" {
		room, err := s.openRoom(r, code)
		if err != nil {
			return err
		}
		visits, out.Room, out.Suite = room.Visits, room.Code, room.Suite
	} else {
		su, err := sim.LookupSuite(assignSuite)
		if err != nil {
			return err
		}
		visits, out.Suite = su.Visits, su.Name
	}
	// One assignment at a time, so that each sees the others' pending ones.
	s.assignMu.Lock()
	defer s.assignMu.Unlock()
	now := s.now()
	since := now.Add(-s.opts.AssignTTL)
	played, err := s.store.PlayedNorms(ctx, p)
	if err != nil {
		return err
	}
	out.Played = len(played)
	held, err := s.store.Assign(ctx, p, out.Room, "", now, since)
	if err != nil {
		return err
	}
	if held == "" {
		loads, err := s.store.VisitLoads(ctx, out.Room, since)
		if err != nil {
			return err
		}
		v := pickVisit(p, visits, played, loads)
		if v == "" {
			out.Done = true
			return writeJSON(w, http.StatusOK, out)
		}
		if held, err = s.store.Assign(ctx, p, out.Room, v, now, since); err != nil {
			return err
		}
	}
	out.Visit = held
	return writeJSON(w, http.StatusOK, out)
}

// pickVisit chooses participant p's next visit among visits (see assign),
// or "" when every norm on offer has been played.
func pickVisit(p string, visits, played []string, loads map[string]int) string {
	done := map[string]bool{}
	for _, n := range played {
		done[n] = true
	}
	type cell struct {
		load   int
		tie    uint64
		visits []string
	}
	var order []string
	cells := map[string]*cell{}
	for _, v := range visits {
		id, err := sim.ParseVisitID(v)
		if err != nil || done[id.Norm] {
			continue
		}
		key := id.Norm + "/" + id.Condition
		c := cells[key]
		if c == nil {
			h := fnv.New64a()
			h.Write([]byte(p + "|" + key))
			c = &cell{tie: h.Sum64()}
			cells[key] = c
			order = append(order, key)
		}
		c.load += loads[v]
		c.visits = append(c.visits, v)
	}
	var best *cell
	for _, k := range order {
		c := cells[k]
		if best == nil || c.load < best.load || c.load == best.load && c.tie < best.tie {
			best = c
		}
	}
	if best == nil {
		return ""
	}
	pick := best.visits[0]
	for _, v := range best.visits[1:] {
		if loads[v] < loads[pick] {
			pick = v
		}
	}
	return pick
}
