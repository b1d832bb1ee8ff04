package server

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/serve/session"
	"github.com/normgym/normgym/sim"
)

// OpenEnv's environment API (meta-pytorch/OpenEnv,
// src/openenv/core/env_server/types.py and http_server.py) on the same
// sessions: GET /health, /metadata, /schema, /state, POST /reset, /step
// and the /ws WebSocket session (ws.go). NormGym's action is
// {"action": "north"} (and {"answer": k} for the probe after the
// visit); its observation carries the text and the JSON the sim renders.
// The reward of every step is 0.0 until the visit is done, then the joint
// success (1.0 or 0.0); the final observation's metadata says whether the
// probe was answered right (probe_correct).
//
// As OpenEnv's, the HTTP /reset and /step are stateless: each acts on a
// fresh environment (openenv_stateless.go) and GET /state answers a fresh
// environment's state. NormGym's stateful extension keeps a session over
// HTTP: POST /reset with "session": true opens one (its token is
// metadata.session_id), "session_id" in a reset resumes one and in a
// step names it, and GET /state?session_id= reads it. /ws holds its
// connection's session, as OpenEnv's. RATIONALE.md (OpenEnv) says where
// NormGym differs from OpenEnv's server and why.

// envResult is OpenEnv's ResetResponse and StepResponse, and the data of
// its WSObservationResponse (serialize_observation's shape): the
// observation's own fields, with reward, done and metadata beside them.
type envResult struct {
	Observation envObservation `json:"observation"`
	Reward      *float64       `json:"reward"`
	Done        bool           `json:"done"`
	Metadata    map[string]any `json:"metadata,omitempty"`
}

// envObservation is NormGym's Observation (a subclass of OpenEnv's
// Observation, whose done, reward and metadata serialize_observation
// moves out).
type envObservation struct {
	// Text is the observation's text form, rendered by the sim: the
	// prompt a language model reads.
	Text string `json:"text"`
	// JSON is sim.Observation as the sim encoded it.
	JSON json.RawMessage `json:"json"`
	// Stage is play, probe (answer with {"answer": k}) or done.
	Stage   string `json:"stage"`
	Actions int    `json:"actions"`
	Day     int    `json:"day"`
	Step    int    `json:"step"`
	// Terminated, Truncated and DayOver say what the step did (sim.Turn).
	Terminated bool `json:"terminated"`
	Truncated  bool `json:"truncated"`
	DayOver    bool `json:"day_over"`
	// Probe is the question after the visit (stage probe).
	Probe *api.Probe `json:"probe"`
	// Result is the outcome (stage done): scores, and the hash and record
	// unless the visit is a private suite's.
	Result *api.SessionResult `json:"result"`
	// Visit is the visit id once the visit is done (never a private
	// suite's). Before, no observation names it, nor its norm or
	// condition, sealed or not: an agent wrapper hands observations to
	// its model. A client that chose its visit finds the id in the
	// reset's metadata and the state.
	Visit string `json:"visit,omitempty"`
}

// envState is OpenEnv's State (episode_id, step_count; extra fields
// allowed) for a session. EpisodeID is the client's name for the episode
// (its reset's episode_id), or one the server made from the session.
type envState struct {
	EpisodeID string `json:"episode_id"`
	StepCount int    `json:"step_count"`
	Kind      string `json:"kind"`
	Sealed    bool   `json:"sealed"`
	Suite     string `json:"suite,omitempty"`
	Stage     string `json:"stage"`
	Day       int    `json:"day"`
	Step      int    `json:"step"`
	Over      bool   `json:"over"`
	Expires   string `json:"expires,omitempty"`
	// Visit is the visit id of a session that is not sealed (the client
	// chose it), or of any once it is done (never a private suite's).
	Visit string `json:"visit,omitempty"`
}

// freshState is OpenEnv's State of a fresh environment (GET /state
// without a session, as OpenEnv's stateless HTTP answers; /ws before a
// reset): no episode, no step.
var freshState = map[string]any{"episode_id": nil, "step_count": 0}

