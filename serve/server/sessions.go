package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/serve/domain"
	"github.com/normgym/normgym/serve/session"
	"github.com/normgym/normgym/sim"
)

// The session routes (serve/session behind HTTP). A session is opened by
// POST /api/sessions and named afterwards by its token in the
// Authorization header (Bearer sess_…), never in a URL, so that no log,
// history or Referer holds it:
//
//	POST /api/sessions          open (or resume) a session
//	GET  /api/session           its state
//	POST /api/session/step      {"action": "north"}
//	POST /api/session/answer    {"answer": 2, "confidence": 0.8}
//	GET  /api/session/trail     the actions and events so far
//
// See RATIONALE.md (Sessions) and api.SessionRequest.

// openSession handles POST /api/sessions.
func (s *Server) openSession(w http.ResponseWriter, r *http.Request) error {
	if s.sessions == nil {
		return errf(api.CodeUnavailable, "this server steps no sessions")
	}
	var req api.SessionRequest
	if err := decodeJSON(r, &req, 16); err != nil {
		return err
	}
	spec, err := s.sessionSpec(r, &req, bearer(r))
	if err != nil {
		return err
	}
	st, err := s.sessions.Open(r.Context(), spec)
	if err != nil {
		return sessionError(err)
	}
	status := http.StatusCreated
	if st.Resumed {
		status = http.StatusOK
	}
	return writeJSON(w, status, st)
}

// sessionSpec works out whose session req asks for and on which visit;
// key is the submitter key the client sent ("" for none).
func (s *Server) sessionSpec(r *http.Request, req *api.SessionRequest, key string) (session.Spec, error) {
	ctx := r.Context()
	if key != "" {
		label, ok := "", false
		if s.opts.SubmitterKeys != nil {
			label, ok = s.opts.SubmitterKeys.Label(key)
		}
		if !ok {
			return session.Spec{}, errf(api.CodeUnauthorized, "unknown submitter key (the operator issues them: normgym submitter-key LABEL); without a key, sessions are practice and store nothing")
		}
		if req.Participant != "" || req.Consent || req.Room != "" || req.Agent != "" {
			return session.Spec{}, errf(api.CodeInvalid, "a submitter key's session takes visit, or suite (and seed): its runs are stored under the key's label %q", label)
		}
		return s.modelSpec(ctx, label, req)
	}
	if req.Participant != "" {
		return s.humanSpec(r, req)
	}
	if req.Consent || req.Room != "" {
		return session.Spec{}, errf(api.CodeInvalid, "a person's session needs the participant pseudonym")
	}
	visit, suite, err := s.chooseVisit(req, false)
	if err != nil {
		return session.Spec{}, err
	}
	agent := req.Agent
	if agent == "" {
		agent = "practice"
	}
	if !validName(agent) {
		return session.Spec{}, errf(api.CodeInvalid, "agent must be 1 to 100 printable characters")
	}
	return session.Spec{Kind: api.KindPractice, Agent: agent, Visit: visit, Suite: suite.name, SuiteVersion: suite.version}, nil
}

// chooseVisit resolves req's visit, or suite and seed, among the public
// suites (and the private one if private is true). A visit with a sealed
// seed (session.PublicSeeds and up) is refused: only the server draws
// those, for sealed sessions, and nobody rehearses one.
func (s *Server) chooseVisit(req *api.SessionRequest, private bool) (string, suiteRef, error) {
	switch {
	case req.Visit != "" && (req.Suite != "" || req.Seed != nil):
		return "", suiteRef{}, errf(api.CodeInvalid, "give visit, or suite and seed, not both")
	case req.Visit != "":
		if ref, ok := s.suites[req.Visit]; ok {
			return req.Visit, ref, nil
		}
		if p := s.opts.Private; private && p != nil && slices.Contains(p.Visits, req.Visit) {
			return req.Visit, suiteRef{p.Name, p.Version}, nil
		}
		if _, err := sim.ParseVisitID(req.Visit); err != nil {
			return "", suiteRef{}, errf(api.CodeInvalid, "unknown visit: %s", strings.TrimPrefix(err.Error(), "sim: "))
		}
		if session.SealedVisit(req.Visit) {
			return "", suiteRef{}, errf(api.CodeInvalid, "seeds from s%d up are drawn by the server for sealed sessions and cannot be named: practise on a smaller seed", uint64(session.PublicSeeds))
		}
		return req.Visit, suiteRef{}, nil
	case req.Suite != "" && req.Seed != nil:
		visits, ref, err := s.suiteVisits(req.Suite, private)
		if err != nil {
			return "", suiteRef{}, err
		}
		// The seed-th visit of the suite's stratified order, as OpenEnv's
		// reset reads a seed: seeds 0, 1, 2… go through every norm first.
		order := sim.Stratified(visits, 0)
		k := *req.Seed % len(order)
		if k < 0 {
			k += len(order)
		}
		return order[k], ref, nil
	}
	return "", suiteRef{}, errf(api.CodeInvalid, "give the visit, or a suite and a seed (the seed-th visit of the suite's stratified order)")
}

