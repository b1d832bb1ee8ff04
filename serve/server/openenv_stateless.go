package server

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"net/http"
	"strings"
	"sync"

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/serve/session"
	"github.com/normgym/normgym/sim"
)

// OpenEnv's stateless HTTP (http_server.py's reset_handler and
// step_handler): each request makes a fresh environment, acts on it and
// closes it, and nothing is kept. NormGym's fresh environment is a
// practice visit stepped by the session engine outside any session:
// POST /reset answers a visit's first observation; POST /step answers the
// observation after the step's action on a fresh environment of the visit
// its extra fields name (visit, or suite and seed, seed 0 of train by
// default) once the earlier actions of history are taken, and after the
// visit, with history reaching its end, {"answer": k} answers the probe.
// Nothing is stored; a sealed or stored session (a key's, a person's) is
// always a session.

// statelessReset answers a reset without session or session_id.
func (s *Server) statelessReset(w http.ResponseWriter, r *http.Request, req envReset) error {
	if err := checkReset(req); err != nil {
		return err
	}
	if req.Key != "" || (bearer(r) != "" && !session.ValidToken(bearer(r))) || req.Participant != "" || req.Room != "" || req.Consent {
		return errf(api.CodeInvalid, `a submitter key's or a person's session is stored, so it is a session: reset with "session": true (then step with its session_id), or over /ws`)
	}
	if req.Seed == nil && req.Visit == "" {
		n := randomSeed()
		req.Seed = &n
	}
	visit, err := s.freshVisit(req.Visit, req.Suite, req.Seed)
	if err != nil {
		return err
	}
	v, f, err := s.freshEnv(r.Context(), visit)
	if err != nil {
		return err
	}
	defer v.Close()
	st := freshFrameState(f, 0)
	st.Visit = visit
	return writeJSON(w, http.StatusOK, envResultOf(st, "", req.EpisodeID, true))
}

// statelessStep answers a step without a session.
func (s *Server) statelessStep(w http.ResponseWriter, r *http.Request, req envStep, a envAction) error {
	if len(req.History) > sim.PracticeSteps+sim.TestSteps {
		return errf(api.CodeInvalid, "history holds at most the %d actions of a visit", sim.PracticeSteps+sim.TestSteps)
	}
	seed := req.Seed
	if seed == nil && req.Visit == "" {
		zero := 0
		seed = &zero
	}
	visit, err := s.freshVisit(req.Visit, req.Suite, seed)
	if err != nil {
		return err
	}
	ctx := r.Context()
	v, f, err := s.freshEnv(ctx, visit)
	if err != nil {
		return err
	}
	defer v.Close()
	for k, h := range req.History {
		act, err := sim.ParseAction(h)
		if err != nil {
			return errf(api.CodeInvalid, "history[%d]: %s", k, strings.TrimPrefix(err.Error(), "sim: "))
		}
		if err := v.Skip(ctx, act.String()); errors.Is(err, sim.ErrVisitOver) {
			return errf(api.CodeInvalid, "history[%d]: the visit is over before it", k)
		} else if err != nil {
			return err
		}
	}
	if f, err = v.Observe(ctx); err != nil {
		return err
	}
	n := len(req.History)
	if a.Action != nil {
		return s.freshStep(w, ctx, v, f, *a.Action, n, visit)
	}
	return s.freshAnswer(w, ctx, v, f, *a.Answer, n, visit)
}

// freshStep takes the action on the fresh visit v at frame f, after n
// actions.
func (s *Server) freshStep(w http.ResponseWriter, ctx context.Context, v session.Visit, f session.Frame, action string, n int, visit string) error {
	act, err := sim.ParseAction(action)
	if err != nil {
		return errf(api.CodeInvalid, "%s", strings.TrimPrefix(err.Error(), "sim: "))
	}
	if f.Over {
		return errf(api.CodeConflict, "the visit is over after history: answer the probe ({\"answer\": k})")
	}
	if f, err = v.Step(ctx, act.String()); err != nil {
		return err
	}
	st := freshFrameState(f, n+1)
	if f.Over {
		if err := freshOutcome(ctx, v, f, &st, visit); err != nil {
			return err
		}
	}
	return writeJSON(w, http.StatusOK, envResultOf(st, "", "", false))
}

// freshAnswer answers the probe of the fresh visit v, over at frame f.
func (s *Server) freshAnswer(w http.ResponseWriter, ctx context.Context, v session.Visit, f session.Frame, k, n int, visit string) error {
	if !f.Over {
		return errf(api.CodeConflict, "the visit is not over after history: the probe comes after its last step")
	}
	if f.NoProbe {
		return errf(api.CodeConflict, "this visit has no probe")
	}
	p, err := v.Probe(ctx)
	if err != nil {
		return err
	}
	if k < 0 || k >= len(p.Options) {
		return errf(api.CodeInvalid, "answer must be the index of an option, 0 to %d", len(p.Options)-1)
	}
	if err := v.Answer(ctx, k); err != nil {
		return err
	}
	st := freshFrameState(f, n)
	st.Stage = api.StageDone
	rec, err := v.Record(ctx, "practice", "model")
	if err != nil {
		return err
	}
	st.Visit = visit
	st.Result = freshResult(rec)
	return writeJSON(w, http.StatusOK, envResultOf(st, "", "", false))
}

