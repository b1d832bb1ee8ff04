package ui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/normgym/normgym/sim"
)

// A sealed visit is played on the server: the page sends actions to a
// server-stepped session (serve/session) and draws the observations it
// answers with. The page never holds the visit's id, its norm or the
// sim's state, so neither devtools nor a script can read the rule before
// the probe; its first statement on the page is one of the probe's
// options. The types below mirror the session API's (serve/api) JSON,
// field for field (TestMirrors), so that the app links nothing of the
// server.

// SessionRequest mirrors the fields of api.SessionRequest a person sends,
// and the visit of a practice session (a test's: a person cannot name a
// visit).
type SessionRequest struct {
	Participant    string `json:"participant,omitempty"`
	Consent        bool   `json:"consent,omitempty"`
	ConsentVersion string `json:"consent_version,omitempty"`
	Room           string `json:"room,omitempty"`
	Visit          string `json:"visit,omitempty"`
}

// SessionState mirrors api.SessionState: where a session stands.
type SessionState struct {
	Session     string          `json:"session,omitempty"`
	Kind        string          `json:"kind"`
	Sealed      bool            `json:"sealed"`
	Suite       string          `json:"suite,omitempty"`
	Visit       string          `json:"visit,omitempty"`
	Stage       string          `json:"stage"`
	Resumed     bool            `json:"resumed,omitempty"`
	Actions     int             `json:"actions"`
	Day         int             `json:"day"`
	Step        int             `json:"step"`
	Over        bool            `json:"over"`
	Terminated  bool            `json:"terminated,omitempty"`
	Truncated   bool            `json:"truncated,omitempty"`
	DayOver     bool            `json:"day_over,omitempty"`
	Ended       *DayEnded       `json:"ended,omitempty"`
	Observation json.RawMessage `json:"observation"`
	Text        string          `json:"text"`
	Probe       *ProbeResponse  `json:"probe,omitempty"`
	Result      *SessionResult  `json:"result,omitempty"`
	Expires     string          `json:"expires,omitempty"`
}

// DayEnded mirrors api.DayEnded: the day a step ended, summed up.
type DayEnded struct {
	Day       int  `json:"day"`
	TaskDone  bool `json:"task_done"`
	Sanctions int  `json:"sanctions"`
}

// SessionResult mirrors api.SessionResult: a finished session's outcome.
type SessionResult struct {
	Scores       Scores  `json:"scores"`
	ProbeCorrect *bool   `json:"probe_correct,omitempty"`
	Hash         string  `json:"hash,omitempty"`
	RunID        string  `json:"run_id,omitempty"`
	Provenance   string  `json:"provenance,omitempty"`
	Record       *Record `json:"record,omitempty"`
	Held         bool    `json:"held,omitempty"`
}

// SessionStep mirrors api.SessionStep. The page sends no Index: it sends
// a step once and does not retry it.
type SessionStep struct {
	Action string `json:"action"`
	Index  *int   `json:"index,omitempty"`
}

// SessionAnswer mirrors api.SessionAnswer.
type SessionAnswer struct {
	Answer     int      `json:"answer"`
	Confidence *float64 `json:"confidence,omitempty"`
}

// SessionTrail mirrors api.SessionTrail: what a resumed page draws again.
type SessionTrail struct {
	Actions []string `json:"actions"`
	Events  []Event  `json:"events"`
}

// QueueFull is what the line under the map says when a key is not taken
// because the moves before it are still on their way to the server.
const QueueFull = "One moment: your last moves are still on their way to the server, so that key was not taken."

// Session stages (api.StagePlay, api.StageProbe, api.StageDone).
const (
	SessionPlay  = "play"
	SessionProbe = "probe"
	SessionDone  = "done"
)

// Fetch makes one same-origin request to the server: method, path, the
// session token for the Authorization header ("" for none) and a JSON
// body (nil for none). It returns the status and the body; err is for
// requests that got no answer. In the browser it is fetch; in tests, an
// http.Client.
type Fetch func(method, path, token string, body []byte) (status int, resp []byte, err error)

// HTTPError is an answer of the server that is not a success: its
// status and the message to show (ServerError formats its body).
type HTTPError struct {
	Status  int
	Message string
}

func (e *HTTPError) Error() string { return e.Message }

// Sealed is a server-stepped session: sim.Env (and the Stepper of a Play)
// over the session API, whose sim runs on the server. Its token is the
// session's only name and its only credential: the page keeps it (Token)
// to resume the session after a reload (ResumeSealed); the participant's
// pseudonym reopens nothing. It translates the server's answers into the
// contract's (errors included) and holds no rules.
type Sealed struct {
	fetch Fetch
	req   SessionRequest // what Reset("") opens
	token string
	// Last is the server's latest answer.
	Last  SessionState
	probe *sim.Probe // the probe, once the server showed it
}

var _ Stepper = (*Sealed)(nil)