// envAction is NormGym's Action: a move or act in text form, or, after
// the visit, the probe answer. metadata is OpenEnv's Action field.
type envAction struct {
	Action *string `json:"action,omitempty"`
	// Index is the action's expected index (api.SessionStep.Index); it
	// is ignored with an answer (sent again, an answer is answered as it
	// was).
	Index      *int           `json:"index,omitempty"`
	Answer     *int           `json:"answer,omitempty"`
	Confidence *float64       `json:"confidence,omitempty"`
	Metadata   map[string]any `json:"metadata,omitempty"`
}

// envReset is OpenEnv's ResetRequest (seed, episode_id) with NormGym's
// reset parameters as the extra fields it allows. seed draws the visit
// from the suite (train by default) in its stratified order
// (sim.Stratified, seed 0's): seeds 0, 1, 2… go through every norm
// before any twice. episode_id is the client's name for the episode,
// echoed in the state. session_id resumes a session (its token) and
// session asks POST /reset for a stateful session: NormGym's extension.
// The fields of api.SessionRequest say which session to open, and key is
// a submitter key (or send it as Authorization: Bearer). Nothing at all
// is a random visit of train (practice).
type envReset struct {
	Seed           *int   `json:"seed,omitempty"`
	EpisodeID      string `json:"episode_id,omitempty"`
	SessionID      string `json:"session_id,omitempty"`
	Session        bool   `json:"session,omitempty"`
	Visit          string `json:"visit,omitempty"`
	Suite          string `json:"suite,omitempty"`
	Participant    string `json:"participant,omitempty"`
	Consent        bool   `json:"consent,omitempty"`
	ConsentVersion string `json:"consent_version,omitempty"`
	Room           string `json:"room,omitempty"`
	Agent          string `json:"agent,omitempty"`
	Key            string `json:"key,omitempty"`
}

// envStep is OpenEnv's StepRequest with NormGym's extra fields:
// session_id names a session (the stateful extension); without it the
// step is stateless, on a fresh environment of the visit that visit, or
// suite and seed, name (as a reset's; seed 0 of train by default) after
// the earlier actions of history.
type envStep struct {
	Action    json.RawMessage `json:"action"`
	TimeoutS  *float64        `json:"timeout_s,omitempty"`
	RequestID string          `json:"request_id,omitempty"`
	SessionID string          `json:"session_id,omitempty"`
	Visit     string          `json:"visit,omitempty"`
	Suite     string          `json:"suite,omitempty"`
	Seed      *int            `json:"seed,omitempty"`
	History   []string        `json:"history,omitempty"`
}

// practiceSuite is the suite a reset without a visit or suite draws from.
const practiceSuite = "train"

// envOpen opens (or, with session_id, resumes) the session a reset asks
// for and returns its state and token.
func (s *Server) envOpen(r *http.Request, req envReset, headerKey string) (api.SessionState, string, error) {
	if s.sessions == nil {
		return api.SessionState{}, "", errf(api.CodeUnavailable, "this server steps no sessions")
	}
	if err := checkReset(req); err != nil {
		return api.SessionState{}, "", err
	}
	if req.SessionID != "" {
		if req != (envReset{SessionID: req.SessionID, EpisodeID: req.EpisodeID, Session: req.Session}) {
			return api.SessionState{}, "", errf(api.CodeInvalid, "session_id resumes a session: send it with episode_id at most")
		}
		if !session.ValidToken(req.SessionID) {
			return api.SessionState{}, "", errf(api.CodeInvalid, "session_id must be the token a reset returned in its metadata")
		}
		st, err := s.sessions.Get(r.Context(), req.SessionID)
		return st, req.SessionID, sessionError(err)
	}
	sr, key, err := s.resetRequest(req, headerKey)
	if err != nil {
		return api.SessionState{}, "", err
	}
	spec, err := s.sessionSpec(r, &sr, key)
	if err != nil {
		return api.SessionState{}, "", err
	}
	st, err := s.sessions.Open(r.Context(), spec)
	if err != nil {
		return api.SessionState{}, "", sessionError(err)
	}
	return st, st.Session, nil
}

