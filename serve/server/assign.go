package server

import (
	"context"
	"hash/fnv"
	"net/http"
	"time"

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/serve/domain"
	"github.com/normgym/normgym/serve/session"
	"github.com/normgym/normgym/sim"
)

// assignSuite is the suite human participants draw from outside rooms.
const assignSuite = "standard"

// assign handles POST /api/assign {"participant": P, "room": CODE}:
// whether a visit is waiting for the participant, held for it (see
// assignVisit). The answer never names the visit, in a room or not: the
// visit is played sealed, through a session (POST /api/sessions), and
// its id names the norm. GET, with the pseudonym in the URL, is refused:
// URLs end up in logs.
func (s *Server) assign(w http.ResponseWriter, r *http.Request) error {
	if r.Method != http.MethodPost {
		return errf(api.CodeInvalid, `a pseudonym never goes in a URL: POST /api/assign with {"participant": …, "room": …}`)
	}
	var req api.AssignRequest
	if err := decodeJSON(r, &req, 4); err != nil {
		return err
	}
	if !api.ValidParticipant(req.Participant) {
		return errf(api.CodeInvalid, "participant must be a random pseudonym of 8 to 64 letters, digits, '-' or '_' (never a name or an email address)")
	}
	var room *domain.Room
	if req.Room != "" {
		rm, err := s.openRoom(r, req.Room)
		if err != nil {
			return err
		}
		room = &rm
	}
	visit, out, err := s.assignVisit(r.Context(), req.Participant, room)
	if err != nil {
		return err
	}
	out.Sealed = visit != ""
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
	if held != "" && (s.sessionExpired(ctx, p, held) || room == nil && !session.SealedVisit(held)) {
		// The held visit was met in a session that expired: it will not
		// be stored, and it cannot be played again. Or it was held before
		// sealed seeds (a public id outside a room). Hold another.
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
		if room == nil {
			// Outside rooms the visit's cell is played under a secret seed.
			if v, err = session.SealVisit(v); err != nil {
				return "", out, err
			}
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
	return err == nil && s.expired(ss)
}

// pickVisit chooses participant p's next visit among visits (see
// assignVisit), or "" when every norm on offer has been played. Loads
// count by cell (world × norm × condition): a sealed visit, under its
// secret seed, counts for the cell of the suite's visit it was drawn from.
func pickVisit(p string, visits, played []string, loads map[string]int) string {
	done := map[string]bool{}
	for _, n := range played {
		done[n] = true
	}
	cellLoads := map[string]int{}
	for v, n := range loads {
		cellLoads[session.Cell(v)] += n
	}
	type group struct {
		load   int
		tie    uint64
		visits []string
		cells  map[string]bool
	}
	var order []string
	groups := map[string]*group{}
	for _, v := range visits {
		id, err := sim.ParseVisitID(v)
		if err != nil || done[id.Norm] {
			continue
		}
		key := id.Norm + "/" + id.Condition
		g := groups[key]
		if g == nil {
			h := fnv.New64a()
			h.Write([]byte(p + "|" + key))
			g = &group{tie: h.Sum64(), cells: map[string]bool{}}
			groups[key] = g
			order = append(order, key)
		}
		if c := session.Cell(v); !g.cells[c] {
			g.cells[c] = true
			g.load += cellLoads[c]
		}
		g.visits = append(g.visits, v)
	}
	var best *group
	for _, k := range order {
		g := groups[k]
		if best == nil || g.load < best.load || g.load == best.load && g.tie < best.tie {
			best = g
		}
	}
	if best == nil {
		return ""
	}
	pick := best.visits[0]
	for _, v := range best.visits[1:] {
		if cellLoads[session.Cell(v)] < cellLoads[session.Cell(pick)] {
			pick = v
		}
	}
	return pick
}