// NewSealed returns a Sealed with no session yet: Reset("") opens (or
// resumes) req's session, a sealed one for a person.
func NewSealed(fetch Fetch, req SessionRequest) *Sealed { return &Sealed{fetch: fetch, req: req} }

// OpenSealed opens (or resumes) the participant's sealed session and
// returns it with the observation on screen.
func OpenSealed(fetch Fetch, req SessionRequest) (*Sealed, StepResponse, error) {
	s := NewSealed(fetch, req)
	t, err := s.Reset(bg, "")
	if err != nil {
		return nil, StepResponse{}, err
	}
	r, err := Shown(s, t)
	return s, r, err
}

// Reset opens the Sealed's session (visit ""), or a practice session of
// the visit named (the server shows its id in the state, never in the
// observation).
func (s *Sealed) Reset(_ context.Context, visit string) (sim.Turn, error) {
	req := s.req
	if visit != "" {
		req = SessionRequest{Visit: visit}
	}
	body, err := json.Marshal(req)
	if err != nil {
		return sim.Turn{}, err
	}
	prev, token := s.Last, s.token
	s.token = ""
	if err := s.state("POST", "/api/sessions", body); err != nil {
		s.token = token
		return sim.Turn{}, contractError("reset", err)
	}
	if s.Last.Session == "" {
		s.Last, s.token = prev, token
		return sim.Turn{}, errors.New("ui: the server opened no session")
	}
	s.token, s.probe = s.Last.Session, nil
	return s.turn()
}

// ResumeSealed resumes the session of token (kept by the page) and
// returns it with the observation on screen. Its Last.Resumed is set.
func ResumeSealed(fetch Fetch, token string) (*Sealed, StepResponse, error) {
	s := &Sealed{fetch: fetch, token: token}
	if err := s.state("GET", "/api/session", nil); err != nil {
		return nil, StepResponse{}, err
	}
	s.Last.Resumed = true
	t, err := s.turn()
	if err != nil {
		return nil, StepResponse{}, err
	}
	r, err := Shown(s, t)
	return s, r, err
}

// Token is the session's token: the page keeps it to resume the session.
func (s *Sealed) Token() string { return s.token }

// call sends a request and decodes a success into out.
func (s *Sealed) call(method, path string, body []byte, out any) error {
	status, resp, err := s.fetch(method, path, s.token, body)
	if err != nil {
		return fmt.Errorf("the server could not be reached: %w", err)
	}
	if status/100 != 2 {
		return &HTTPError{Status: status, Message: ServerError(status, resp)}
	}
	if err := json.Unmarshal(resp, out); err != nil {
		return fmt.Errorf("the server's answer could not be read: %w", err)
	}
	return nil
}

// state sends a request answered by the session's state and keeps it as
// Last (decoded afresh: fields an answer leaves out are not the last
// answer's), with the probe it shows.
func (s *Sealed) state(method, path string, body []byte) error {
	var st SessionState
	if err := s.call(method, path, body, &st); err != nil {
		return err
	}
	s.Last = st
	if st.Probe != nil {
		s.probe = &sim.Probe{Question: st.Probe.Question, Options: st.Probe.Options}
	}
	return nil
}

// turn is the last answer as the contract's turn; Wire is the
// observation as the server delivered it (its JSON and text).
func (s *Sealed) turn() (sim.Turn, error) {
	st := s.Last
	o, err := s.Observe(bg)
	if err != nil {
		return sim.Turn{}, err
	}
	wire, err := json.Marshal(struct {
		Observation json.RawMessage `json:"observation"`
		Text        string          `json:"text"`
	}{st.Observation, st.Text})
	if err != nil {
		return sim.Turn{}, err
	}
	return sim.Turn{Text: st.Text, Events: o.Events, Terminated: st.Terminated, Truncated: st.Truncated,
		DayOver: st.DayOver, Day: st.Day, Step: st.Step, Over: st.Over, Wire: wire}, nil
}

// Step sends the newcomer's action to the server.
func (s *Sealed) Step(_ context.Context, action string) (sim.Turn, error) {
	if s.token == "" {
		return sim.Turn{}, sim.ErrNoVisit
	}
	body, _ := json.Marshal(SessionStep{Action: action})
	if err := s.state("POST", "/api/session/step", body); err != nil {
		return sim.Turn{}, contractError("step", err)
	}
	return s.turn()
}

// Observe returns the observation of the server's latest answer.
func (s *Sealed) Observe(context.Context) (*Observation, error) {
	if s.token == "" && s.Last.Observation == nil {
		return nil, sim.ErrNoVisit
	}
	var o Observation
	if err := json.Unmarshal(s.Last.Observation, &o); err != nil {
		return nil, fmt.Errorf("the server's observation could not be read: %w", err)
	}
	return &o, nil
}

