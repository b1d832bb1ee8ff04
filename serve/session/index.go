package session

import (
	"context"
	"strings"

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/sim"
)

// atIndex answers a step whose index is not the number of actions the
// session has taken: a step sent again (the last one's index and action)
// is answered as it was the first time, from the environment as it stands
// (its frame is the last step's, also after a rebuild, which steps the
// last action); any other index is a conflict that says where the session
// is. Nothing is taken. lv.mu is held.
func (m *Manager) atIndex(ctx context.Context, lv *live, a sim.Action, perr error, index int) (api.SessionState, error) {
	if perr != nil {
		return api.SessionState{}, errf(api.CodeInvalid, "%s", strings.TrimPrefix(perr.Error(), "sim: "))
	}
	n := lv.sess.Actions
	switch {
	case index == n-1 && a.String() == lv.last:
		st, err := m.state(ctx, lv)
		if f := lv.frame; err == nil && f.DayOver && !f.Over {
			st.Ended, err = m.ended(ctx, lv, f.Day-1)
		}
		return st, err
	case index == n-1:
		return api.SessionState{}, conflictAt(n, "action %d was taken already, and was %q, not %q: the session has taken %d actions; go on from index %d", index, lv.last, a.String(), n, n)
	case index < n:
		return api.SessionState{}, conflictAt(n, "step %d was taken already: the session has taken %d actions; go on from index %d", index, n, n)
	}
	return api.SessionState{}, conflictAt(n, "index %d is ahead of the session, which has taken %d actions: go on from index %d", index, n, n)
}

// conflictAt is a conflict of a step's index with a session of n actions.
func conflictAt(n int, format string, a ...any) *Error {
	e := errf(api.CodeConflict, format, a...)
	e.Actions = &n
	return e
}
