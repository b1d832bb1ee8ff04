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
	"errors"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/serve/domain"
	"github.com/normgym/normgym/sim"
)

// The stored session and its store are the server's domain
// (serve/domain): the Manager adapts them. The names below are theirs.
type (
	// Spec is domain.SessionSpec: which session to open.
	Spec = domain.SessionSpec
	// Session is domain.Session: a session as stored.
	Session = domain.Session
	// Store is domain.SessionStore: where sessions are kept.
	Store = domain.SessionStore
)

// Store errors: the domain's, one of each.
var (
	ErrNotFound = domain.ErrNotFound
	ErrExists   = domain.ErrExists
	ErrConflict = domain.ErrConflict
)

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
	s := Session{ID: newID(), SessionSpec: spec, Norm: normOf(spec.Visit, id), CreatedAt: now, TouchedAt: now}
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

// expired reports whether a session expired (domain.Session.Expired).
func (m *Manager) expired(s Session) bool { return s.Expired(m.opts.Now(), m.opts.TTL) }

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
