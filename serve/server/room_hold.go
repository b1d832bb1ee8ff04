package server

import (
	"context"
	"errors"

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/serve/domain"
	"github.com/normgym/normgym/serve/session"
)

// A class's results held back until the reveal. In a room where everyone
// plays the same visit, nothing the server answers a student names the
// visit or its rule, or says whether a probe answer was right, until the
// teacher reveals the rule (GET /api/rooms/CODE/reveal, which records it:
// domain.Room.RevealedAt): the session's done state (session.HoldFunc,
// which the session package asks whenever it builds one) and the runs of
// GET /api/runs. A room of different visits shows each student's own
// result at once, as before; a study's sessions (scope "study:CODE") are
// no room's.

// held reports whether results played in room scope are held back now.
func (s *Server) held(ctx context.Context, scope string) (bool, error) {
	if scope == "" {
		return false, nil
	}
	room, err := s.store.Room(ctx, scope)
	if errors.Is(err, domain.ErrNotFound) {
		return false, nil // a study's scope, or a room gone
	}
	if err != nil {
		return true, err
	}
	return len(room.Visits) == 1 && room.RevealedAt == nil, nil
}

// sessionHeld is the session manager's HoldFunc.
func (s *Server) sessionHeld(ctx context.Context, ss session.Session) (bool, error) {
	return s.held(ctx, ss.Room)
}

// heldRuns returns a function that reports whether a run played in a
// room scope is held back now, reading each room once.
func (s *Server) heldRuns(ctx context.Context) func(scope string) (bool, error) {
	seen := map[string]bool{}
	return func(scope string) (bool, error) {
		if h, ok := seen[scope]; ok {
			return h, nil
		}
		h, err := s.held(ctx, scope)
		if err != nil {
			return true, err
		}
		seen[scope] = h
		return h, nil
	}
}

// holdSummary leaves out of a run's summary what names its visit or says
// whether its probe answer was right.
func holdSummary(sm *api.RunSummary) {
	sm.Visit, sm.ProbeCorrect, sm.Held = "", nil, true
}

// recordReveal records the room's first reveal (a room of one visit:
// the others hold nothing back).
func (s *Server) recordReveal(ctx context.Context, room domain.Room) error {
	if len(room.Visits) != 1 || room.RevealedAt != nil {
		return nil
	}
	return s.store.RevealRoom(ctx, room.Code, s.now().UTC())
}