// suiteVisits returns a suite's visits: a public suite, or the private
// one when private is true.
func (s *Server) suiteVisits(name string, private bool) ([]string, suiteRef, error) {
	if p := s.opts.Private; p != nil && name == p.Name {
		if !private {
			return nil, suiteRef{}, errf(api.CodeForbidden, "the %s suite is played only by holders of a submitter key", p.Name)
		}
		return p.Visits, suiteRef{p.Name, p.Version}, nil
	}
	su, err := sim.LookupSuite(name)
	if err != nil {
		return nil, suiteRef{}, errf(api.CodeInvalid, "unknown suite %q (want one of %s)", clip(name), strings.Join(sim.SuiteNames(), ", "))
	}
	return su.Visits, suiteRef{su.Name, su.Version}, nil
}

// modelSpec is the session of a submitter key's holder. Asking for a
// suite alone opens the key's next sealed visit of it: the server picks
// the cell (world × norm × condition) of the next visit the key has not
// played, in the suite's stratified order, and draws a secret seed for it, so the run stored under
// the key's label is one nobody could look up or rehearse. A key that
// names its visit (visit, or suite and seed) practises: the session is
// stepped like any other and stores nothing.
func (s *Server) modelSpec(ctx context.Context, label string, req *api.SessionRequest) (session.Spec, error) {
	if req.Suite == "" || req.Seed != nil || req.Visit != "" {
		v, ref, err := s.chooseVisit(req, false)
		if err != nil {
			return session.Spec{}, err
		}
		return session.Spec{Kind: api.KindPractice, Agent: label, Visit: v, Suite: ref.name, SuiteVersion: ref.version}, nil
	}
	spec := session.Spec{Kind: api.KindModel, Participant: "model:" + label, Agent: label, Sealed: true, Resumable: true}
	visits, ref, err := s.suiteVisits(req.Suite, true)
	if err != nil {
		return spec, err
	}
	spec.Suite, spec.SuiteVersion = ref.name, ref.version
	if p := s.opts.Private; p != nil && ref.name == p.Name {
		spec.Private = true
	}
	open, err := s.store.OpenSessions(ctx, spec.Participant, "")
	if err != nil {
		return spec, err
	}
	for _, o := range open {
		// An open session of the suite is resumed (the key is a credential).
		if o.Suite == ref.name && o.SuiteVersion == ref.version && !s.expired(o) {
			spec.Visit = o.Visit
			return spec, nil
		}
	}
	played, err := s.store.PlayedVisits(ctx, spec.Participant)
	if err != nil {
		return spec, err
	}
	// In the suite's stratified order (sim.Stratified, seed 0's): a key
	// that plays part of a suite has played every norm before any twice.
	next := nextUnplayed(sim.Stratified(visits, 0), played)
	if next == "" {
		return spec, errf(api.CodeConflict, "key %s has played every visit of the %s suite", label, ref.name)
	}
	if spec.Private {
		// A private suite's norms were never published: its visits are
		// played as listed, and never revealed.
		spec.Visit = next
		return spec, nil
	}
	if spec.Visit, err = session.SealVisit(next); err != nil {
		return spec, err
	}
	return spec, nil
}

// nextUnplayed returns the first of visits whose cell played has not
// covered yet ("" when none is left): each played visit (under any seed)
// covers one suite visit of its cell, so a suite that holds a cell twice
// is played twice there.
func nextUnplayed(visits, played []string) string {
	left := map[string]int{}
	for _, v := range played {
		left[session.Cell(v)]++
	}
	for _, v := range visits {
		if slices.Contains(played, v) {
			continue // played as listed (a private suite's visit)
		}
		c := session.Cell(v)
		if c != "" && left[c] > 0 {
			left[c]--
			continue
		}
		return v
	}
	return ""
}

// expired reports whether a stored session expired (domain.Session.Expired).
func (s *Server) expired(ss session.Session) bool { return ss.Expired(s.now(), s.opts.SessionTTL) }