// resetRequest is the session a reset asks for, its seed read as a draw
// from the suite, and the submitter key it holds ("" for none).
func (s *Server) resetRequest(req envReset, headerKey string) (api.SessionRequest, string, error) {
	sr := api.SessionRequest{Participant: req.Participant, Consent: req.Consent, ConsentVersion: req.ConsentVersion,
		Room: req.Room, Visit: req.Visit, Suite: req.Suite, Agent: req.Agent}
	key := req.Key
	if key == "" && !session.ValidToken(headerKey) {
		key = headerKey
	}
	seed := req.Seed
	if key == "" && sr.Participant == "" && sr.Visit == "" && seed == nil {
		// Practice on a random visit of the suite (train by default).
		n := randomSeed()
		seed = &n
	}
	if seed != nil {
		if sr.Visit != "" {
			return sr, key, errf(api.CodeInvalid, "give visit, or suite and seed, not both")
		}
		v, err := s.seedVisit(sr.Suite, *seed)
		if err != nil {
			return sr, key, err
		}
		sr.Visit, sr.Suite = v, ""
	}
	return sr, key, nil
}

// seedVisit is the visit seed draws from a suite (practiceSuite if ""):
// its seed-th in the suite's stratified order (modulo the suite's size).
func (s *Server) seedVisit(suite string, seed int) (string, error) {
	if suite == "" {
		suite = practiceSuite
	}
	visits, _, err := s.suiteVisits(suite, false)
	if err != nil {
		return "", err
	}
	order := sim.Stratified(visits, 0)
	return order[seed%len(order)], nil
}

// parseAction reads an action's data as NormGymAction's schema says: a
// move or act, or the probe answer (OpenEnv's deserialize_action).
func parseAction(raw json.RawMessage) (envAction, error) {
	var a envAction
	if err := strictDecode(raw, &a); err != nil {
		return a, err
	}
	if (a.Action == nil) == (a.Answer == nil) {
		return a, errf(api.CodeInvalid, `an action is {"action": "north"} (or any of %s; "give NAME"), or after the visit {"answer": k}`, strings.Join(sim.ActionVerbs(), ", "))
	}
	return a, nil
}

// envAct takes one action (or the probe answer) in the session of token.
func (s *Server) envAct(r *http.Request, token string, a envAction) (api.SessionState, error) {
	if s.sessions == nil {
		return api.SessionState{}, errf(api.CodeUnavailable, "this server steps no sessions")
	}
	var st api.SessionState
	var err error
	if a.Action != nil {
		st, err = s.sessions.StepAt(r.Context(), token, *a.Action, a.Index)
	} else {
		st, err = s.sessions.Answer(r.Context(), token, *a.Answer, a.Confidence)
	}
	return st, sessionError(err)
}

// checkReset applies ResetRequest's own bounds: seed ≥ 0, episode_id at
// most 255 characters.
func checkReset(req envReset) error {
	if req.Seed != nil && *req.Seed < 0 {
		return errf(api.CodeInvalid, "seed must be at least 0")
	}
	if len(req.EpisodeID) > 255 {
		return errf(api.CodeInvalid, "episode_id is at most 255 characters")
	}
	return nil
}

// strictDecode decodes JSON as decodeJSON does a body: no key twice, no
// unknown field, nothing after the value.
func strictDecode(raw json.RawMessage, v any) error {
	if len(raw) == 0 {
		return errf(api.CodeInvalid, "malformed JSON: empty")
	}
	return decodeBytes(raw, v, 16)
}

// envResultOf is a session state as OpenEnv's result; token is the
// session's ("" for a stateless one, which has none to name), episode
// the episode's id.
func envResultOf(st api.SessionState, token, episode string, reset bool) envResult {
	res := envResult{Observation: envObservation{Text: st.Text, JSON: st.Observation, Stage: st.Stage, Actions: st.Actions,
		Day: st.Day, Step: st.Step, Terminated: st.Terminated, Truncated: st.Truncated, DayOver: st.DayOver,
		Probe: st.Probe, Result: st.Result},
		Done: st.Stage == api.StageDone, Metadata: map[string]any{"kind": st.Kind, "sealed": st.Sealed}}
	if episode != "" {
		res.Metadata["episode_id"] = episode
	}
	if token != "" {
		res.Metadata["session_id"] = token
	}
	if res.Done {
		res.Observation.Visit = st.Visit
	}
	if st.Suite != "" {
		res.Metadata["suite"] = st.Suite
	}
	if reset && st.Visit != "" {
		res.Metadata["visit"] = st.Visit
	}
	if !reset || res.Done {
		r := 0.0
		if res.Done && st.Result != nil && st.Result.Scores.Joint {
			r = 1
		}
		res.Reward = &r
	}
	if res.Done && st.Result != nil {
		res.Metadata["joint"] = st.Result.Scores.Joint
		if st.Result.ProbeCorrect != nil {
			res.Metadata["probe_correct"] = *st.Result.ProbeCorrect
		}
	}
	return res
}

