package session

import (
	"context"

	"github.com/normgym/normgym/serve/api"
)

// Holding a finished result back. In a classroom where everyone plays the
// same visit, the first student to finish would spoil the visit for the
// rest if their answer named it: the visit's id names its norm, the
// record carries the id, and whether the probe answer was right says
// which of the four options is the rule. So until the teacher reveals the
// rule, a room session's done state says only how the student did
// (scores, run id), never what the visit was. Options.Hold is asked; the
// server answers it from the room (serve/server, rooms).

// HoldFunc reports whether the result of s, a finished session played in
// a room (Spec.Room is set), must be held back from its client for now.
// It is asked each time the session's done state is built, so that a
// reveal shows at the client's next request.
type HoldFunc func(ctx context.Context, s Session) (bool, error)

// holdBack leaves out of st, s's done state, what Options.Hold says the
// client may not see yet: the visit, the record, its hash and the probe's
// verdict; the result says it is held (api.SessionResult.Held).
func (m *Manager) holdBack(ctx context.Context, s Session, st *api.SessionState) error {
	if m.opts.Hold == nil || s.Room == "" || st.Result == nil {
		return nil
	}
	held, err := m.opts.Hold(ctx, s)
	if err != nil {
		return internal("reading the room", err)
	}
	if held {
		withhold(st)
	}
	return nil
}

// withhold strips a done state down to what names neither the visit nor
// its rule.
func withhold(st *api.SessionState) {
	st.Visit = ""
	r := st.Result
	r.Record, r.Hash, r.ProbeCorrect, r.Held = nil, "", nil, true
}
