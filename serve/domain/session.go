package domain

import (
	"context"
	"time"
)

// SessionSpec says which session to open: whose, on which visit, how
// sealed (serve/session's Manager opens it).
type SessionSpec struct {
	// Kind is api.KindHuman, api.KindModel or api.KindPractice.
	Kind string
	// Participant owns the session: a person's pseudonym, "model:LABEL"
	// for a submitter key, "" for practice. An owner plays a visit once.
	Participant string
	// Agent is the newcomer's name in the record ("human", the key's
	// label, a practice client's name).
	Agent string
	Visit string
	// Suite and SuiteVersion hold the visit ("" for none).
	Suite, SuiteVersion string
	Room                string
	// Sealed: nothing derived from the visit is said before it is over.
	Sealed bool
	// Private: the visit is a private suite's, stepped by
	// the Manager's private engine and never revealed, not even when it
	// is over.
	Private bool
	// Resumable: opening the owner's open session of the visit again
	// resumes it under a new token. Only for owners whose name is a
	// credential (a submitter key); a person's pseudonym is not, so a
	// person's session is resumed with its token alone.
	Resumable      bool
	ConsentVersion string
}

// Session is a session as stored.
type Session struct {
	// ID names the session inside the server; it is never shown (the
	// client knows the token only).
	ID string
	SessionSpec
	// Norm is the visit's norm id ("none" under control).
	Norm string
	// World, Condition (with its variant: "observe+noisy") and Family
	// ("" under control) are the visit's, read from its id
	// (serve/session.VisitParts):
	// the figures count sessions by them.
	World, Condition, Family string
	CreatedAt, TouchedAt     time.Time
	// Actions counts the stored actions.
	Actions int
	// Answer is the probe answer, once given.
	Answer     *int
	Confidence *float64
	// RunID is the run the session was stored as ("" until then, and
	// always for practice).
	RunID string
}

// SessionStore keeps sessions durably. Every write is one statement.
// Methods return ErrNotFound for a missing key.
type SessionStore interface {
	// CreateSession stores a new session under the SHA-256 of its
	// token; ErrExists when its owner already has a session of the visit.
	CreateSession(ctx context.Context, s Session, tokenHash string) error
	// SessionByToken returns the session whose token has the hash.
	SessionByToken(ctx context.Context, tokenHash string) (Session, error)
	// OwnerSession returns the owner's session of the visit.
	OwnerSession(ctx context.Context, participant, visit string) (Session, error)
	// Rekey replaces a session's token hash.
	Rekey(ctx context.Context, id, tokenHash string) error
	// Actions returns a session's stored actions in order.
	Actions(ctx context.Context, id string) ([]string, error)
	// AppendAction stores the session's action number n (0-based) and
	// marks the session used at at; ErrConflict unless n is the number
	// of actions stored.
	AppendAction(ctx context.Context, id string, n int, action string, at time.Time) error
	// SetAnswer stores the probe answer; ErrConflict if there is one.
	SetAnswer(ctx context.Context, id string, k int, confidence *float64) error
	// SetRun records the run the session was stored as.
	SetRun(ctx context.Context, id, runID string) error
	// PurgeSessions deletes practice sessions (and their actions) last
	// used before before.
	PurgeSessions(ctx context.Context, before time.Time) error
}

// Expired reports whether the session waited longer than ttl at now for
// its next action without being finished: it can go on no more (a sealed
// one counts as abandoned). The one rule of expiry, for the Manager and
// the server alike.
func (s Session) Expired(now time.Time, ttl time.Duration) bool {
	return s.RunID == "" && now.Sub(s.TouchedAt) > ttl
}