// freshOutcome fills st for a fresh visit that just ended: the probe, or
// under control (no probe) the result.
func freshOutcome(ctx context.Context, v session.Visit, f session.Frame, st *api.SessionState, visit string) error {
	if !f.NoProbe {
		p, err := v.Probe(ctx)
		if err != nil {
			return err
		}
		st.Stage, st.Probe = api.StageProbe, &api.Probe{Question: p.Question, Options: p.Options}
		return nil
	}
	rec, err := v.Record(ctx, "practice", "model")
	if err != nil {
		return err
	}
	st.Stage, st.Visit, st.Result = api.StageDone, visit, freshResult(rec)
	return nil
}

// freshResult is a practice record as a session's result.
func freshResult(rec sim.Record) *api.SessionResult {
	res := &api.SessionResult{Scores: rec.Scores, Hash: rec.Hash, Record: &rec}
	if rec.Probe != nil {
		c := rec.Probe.Correct
		res.ProbeCorrect = &c
	}
	return res
}

// freshFrameState is a fresh visit's frame after n actions as a practice
// session's state (stage play).
func freshFrameState(f session.Frame, n int) api.SessionState {
	return api.SessionState{Kind: api.KindPractice, Stage: api.StagePlay, Actions: n, Day: f.Day, Step: f.Step, Over: f.Over,
		Terminated: f.Terminated, Truncated: f.Truncated, DayOver: f.DayOver, Observation: f.Observation, Text: f.Text}
}

// freshVisit is the practice visit a stateless request names: visit, or
// the seed-th of suite's stratified order (seedVisit). A sealed seed is
// refused, as a session's.
func (s *Server) freshVisit(visit, suite string, seed *int) (string, error) {
	if seed != nil {
		if visit != "" {
			return "", errf(api.CodeInvalid, "give visit, or suite and seed, not both")
		}
		if *seed < 0 {
			return "", errf(api.CodeInvalid, "seed must be at least 0")
		}
		return s.seedVisit(suite, *seed)
	}
	if suite != "" {
		return "", errf(api.CodeInvalid, "give visit, or suite and seed, not both")
	}
	v, _, err := s.chooseVisit(&api.SessionRequest{Visit: visit}, false)
	return v, err
}

// freshEnv starts a fresh environment of visit in the session engine.
func (s *Server) freshEnv(ctx context.Context, visit string) (session.Visit, session.Frame, error) {
	if s.opts.Engine == nil {
		return nil, session.Frame{}, errf(api.CodeUnavailable, "this server steps no sessions")
	}
	v, f, err := s.opts.Engine.Reset(ctx, visit)
	if err != nil {
		return nil, f, &Error{Code: api.CodeInternal, Message: "starting the visit", Err: err}
	}
	return v, f, nil
}

// randomSeed draws a seed for a reset that names none.
func randomSeed() int {
	var b [4]byte
	rand.Read(b[:])
	return int(binary.LittleEndian.Uint32(b[:]) >> 1)
}

// episodeNames keeps the episode ids that clients gave their sessions'
// resets (OpenEnv's episode_id), by session token, for the states and
// results that echo them. It is memory only, and bounded: a session
// whose client named no episode, or whose name this process no longer
// holds (after a restart, on another Worker instance), answers an id
// made from its token (never the token itself, a credential).
type episodeNames struct {
	mu    sync.Mutex
	m     map[string]string
	order []string
}

// maxEpisodeNames bounds the names kept; the oldest go first.
const maxEpisodeNames = 4096

// name keeps given (if not "") as the episode id of the session of token
// and returns that session's episode id; for token "" (no session), given.
func (e *episodeNames) name(token, given string) string {
	if token == "" {
		return given
	}
	h := session.TokenHash(token)
	e.mu.Lock()
	defer e.mu.Unlock()
	if given != "" {
		if e.m == nil {
			e.m = map[string]string{}
		}
		if _, ok := e.m[h]; !ok {
			e.order = append(e.order, h)
		}
		e.m[h] = given
		for len(e.order) > maxEpisodeNames {
			delete(e.m, e.order[0])
			e.order = e.order[1:]
		}
		return given
	}
	if n, ok := e.m[h]; ok {
		return n
	}
	return episodeOf(token)
}

// episodeOf is the episode id of a session whose client named none: made
// from its token's hash, so the same for every request of the session,
// and not the token (a credential a log of episode ids must not hold).
func episodeOf(token string) string { return "ep_" + session.TokenHash(token)[:16] }
