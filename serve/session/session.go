// Package session steps NormGym visits for clients that send only
// actions: the server side of sealed play. A session is one visit of one
// newcomer (a person, a model holding a submitter key, or anyone
// practising), known to its client by an opaque token. The Manager
// answers each action with the observation the sim renders (JSON and
// text), takes the probe answer at the end and hands the finished record
// to the server to store.
//
// Every action is stored (Store.AppendAction) before it is stepped, so a
// session outlives the process: after a restart, or when its environment
// was evicted from memory, the Manager replays the stored actions into a
// fresh environment and goes on where the visit was. A visit is never
// restarted. The package knows nothing of HTTP; its errors carry an
// api.Code (Error.Code), which serve/server answers with.
package session

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/sim"
)

// Spec says which session to open: whose, on which visit, how sealed.
type Spec struct {
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
	// Options.Private and never revealed, not even when it is over.
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
	Spec
	// Norm is the visit's norm id ("none" under control).
	Norm string
	// World, Condition (with its variant: "observe+noisy") and Family
	// ("" under control) are the visit's, read from its id (VisitParts):
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

// Store keeps sessions durably. Every write is one statement. Methods
// return ErrNotFound for a missing key.
type Store interface {
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

// Store errors.
var (
	ErrNotFound = errors.New("session: not found")
	ErrExists   = errors.New("session: already exists")
	ErrConflict = errors.New("session: conflict")
)

// Error is the package's error for clients: an api.Code (invalid,
// not_found, gone, conflict or internal; its Status is the HTTP status
// serve/server answers with) and a message that never names a sealed
// visit.
type Error struct {
	Code    api.Code
	Message string
	// Actions is how many actions the session has taken, when a step's
	// index did not match it (a conflict).
	Actions *int
	// Err is the internal cause (logged, never shown).
	Err error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return "session: " + string(e.Code) + ": " + e.Message + ": " + e.Err.Error()
	}
	return "session: " + string(e.Code) + ": " + e.Message
}

func (e *Error) Unwrap() error { return e.Err }

func errf(code api.Code, format string, a ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, a...)}
}

func internal(msg string, err error) *Error {
	return &Error{Code: api.CodeInternal, Message: msg, Err: err}
}

// FinishFunc stores a finished session's record as a run and returns its
// run id; verifier is the engine's kind. It is called again with the same
// session after a crash, so it must be idempotent (serve/server uses a
// run id derived from the session).
type FinishFunc func(ctx context.Context, s Session, rec sim.Record, verifier string) (runID string, err error)

// Options configure a Manager. Store and Engine are required.
type Options struct {
	Store Store
	// Engine steps the public suites' visits.
	Engine Engine
	// Private steps the visits of sessions with Spec.Private (nil: none).
	Private Engine
	// TTL is how long a session waits for its next action before it
	// expires (default DefaultTTL).
	TTL time.Duration
	// MaxLive bounds the environments kept in memory (default 1024);
	// beyond, the least recently used of the client holding the most are
	// closed, and rebuilt from their stored actions when needed.
	MaxLive int
	// Idle is how long an environment stays in memory unused (default
	// DefaultIdle; the session itself waits TTL).
	Idle time.Duration
	// MaxRebuilds bounds the rebuilds running at once (default one a
	// core); RebuildQueue bounds one client's waiting (default
	// DefaultRebuildQueue; beyond, CodeBusy). Clients wait in turn.
	MaxRebuilds, RebuildQueue int
	// Finish stores finished human and model sessions (nil: never
	// stored, as for practice).
	Finish FinishFunc
	// Hold says whether a finished room session's result is held back
	// for now (hold.go; nil: never).
	Hold HoldFunc

	Now    func() time.Time
	Logger *slog.Logger
}

// DefaultTTL is how long an idle session lives by default.
const DefaultTTL = 2 * time.Hour

// Manager runs sessions. It is safe for concurrent use; the calls of one
// session are taken one at a time.
type Manager struct {
	opts Options

	mu      sync.Mutex
	purged  time.Time
	liveSet // the environments in memory (live.go)
}

