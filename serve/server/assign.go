package server

import (
	"context"
	"hash/fnv"
	"net/http"
	"time"

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/serve/domain"
	"github.com/normgym/normgym/sim"
)

// assignSuite is the suite human participants draw from outside rooms.
const assignSuite = "standard"

// assign handles GET /api/assign?participant=P[&room=CODE]: whether a
// visit is waiting for the participant, held for it (see assignVisit).
// Outside rooms the answer never names the visit: it is played sealed,
// through a session (POST /api/sessions), and its id names the norm.
// In a room it does, because a classroom's page runs the sim itself (the
// norm is in the page's memory anyway); the room's runs are
// self-reported.
func (s *Server) assign(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	p := q.Get("participant")
	if !api.ValidParticipant(p) {
		return errf(api.CodeInvalid, "participant must be a random pseudonym of 8 to 64 letters, digits, '-' or '_' (never a name or an email address)")
	}
	var room *domain.Room
	if code := q.Get("room"); code != "" {
		rm, err := s.openRoom(r, code)
		if err != nil {
			return err
		}
		room = &rm
	}
	visit, out, err := s.assignVisit(r.Context(), p, room)
	if err != nil {
		return err
	}
	if room != nil {
		out.Visit = visit
	} else if visit != "" {
		out.Sealed = true
	}
	return writeJSON(w, http.StatusOK, out)
}

// assignVisit holds the participant's next visit (in the room, if any)
// and returns it ("" when the participant has played every norm on
// offer). Across participants every norm × condition of the visit set is
// covered evenly: the least-played cell comes first (human runs plus
// pending assignments), ties broken by a hash of the participant and the
// cell, so that concurrent newcomers spread out; within the cell the
// least-played visit, ties in set order. A participant never meets a norm
// twice (control counts as one norm, "none"; a norm met in a session
// counts even if the session expired). Asking again before the run is
// stored returns the same visit until the assignment expires.
func (s *Server) assignVisit(ctx context.Context, p string, room *domain.Room) (string, api.Assignment, error) {
	out := api.Assignment{Participant: p}
	var visits []string
	if room != nil {
		visits, out.Room, out.Suite = room.Visits, room.Code, room.Suite
	} else {
		su, err := sim.LookupSuite(assignSuite)
		if err != nil {
			return "", out, err
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
		return "", out, err
	}
	out.Played = len(played)
	held, err := s.store.Assign(ctx, p, out.Room, "", now, since)
	if err != nil {
		return "", out, err
	}
	if held != "" && s.sessionExpired(ctx, p, held) {
		// The held visit was met in a session that expired: it will not
		// be stored, and it cannot be played again. Hold another.
		if _, err := s.store.Assign(ctx, p, out.Room, "", now, now.Add(time.Millisecond)); err != nil {
			return "", out, err
		}
		held = ""
	}
	if held == "" {
		loads, err := s.store.VisitLoads(ctx, out.Room, since)
		if err != nil {
			return "", out, err
		}
		v := pickVisit(p, visits, played, loads)
		if v == "" {
			out.Done = true
			return "", out, nil
		}
		if held, err = s.store.Assign(ctx, p, out.Room, v, now, since); err != nil {
			return "", out, err
		}
	}
	return held, out, nil
}

// sessionExpired reports whether the participant has a session of the
// visit that expired unfinished.
func (s *Server) sessionExpired(ctx context.Context, p, visit string) bool {
	ss, err := s.store.OwnerSession(ctx, p, visit)
	return err == nil && ss.RunID == "" && s.now().Sub(ss.TouchedAt) > s.opts.SessionTTL
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