// DayEnded sums up day d, as the server said when the day ended.
func (s *Sealed) DayEnded(d int) (DaySummary, error) {
	e := s.Last.Ended
	if e == nil || e.Day != d {
		return DaySummary{Day: d}, fmt.Errorf("the server did not sum up the day %d: %+v", d, e)
	}
	return DaySummary{Day: e.Day, TaskDone: e.TaskDone, Sanctions: e.Sanctions}, nil
}

// Probe is the question after the visit, as the server showed it.
func (s *Sealed) Probe(context.Context) (*sim.Probe, error) {
	switch {
	case s.token == "" && s.Last.Stage == "":
		return nil, sim.ErrNoVisit
	case s.Last.Stage == SessionPlay:
		return nil, sim.ErrNotOver
	case s.probe == nil:
		return nil, sim.ErrNoProbe
	}
	p := *s.probe
	return &p, nil
}

// Answer sends the probe's answer (0-based) and the confidence.
func (s *Sealed) Answer(_ context.Context, k int, confidence *float64) (bool, error) {
	if s.token == "" {
		return false, sim.ErrNoVisit
	}
	body, _ := json.Marshal(SessionAnswer{Answer: k, Confidence: confidence})
	if err := s.state("POST", "/api/session/answer", body); err != nil {
		return false, contractError("answer", err)
	}
	r := s.Last.Result
	if r != nil && r.Held {
		return false, nil // the verdict waits for the teacher's reveal
	}
	if r == nil || r.ProbeCorrect == nil {
		return false, errors.New("ui: the server's answer says nothing of the probe")
	}
	return *r.ProbeCorrect, nil
}

// Held reports that the server holds the finished visit's result back
// until a teacher reveals the rule (SessionResult.Held): Record then has
// the scores only.
func (s *Sealed) Held() bool { return s.Last.Result != nil && s.Last.Result.Held }

// Record is the finished visit's record, as the server stored it; agent
// and client are the server's to say (a person's session is "human").
// While the result is held (Held) it is what the page may hold: agent,
// client and scores, nothing that names the visit.
func (s *Sealed) Record(_ context.Context, agent, client string) (Record, error) {
	if s.Last.Stage != SessionDone {
		return Record{}, sim.ErrNotOver
	}
	if r := s.Last.Result; r != nil && r.Held {
		return Record{Agent: agent, Client: client, Scores: r.Scores}, nil
	}
	if s.Last.Result == nil || s.Last.Result.Record == nil {
		return Record{}, errors.New("ui: the server keeps this visit's record")
	}
	return *s.Last.Result.Record, nil
}

// Refresh asks the server for the session's state again (a finished
// session's result, which a reveal may have released) and reports
// whether it changed from held to shown.
func (s *Sealed) Refresh() (released bool, err error) {
	held := s.Held()
	if err := s.state("GET", "/api/session", nil); err != nil {
		return false, err
	}
	return held && !s.Held(), nil
}

// Trail returns the actions taken and the events seen so far, to draw a
// resumed visit's feed again.
func (s *Sealed) Trail() (SessionTrail, error) {
	var t SessionTrail
	err := s.call("GET", "/api/session/trail", nil, &t)
	return t, err
}

// Close forgets the token: the session itself waits on the server.
func (s *Sealed) Close() error {
	s.token = ""
	return nil
}

// contractError gives the session API's refusal err of a call (reset,
// step or answer) the contract's error it stands for (SimError), keeping
// its message.
func contractError(call string, err error) error {
	var he *HTTPError
	if !errors.As(err, &he) {
		return err
	}
	is := SimError(call, he.Status, he.Message)
	if is == nil {
		return err
	}
	return &refusal{err: err, is: is}
}

// SimError mirrors api.SimError (TestSimErrorMirror): the error of
// sim.Env's contract that the session routes' refusal of a call ("reset",
// "step" or "answer": its status and message) stands for, or nil.
func SimError(call string, status int, message string) error {
	switch {
	case status == 400:
		switch {
		case call == "reset":
			return sim.ErrVisitID
		case call == "step":
			return sim.ErrAction
		case call == "answer" && strings.HasPrefix(message, "confidence"):
			return sim.ErrBadConfidence
		case call == "answer":
			return sim.ErrBadAnswer
		}
	case status == 409 && call == "step" && strings.HasPrefix(message, "the visit is over"):
		return sim.ErrVisitOver
	case status == 409 && call == "answer" && strings.HasPrefix(message, "the visit is not over"):
		return sim.ErrNotOver
	case status == 409 && call == "answer" && strings.HasPrefix(message, "this visit has no probe"):
		return sim.ErrNoProbe
	case status == 409 && call == "answer" && strings.HasPrefix(message, "the probe is answered already"):
		return sim.ErrAnswered
	}
	return nil
}

// refusal is a server's refusal that stands for an error of the contract.
type refusal struct{ err, is error }

func (r *refusal) Error() string   { return r.err.Error() }
func (r *refusal) Unwrap() []error { return []error{r.err, r.is} }