// New returns a Manager.
func New(opts Options) (*Manager, error) {
	if opts.Store == nil || opts.Engine == nil {
		return nil, errors.New("session: Options.Store and Options.Engine are required")
	}
	if opts.TTL <= 0 {
		opts.TTL = DefaultTTL
	}
	if opts.MaxLive <= 0 {
		opts.MaxLive = 1024
	}
	if opts.Idle <= 0 {
		opts.Idle = DefaultIdle
	}
	if opts.MaxRebuilds <= 0 {
		opts.MaxRebuilds = defaultMaxRebuilds()
	}
	if opts.RebuildQueue <= 0 {
		opts.RebuildQueue = DefaultRebuildQueue
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	return &Manager{opts: opts, liveSet: newLiveSet(opts)}, nil
}

// TTL is how long a session waits for its next action.
func (m *Manager) TTL() time.Duration { return m.opts.TTL }

// Private reports whether the Manager can step private visits.
func (m *Manager) Private() bool { return m.opts.Private != nil }

// NewToken returns a random session token: 256 bits, "sess_…".
func NewToken() string {
	b := make([]byte, 32)
	rand.Read(b)
	return "sess_" + base64.RawURLEncoding.EncodeToString(b)
}

// TokenHash is the SHA-256 (hex) under which a token is stored.
func TokenHash(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// ValidToken reports whether s has the form of a token.
func ValidToken(s string) bool {
	rest, ok := strings.CutPrefix(s, "sess_")
	if !ok || len(rest) != 43 {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(rest)
	return err == nil
}

func newID() string {
	b := make([]byte, 18)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// RunID is the run id a session is stored under: derived from the
// session, so that storing it again after a crash stores nothing twice.
func RunID(s Session) string { return "session-" + s.ID }

// Open opens a session for spec and returns its state with a new token.
// When the owner has a session of the visit already, that one is resumed
// (its old token stops working) if it is open and spec.Resumable, and
// refused otherwise: an owner plays a visit once.
func (m *Manager) Open(ctx context.Context, spec Spec) (api.SessionState, error) {
	id, err := sim.ParseVisitID(spec.Visit)
	if err != nil && !spec.Private {
		return api.SessionState{}, errf(api.CodeInvalid, "unknown visit: %s", strings.TrimPrefix(err.Error(), "sim: "))
	}
	if spec.Private && m.opts.Private == nil {
		return api.SessionState{}, errf(api.CodeNotFound, "this server has no private suite")
	}
	if spec.Participant != "" {
		prev, err := m.opts.Store.OwnerSession(ctx, spec.Participant, spec.Visit)
		if err == nil {
			return m.resume(ctx, prev, spec.Resumable)
		} else if !errors.Is(err, ErrNotFound) {
			return api.SessionState{}, internal("reading sessions", err)
		}
	}
	eng := m.engine(spec)
	env, frame, err := m.reset(ctx, eng, spec.Visit)
	if err != nil {
		return api.SessionState{}, internal("starting the visit", err)
	}
	now := m.opts.Now()
	s := Session{ID: newID(), Spec: spec, Norm: normOf(spec.Visit, id), CreatedAt: now, TouchedAt: now}
	s.World, s.Condition, s.Family = VisitParts(spec.Visit, s.Norm)
	token := NewToken()
	th := TokenHash(token)
	if err := m.opts.Store.CreateSession(ctx, s, th); err != nil {
		env.Close()
		if errors.Is(err, ErrExists) && spec.Participant != "" {
			// Another request of the owner got in first.
			if prev, err := m.opts.Store.OwnerSession(ctx, spec.Participant, spec.Visit); err == nil {
				return m.resume(ctx, prev, spec.Resumable)
			}
		}
		return api.SessionState{}, internal("storing the session", err)
	}
	lv := &live{sess: s, token: th, env: env, frame: frame}
	m.put(ctx, lv)
	if spec.Kind == api.KindPractice {
		m.purge(ctx, now)
	}
	lv.mu.Lock()
	defer lv.mu.Unlock()
	st, err := m.state(ctx, lv)
	st.Session = token
	return st, err
}

// normOf is the norm of a visit: from its parsed id, or the id's second
// part for a private visit (which the public catalog does not know).
func normOf(visit string, id sim.VisitID) string {
	if id.Norm != "" {
		return id.Norm
	}
	if parts := strings.Split(visit, "/"); len(parts) == 4 {
		return parts[1]
	}
	return ""
}

// resume gives an open session a new token, if it may be resumed so.
func (m *Manager) resume(ctx context.Context, s Session, resumable bool) (api.SessionState, error) {
	if s.RunID != "" {
		return api.SessionState{}, errf(api.CodeConflict, "this visit has been played already: each visit is played once")
	}
	if m.expired(s) {
		return api.SessionState{}, errf(api.CodeGone, "the session of this visit expired after %s without an action: each visit is played once, so it cannot be played again", m.opts.TTL)
	}
	if !resumable {
		return api.SessionState{}, errf(api.CodeConflict, "this visit is open in another session: resume it with that session's token")
	}
	token := NewToken()
	th := TokenHash(token)
	if err := m.opts.Store.Rekey(ctx, s.ID, th); err != nil {
		return api.SessionState{}, internal("storing the session", err)
	}
	// The environment in memory answers to the old token: drop it (locks
	// in the order lv.mu, m.mu); the new token rebuilds it from the store.
	m.mu.Lock()
	old := m.live[s.ID]
	m.mu.Unlock()
	if old != nil {
		old.mu.Lock()
		m.forget(old)
		old.mu.Unlock()
	}
	lv, err := m.acquire(ctx, token)
	if err != nil {
		return api.SessionState{}, err
	}
	defer lv.mu.Unlock()
	st, err := m.state(ctx, lv)
	st.Session, st.Resumed = token, true
	return st, err
}

func (m *Manager) engine(spec Spec) Engine {
	if spec.Private {
		return m.opts.Private
	}
	return m.opts.Engine
}

func (m *Manager) expired(s Session) bool {
	return m.opts.Now().Sub(s.TouchedAt) > m.opts.TTL
}

// Get returns the state of the session of token.
func (m *Manager) Get(ctx context.Context, token string) (api.SessionState, error) {
	lv, err := m.acquire(ctx, token)
	if err != nil {
		return api.SessionState{}, err
	}
	defer lv.mu.Unlock()
	if err := m.finishPending(ctx, lv); err != nil {
		return api.SessionState{}, err
	}
	return m.state(ctx, lv)
}

// Step takes an action (in text form, see sim.ParseAction) in the session
// of token: it is stored, then stepped. It is StepAt without an index.
func (m *Manager) Step(ctx context.Context, token, action string) (api.SessionState, error) {
	return m.StepAt(ctx, token, action, nil)
}

// StepAt is Step with the step's index, if not nil: the number of actions
// taken before it (api.SessionStep.Index). A step sent again with the
// index and action of the last one taken is answered as it was, and not
// taken again; any other index but the number of actions taken is a
// conflict whose Error.Actions says it. An action stored is stepped
// whole even if ctx ends meanwhile; if ctx has ended before, it is not
// taken.
func (m *Manager) StepAt(ctx context.Context, token, action string, index *int) (api.SessionState, error) {
	a, perr := sim.ParseAction(action)
	if index != nil && *index < 0 {
		return api.SessionState{}, errf(api.CodeInvalid, "index must be the number of actions taken before this one (0 or more), not %d", *index)
	}
	lv, err := m.acquire(ctx, token)
	if err != nil {
		return api.SessionState{}, err
	}
	defer lv.mu.Unlock()
	if index != nil && *index != lv.sess.Actions {
		return m.atIndex(ctx, lv, a, perr, *index)
	}
	if m.expired(lv.sess) && !lv.frame.Over {
		return api.SessionState{}, errf(api.CodeGone, "this session expired after %s without an action: it cannot go on", m.opts.TTL)
	}
	if lv.frame.Over {
		if m.stage(lv) == api.StageProbe {
			return api.SessionState{}, errf(api.CodeConflict, "the visit is over: answer the probe (POST …/answer with {\"answer\": k})")
		}
		return api.SessionState{}, errf(api.CodeConflict, "the visit is over")
	}
	if perr != nil {
		return api.SessionState{}, errf(api.CodeInvalid, "%s", strings.TrimPrefix(perr.Error(), "sim: "))
	}
	if ctx.Err() != nil {
		return api.SessionState{}, errf(api.CodeTimeout, "the request ended before the action was taken: it was not taken")
	}
	// From here the action is taken whole, whoever still waits for it.
	ctx = context.WithoutCancel(ctx)
	now := m.opts.Now()
	n := lv.sess.Actions
	if err := m.opts.Store.AppendAction(ctx, lv.sess.ID, n, a.String(), now); err != nil {
		if errors.Is(err, ErrConflict) {
			// Another process stepped this session: start again from the store.
			m.forget(lv)
			return api.SessionState{}, errf(api.CodeConflict, "the session moved on elsewhere: get its state and go on from there")
		}
		return api.SessionState{}, internal("storing the action", err)
	}
	lv.sess.Actions, lv.sess.TouchedAt, lv.last = n+1, now, a.String()
	day := lv.frame.Day
	frame, err := lv.env.Step(ctx, a.String())
	if err != nil {
		// The action is stored: replay everything into a fresh environment.
		m.opts.Logger.Warn("session step failed; rebuilding", "err", err)
		if err := m.rebuild(ctx, lv); err != nil {
			m.forget(lv)
			return api.SessionState{}, err
		}
		frame = lv.frame
	}
	lv.frame = frame
	if frame.Over && !m.hasProbe(lv) {
		if err := m.finish(ctx, lv); err != nil {
			return api.SessionState{}, err
		}
	}
	st, err := m.state(ctx, lv)
	if err == nil && frame.DayOver && !frame.Over {
		st.Ended, err = m.ended(ctx, lv, day)
	}
	return st, err
}

// ended sums up day d, which the last step of lv ended.
func (m *Manager) ended(ctx context.Context, lv *live, d int) (*api.DayEnded, error) {
	rec, err := lv.env.Record(ctx, lv.sess.Agent, clientOf(lv.sess.Kind))
	if err != nil {
		return nil, internal("summing up the day", err)
	}
	out := &api.DayEnded{Day: d}
	out.TaskDone, out.Sanctions = rec.Scores.Day(d)
	return out, nil
}

// Answer takes the probe answer (0-based option, with an optional
// confidence in [0, 1]) and finishes the session.
func (m *Manager) Answer(ctx context.Context, token string, k int, confidence *float64) (api.SessionState, error) {
	lv, err := m.acquire(ctx, token)
	if err != nil {
		return api.SessionState{}, err
	}
	defer lv.mu.Unlock()
	switch m.stage(lv) {
	case api.StagePlay:
		return api.SessionState{}, errf(api.CodeConflict, "the visit is not over yet: the probe comes after its last step")
	case api.StageDone:
		if lv.sess.Answer != nil && *lv.sess.Answer == k {
			if err := m.finishPending(ctx, lv); err != nil {
				return api.SessionState{}, err
			}
			return m.state(ctx, lv) // a retry
		}
		if lv.sess.Answer == nil {
			return api.SessionState{}, errf(api.CodeConflict, "this visit has no probe")
		}
		return api.SessionState{}, errf(api.CodeConflict, "the probe is answered already")
	}
	p, err := m.getProbe(ctx, lv)
	if err != nil {
		return api.SessionState{}, err
	}
	if k < 0 || k >= len(p.Options) {
		return api.SessionState{}, errf(api.CodeInvalid, "answer must be the index of an option, 0 to %d", len(p.Options)-1)
	}
	if confidence != nil && (*confidence < 0 || *confidence > 1) {
		return api.SessionState{}, errf(api.CodeInvalid, "confidence must be between 0 and 1")
	}
	if ctx.Err() != nil {
		return api.SessionState{}, errf(api.CodeTimeout, "the request ended before the answer was taken: it was not taken")
	}
	ctx = context.WithoutCancel(ctx)
	if err := m.opts.Store.SetAnswer(ctx, lv.sess.ID, k, confidence); err != nil {
		if errors.Is(err, ErrConflict) {
			m.forget(lv)
			return api.SessionState{}, errf(api.CodeConflict, "the probe was answered elsewhere: get the session's state")
		}
		return api.SessionState{}, internal("storing the answer", err)
	}
	lv.sess.Answer, lv.sess.Confidence = &k, confidence
	if err := lv.env.Answer(ctx, k); err != nil {
		return api.SessionState{}, internal("answering the probe", err)
	}
	if err := m.finish(ctx, lv); err != nil {
		return api.SessionState{}, err
	}
	return m.state(ctx, lv)
}

// Trail returns the actions taken and the events seen so far.
func (m *Manager) Trail(ctx context.Context, token string) (api.SessionTrail, error) {
	lv, err := m.acquire(ctx, token)
	if err != nil {
		return api.SessionTrail{}, err
	}
	defer lv.mu.Unlock()
	rec, err := lv.env.Record(ctx, lv.sess.Agent, clientOf(lv.sess.Kind))
	if err != nil {
		return api.SessionTrail{}, internal("reading the trail", err)
	}
	out := api.SessionTrail{Actions: rec.Actions, Events: rec.Events}
	if out.Actions == nil {
		out.Actions = []string{}
	}
	if out.Events == nil {
		out.Events = []sim.Event{}
	}
	return out, nil
}

func clientOf(kind string) string {
	if kind == api.KindHuman {
		return "human"
	}
	return "model"
}

func (m *Manager) hasProbe(lv *live) bool { return !lv.frame.NoProbe }

func (m *Manager) stage(lv *live) string {
	switch {
	case !lv.frame.Over:
		return api.StagePlay
	case m.hasProbe(lv) && lv.sess.Answer == nil:
		return api.StageProbe
	}
	return api.StageDone
}

func (m *Manager) getProbe(ctx context.Context, lv *live) (*sim.Probe, error) {
	if lv.probe == nil {
		p, err := lv.env.Probe(ctx)
		if err != nil || p == nil {
			return nil, internal("reading the probe", err)
		}
		lv.probe = p
	}
	return lv.probe, nil
}

// finishPending stores a session that is done but not stored (the
// process stopped in between).
func (m *Manager) finishPending(ctx context.Context, lv *live) error {
	if m.stage(lv) != api.StageDone || lv.sess.RunID != "" || lv.sess.Kind == api.KindPractice || m.opts.Finish == nil {
		return nil
	}
	return m.finish(ctx, lv)
}

// record is the session's record as it will be stored.
func (m *Manager) record(ctx context.Context, lv *live) (sim.Record, error) {
	rec, err := lv.env.Record(ctx, lv.sess.Agent, clientOf(lv.sess.Kind))
	if err != nil {
		return rec, internal("reading the record", err)
	}
	if rec.Probe != nil && lv.sess.Confidence != nil {
		c := *lv.sess.Confidence
		rec.Probe.Confidence = &c
	}
	rec.Suite, rec.SuiteVersion = lv.sess.Suite, lv.sess.SuiteVersion
	return rec, nil
}

// finish stores a done session's run (not for practice).
func (m *Manager) finish(ctx context.Context, lv *live) error {
	if lv.sess.Kind == api.KindPractice || m.opts.Finish == nil || lv.sess.RunID != "" {
		return nil
	}
	rec, err := m.record(ctx, lv)
	if err != nil {
		return err
	}
	runID, err := m.opts.Finish(ctx, lv.sess, rec, m.engine(lv.sess.Spec).Kind())
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			return e
		}
		return internal("storing the run", err)
	}
	if err := m.opts.Store.SetRun(ctx, lv.sess.ID, runID); err != nil {
		return internal("storing the run", err)
	}
	lv.sess.RunID = runID
	return nil
}

// state is what the client may see of lv now.
func (m *Manager) state(ctx context.Context, lv *live) (api.SessionState, error) {
	s := lv.sess
	f := lv.frame
	st := api.SessionState{Kind: s.Kind, Sealed: s.Sealed, Suite: s.Suite, Stage: m.stage(lv), Actions: s.Actions,
		Day: f.Day, Step: f.Step, Over: f.Over, Terminated: f.Terminated, Truncated: f.Truncated, DayOver: f.DayOver,
		Observation: f.Observation, Text: f.Text}
	if !s.Sealed {
		st.Visit = s.Visit
	}
	if !f.Over {
		st.Expires = s.TouchedAt.Add(m.opts.TTL).UTC().Format(time.RFC3339)
	}
	switch st.Stage {
	case api.StageProbe:
		p, err := m.getProbe(ctx, lv)
		if err != nil {
			return st, err
		}
		st.Probe = &api.Probe{Question: p.Question, Options: slices.Clone(p.Options)}
	case api.StageDone:
		rec, err := m.record(ctx, lv)
		if err != nil {
			return st, err
		}
		res := &api.SessionResult{Scores: rec.Scores, RunID: s.RunID}
		if rec.Probe != nil {
			c := rec.Probe.Correct
			res.ProbeCorrect = &c
		}
		if s.RunID != "" {
			res.Provenance = api.ProvenanceStepped
		}
		if !s.Private {
			st.Visit = s.Visit
			res.Hash = rec.Hash
			res.Record = &rec
		}
		st.Result = res
		if err := m.holdBack(ctx, s, &st); err != nil {
			return st, err
		}
	}
	return st, nil
}

// purge deletes expired practice sessions, at most once a minute.
func (m *Manager) purge(ctx context.Context, now time.Time) {
	m.mu.Lock()
	due := now.Sub(m.purged) >= time.Minute
	if due {
		m.purged = now
	}
	m.mu.Unlock()
	if due {
		if err := m.opts.Store.PurgeSessions(ctx, now.Add(-m.opts.TTL)); err != nil {
			m.opts.Logger.Warn("purging practice sessions", "err", err)
		}
	}
}