// envStateOf is a session state as OpenEnv's State.
func envStateOf(st api.SessionState, episode string) envState {
	return envState{EpisodeID: episode, StepCount: st.Actions, Kind: st.Kind, Sealed: st.Sealed, Suite: st.Suite,
		Stage: st.Stage, Day: st.Day, Step: st.Step, Over: st.Over, Expires: st.Expires, Visit: st.Visit}
}

// envResetHTTP handles POST /reset: a stateless reset (a fresh
// environment, nothing kept), or with session or session_id the stateful
// extension's session.
func (s *Server) envResetHTTP(w http.ResponseWriter, r *http.Request) error {
	var req envReset
	if r.ContentLength != 0 {
		if err := decodeJSON(r, &req, 16); err != nil {
			return err
		}
	}
	if !req.Session && req.SessionID == "" {
		return s.statelessReset(w, r, req)
	}
	st, token, err := s.envOpen(r, req, bearer(r))
	if err != nil {
		return err
	}
	ep := s.episodes.name(token, req.EpisodeID)
	return writeJSON(w, http.StatusOK, envResultOf(st, token, ep, true))
}

// envStepHTTP handles POST /step: the session named by session_id (or the
// token as Authorization: Bearer), or without one a stateless step.
func (s *Server) envStepHTTP(w http.ResponseWriter, r *http.Request) error {
	var req envStep
	if err := decodeJSON(r, &req, sim.PracticeSteps+sim.TestSteps); err != nil {
		return err
	}
	if req.TimeoutS != nil && *req.TimeoutS <= 0 {
		return errf(api.CodeInvalid, "timeout_s must be positive")
	}
	if len(req.RequestID) > 255 {
		return errf(api.CodeInvalid, "request_id is at most 255 characters")
	}
	a, err := parseAction(req.Action)
	if err != nil {
		return err
	}
	token := req.SessionID
	if token == "" && session.ValidToken(bearer(r)) {
		token = bearer(r)
	}
	if token == "" {
		return s.statelessStep(w, r, req, a)
	}
	if !session.ValidToken(token) {
		return errf(api.CodeInvalid, "session_id must be the token a reset with \"session\": true returned in its metadata")
	}
	if req.Visit != "" || req.Suite != "" || req.Seed != nil || req.History != nil {
		return errf(api.CodeInvalid, "a session's step takes its action and session_id: visit, suite, seed and history are a stateless step's")
	}
	st, err := s.envAct(r, token, a)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, envResultOf(st, token, s.episodes.name(token, ""), false))
}

// envStateHTTP handles GET /state: a fresh environment's state (OpenEnv's
// stateless HTTP), or with ?session_id=TOKEN (or the token as
// Authorization: Bearer) the session's.
func (s *Server) envStateHTTP(w http.ResponseWriter, r *http.Request) error {
	token := r.URL.Query().Get("session_id")
	if token == "" && session.ValidToken(bearer(r)) {
		token = bearer(r)
	}
	if token == "" {
		return writeJSON(w, http.StatusOK, freshState)
	}
	if s.sessions == nil {
		return errf(api.CodeUnavailable, "this server steps no sessions")
	}
	if !session.ValidToken(token) {
		return errf(api.CodeInvalid, "session_id must be the token a reset with \"session\": true returned in its metadata")
	}
	st, err := s.sessions.Get(r.Context(), token)
	if err != nil {
		return sessionError(err)
	}
	return writeJSON(w, http.StatusOK, envStateOf(st, s.episodes.name(token, "")))
}