// humanSpec is a person's sealed session of the visit the server assigns:
// the participant's open session if there is one (a reload resumes it),
// or the next assignment.
func (s *Server) humanSpec(r *http.Request, req *api.SessionRequest) (session.Spec, error) {
	ctx := r.Context()
	p := req.Participant
	if !api.ValidParticipant(p) {
		return session.Spec{}, errf(api.CodeInvalid, "participant must be a random pseudonym of 8 to 64 letters, digits, '-' or '_' (never a name or an email address)")
	}
	if !req.Consent {
		return session.Spec{}, errf(api.CodeConsent, "consent is required: show the text of GET /api/consent (version %s) and send consent: true", ConsentVersion)
	}
	if req.ConsentVersion != "" && req.ConsentVersion != ConsentVersion {
		return session.Spec{}, errf(api.CodeConsent, "consent_version %q is not the current one (%s): show the current text of GET /api/consent again", clip(req.ConsentVersion), ConsentVersion)
	}
	if req.Visit != "" || req.Suite != "" || req.Seed != nil || req.Agent != "" {
		return session.Spec{}, errf(api.CodeInvalid, "a person plays the visit the server assigns: send participant, consent and (in a classroom) room only")
	}
	var room *domain.Room
	if req.Room != "" {
		rm, err := s.openRoom(r, req.Room)
		if err != nil {
			return session.Spec{}, err
		}
		room = &rm
	}
	spec := session.Spec{Kind: api.KindHuman, Participant: p, Agent: "human", Sealed: true, ConsentVersion: ConsentVersion}
	scope := ""
	if room != nil {
		scope, spec.Room = room.Code, room.Code
	}
	open, err := s.store.OpenSessions(ctx, p, scope)
	if err != nil {
		return spec, err
	}
	for _, o := range open {
		if !s.expired(o) {
			// The token is the only credential: a pseudonym, which a page
			// may show or send, never reopens a session.
			return spec, errf(api.CodeConflict, "this participant has a visit open: its page resumes it with the session's token (GET /api/session, Authorization: Bearer sess_…); without the token it is abandoned after %s without an action, and counts as such", s.opts.SessionTTL)
		}
	}
	if room == nil {
		// Every sealed session counts in the human baseline's figures:
		// a client opens only so many a day.
		if err := s.allow(r, ClassSealed); err != nil {
			return spec, err
		}
	}
	visit, as, err := s.assignVisit(ctx, p, room)
	if err != nil {
		return spec, err
	}
	if as.Done {
		return spec, errf(api.CodeGone, "you have played every visit there is for you here: thank you!")
	}
	spec.Visit = visit
	if ref, ok := s.suites[visit]; ok {
		spec.Suite, spec.SuiteVersion = ref.name, ref.version
	} else if room == nil {
		// A sealed visit: a cell of the assignment suite under a secret seed.
		su, err := sim.LookupSuite(assignSuite)
		if err != nil {
			return spec, err
		}
		spec.Suite, spec.SuiteVersion = su.Name, su.Version
	}
	return spec, nil
}

// sessionToken is the session token of the request's Authorization header.
func sessionToken(r *http.Request) (string, error) {
	t := bearer(r)
	if !session.ValidToken(t) {
		return "", errf(api.CodeUnauthorized, "send the session's token as Authorization: Bearer sess_… (POST /api/sessions returns it)")
	}
	return t, nil
}

// getSession handles GET /api/session.
func (s *Server) getSession(w http.ResponseWriter, r *http.Request) error {
	return s.withToken(w, r, func(token string) (any, error) { return s.sessions.Get(r.Context(), token) })
}

// stepSession handles POST /api/session/step.
func (s *Server) stepSession(w http.ResponseWriter, r *http.Request) error {
	var req api.SessionStep
	if err := decodeJSON(r, &req, 16); err != nil {
		return err
	}
	return s.withToken(w, r, func(token string) (any, error) {
		return s.sessions.StepAt(r.Context(), token, req.Action, req.Index)
	})
}

// answerSession handles POST /api/session/answer.
func (s *Server) answerSession(w http.ResponseWriter, r *http.Request) error {
	var req api.SessionAnswer
	if err := decodeJSON(r, &req, 16); err != nil {
		return err
	}
	return s.withToken(w, r, func(token string) (any, error) {
		return s.sessions.Answer(r.Context(), token, req.Answer, req.Confidence)
	})
}

// sessionTrail handles GET /api/session/trail.
func (s *Server) sessionTrail(w http.ResponseWriter, r *http.Request) error {
	return s.withToken(w, r, func(token string) (any, error) { return s.sessions.Trail(r.Context(), token) })
}

func (s *Server) withToken(w http.ResponseWriter, r *http.Request, f func(token string) (any, error)) error {
	if s.sessions == nil {
		return errf(api.CodeUnavailable, "this server steps no sessions")
	}
	token, err := sessionToken(r)
	if err != nil {
		return err
	}
	v, err := f(token)
	if err != nil {
		return sessionError(err)
	}
	return writeJSON(w, http.StatusOK, v)
}

// sessionError turns the session package's errors into the server's.
func sessionError(err error) error {
	var e *session.Error
	if errors.As(err, &e) {
		if e.Code == api.CodeInternal {
			return &Error{Code: api.CodeInternal, Message: e.Message, Err: e}
		}
		return &Error{Code: e.Code, Message: e.Message, Actions: e.Actions}
	}
	return err
}

// storeSession stores a finished session's record as a run: the record
// is the engine's own (nothing to replay), its provenance server-stepped.
func (s *Server) storeSession(ctx context.Context, ss session.Session, rec sim.Record, verifier string) (string, error) {
	body, err := json.Marshal(rec)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(body)
	run := domain.Run{RunID: session.RunID(ss), ContentSHA256: hex.EncodeToString(sum[:]), CreatedAt: s.now().UTC(),
		Participant: ss.Participant, Room: ss.Room, ConsentVersion: ss.ConsentVersion, Verifier: verifier,
		Provenance: api.ProvenanceStepped, Record: rec}
	stored, _, err := s.store.PutRun(ctx, run)
	if errors.Is(err, domain.ErrNormPlayed) {
		return "", &session.Error{Code: api.CodeConflict, Message: "you have met this visit's norm in another visit already: this run is not stored"}
	}
	if err != nil {
		return "", err
	}
	return stored.RunID, nil
}
