package server

import (
	"crypto/rand"
	"encoding/binary"
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
// visit); its observation carries the text and the JSON the sim renders,
// done, and the joint success (1.0 or 0.0) as the final reward. Where
// NormGym differs from OpenEnv's server, RATIONALE.md (OpenEnv) says so:
// chiefly, OpenEnv's HTTP /reset and /step make a fresh environment per
// request, while here they act on the session named by session_id (the
// token the reset returns in its metadata), as /ws does for its
// connection.

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
// allowed) for a session: its episode_id is the session token.
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
// reset parameters as the extra fields it allows: episode_id resumes a
// session (its token); otherwise the fields of api.SessionRequest say
// which session to open, and key is a submitter key (or send it as
// Authorization: Bearer). A seed alone is the seed-th visit of the train
// suite; nothing at all, a random one of it (practice).
type envReset struct {
	Seed           *int   `json:"seed,omitempty"`
	EpisodeID      string `json:"episode_id,omitempty"`
	Visit          string `json:"visit,omitempty"`
	Suite          string `json:"suite,omitempty"`
	Participant    string `json:"participant,omitempty"`
	Consent        bool   `json:"consent,omitempty"`
	ConsentVersion string `json:"consent_version,omitempty"`
	Room           string `json:"room,omitempty"`
	Agent          string `json:"agent,omitempty"`
	Key            string `json:"key,omitempty"`
}

// envStep is OpenEnv's StepRequest with session_id (an extra field it
// allows) naming the session.
type envStep struct {
	Action    json.RawMessage `json:"action"`
	TimeoutS  *float64        `json:"timeout_s,omitempty"`
	RequestID string          `json:"request_id,omitempty"`
	SessionID string          `json:"session_id,omitempty"`
}

// practiceSuite is the suite a reset without a visit or suite draws from.
const practiceSuite = "train"

// envOpen opens (or, with episode_id, resumes) the session a reset asks
// for and returns its state and token.
func (s *Server) envOpen(r *http.Request, req envReset, headerKey string) (api.SessionState, string, error) {
	if s.sessions == nil {
		return api.SessionState{}, "", errf(api.CodeUnavailable, "this server steps no sessions")
	}
	if err := checkReset(req); err != nil {
		return api.SessionState{}, "", err
	}
	if req.EpisodeID != "" {
		st, err := s.sessions.Get(r.Context(), req.EpisodeID)
		return st, req.EpisodeID, sessionError(err)
	}
	sr := api.SessionRequest{Participant: req.Participant, Consent: req.Consent, ConsentVersion: req.ConsentVersion,
		Room: req.Room, Visit: req.Visit, Suite: req.Suite, Seed: req.Seed, Agent: req.Agent}
	key := req.Key
	if key == "" && !session.ValidToken(headerKey) {
		key = headerKey
	}
	if key == "" && sr.Participant == "" && sr.Visit == "" && sr.Suite == "" {
		sr.Suite = practiceSuite
		if sr.Seed == nil {
			var b [4]byte
			rand.Read(b[:])
			n := int(binary.LittleEndian.Uint32(b[:]) >> 1)
			sr.Seed = &n
		}
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

// envResultOf is a session state as OpenEnv's result.
func envResultOf(st api.SessionState, token string, reset bool) envResult {
	res := envResult{Observation: envObservation{Text: st.Text, JSON: st.Observation, Stage: st.Stage, Actions: st.Actions,
		Day: st.Day, Step: st.Step, Terminated: st.Terminated, Truncated: st.Truncated, DayOver: st.DayOver,
		Probe: st.Probe, Result: st.Result},
		Done: st.Stage == api.StageDone, Metadata: map[string]any{"session_id": token, "kind": st.Kind, "sealed": st.Sealed}}
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
	return res
}

// envStateOf is a session state as OpenEnv's State.
func envStateOf(st api.SessionState, token string) envState {
	return envState{EpisodeID: token, StepCount: st.Actions, Kind: st.Kind, Sealed: st.Sealed, Suite: st.Suite,
		Stage: st.Stage, Day: st.Day, Step: st.Step, Over: st.Over, Expires: st.Expires, Visit: st.Visit}
}

// envHealth handles GET /health: OpenEnv's HealthResponse.
func (s *Server) envHealth(w http.ResponseWriter, r *http.Request) error {
	status := "healthy"
	if s.sessions == nil {
		status = "degraded"
	}
	return writeJSON(w, http.StatusOK, map[string]string{"status": status})
}

// envMetadata handles GET /metadata: OpenEnv's EnvironmentMetadata.
func (s *Server) envMetadata(w http.ResponseWriter, r *http.Request) error {
	return writeJSON(w, http.StatusOK, map[string]any{
		"name": "NormGym",
		"description": "A newcomer in a small community does an ordinary errand while a hidden, arbitrary social norm is in force: " +
			"it can learn the norm from watching members, the sanctions they get and the sanctions it gets itself. A visit is a " +
			"practice day and a test day; the reward is joint success on the test day (errand done, norm kept). Actions: " +
			strings.Join(sim.ActionVerbs(), ", ") + " (give NAME); after the visit, answer the probe with {\"answer\": k}.",
		"readme_content":    nil,
		"version":           "sim " + sim.Version + ", sim.wasm " + s.verify.SHA256(),
		"author":            "NormGym",
		"documentation_url": nil,
	})
}

// envSchema handles GET /schema: OpenEnv's SchemaResponse, JSON schemas of
// the action, the observation and the state.
func (s *Server) envSchema(w http.ResponseWriter, r *http.Request) error {
	str := map[string]any{"type": "string"}
	integer := map[string]any{"type": "integer"}
	boolean := map[string]any{"type": "boolean"}
	obj := func(title string, props map[string]any, required ...string) map[string]any {
		m := map[string]any{"title": title, "type": "object", "properties": props, "additionalProperties": false}
		if len(required) > 0 {
			m["required"] = required
		}
		return m
	}
	action := obj("NormGymAction", map[string]any{
		"action": map[string]any{"type": "string", "description": "one of " + strings.Join(sim.ActionVerbs(), ", ") + "; give takes a member's name (give mara)"},
		"index": map[string]any{"type": "integer", "minimum": 0, "description": "the number of actions taken before this one: a step sent again with the same index is taken once " +
			"and answered as it was; another index than the session's count is refused (409) with that count"},
		"answer":     map[string]any{"type": "integer", "minimum": 0, "maximum": 3, "description": "after the visit: the probe option believed to be the rule (0-based)"},
		"confidence": map[string]any{"type": "number", "minimum": 0, "maximum": 1},
		"metadata":   map[string]any{"type": "object"},
	})
	observation := obj("NormGymObservation", map[string]any{
		"text":    map[string]any{"type": "string", "description": "the observation as text, rendered by the sim"},
		"json":    map[string]any{"type": "object", "description": "sim.Observation as the sim encodes it (world, day, task, frame, events, done…)"},
		"stage":   map[string]any{"type": "string", "enum": []string{api.StagePlay, api.StageProbe, api.StageDone}},
		"actions": integer, "day": integer, "step": integer, "terminated": boolean, "truncated": boolean, "day_over": boolean,
		"probe":    map[string]any{"type": []string{"object", "null"}},
		"result":   map[string]any{"type": []string{"object", "null"}},
		"visit":    str,
		"done":     boolean,
		"reward":   map[string]any{"type": []string{"number", "null"}},
		"metadata": map[string]any{"type": "object"},
	})
	state := obj("NormGymState", map[string]any{
		"episode_id": str, "step_count": integer, "kind": str, "sealed": boolean, "suite": str,
		"stage": str, "day": integer, "step": integer, "over": boolean, "expires": str,
	})
	state["additionalProperties"] = true
	return writeJSON(w, http.StatusOK, map[string]any{"action": action, "observation": observation, "state": state})
}

// envResetHTTP handles POST /reset.
func (s *Server) envResetHTTP(w http.ResponseWriter, r *http.Request) error {
	var req envReset
	if r.ContentLength != 0 {
		if err := decodeJSON(r, &req, 16); err != nil {
			return err
		}
	}
	st, token, err := s.envOpen(r, req, bearer(r))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, envResultOf(st, token, true))
}

// envStepHTTP handles POST /step: the session is session_id (or the
// token as Authorization: Bearer).
func (s *Server) envStepHTTP(w http.ResponseWriter, r *http.Request) error {
	var req envStep
	if err := decodeJSON(r, &req, 16); err != nil {
		return err
	}
	token := req.SessionID
	if token == "" {
		token = bearer(r)
	}
	if !session.ValidToken(token) {
		return errf(api.CodeInvalid, "session_id must be the token that POST /reset returned in its metadata")
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
	st, err := s.envAct(r, token, a)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, envResultOf(st, token, false))
}

// envStateHTTP handles GET /state?session_id=TOKEN (or the token as
// Authorization: Bearer).
func (s *Server) envStateHTTP(w http.ResponseWriter, r *http.Request) error {
	if s.sessions == nil {
		return errf(api.CodeUnavailable, "this server steps no sessions")
	}
	token := r.URL.Query().Get("session_id")
	if token == "" {
		token = bearer(r)
	}
	if !session.ValidToken(token) {
		return errf(api.CodeInvalid, "name the session: GET /state?session_id=TOKEN (the token POST /reset returned)")
	}
	st, err := s.sessions.Get(r.Context(), token)
	if err != nil {
		return sessionError(err)
	}
	return writeJSON(w, http.StatusOK, envStateOf(st, token))
}
