package api

import (
	"encoding/json"

	"github.com/normgym/normgym/sim"
)

// Server-stepped sessions (serve/session): the client sends actions, the
// server steps the sim and answers with what the sim renders. A session
// is known to its client by an opaque token only; a sealed session's
// answers carry nothing derived from its visit (id, norm, condition)
// until the visit is over, and a private visit's never.

// Session stages.
const (
	// StagePlay: the visit goes on; send actions.
	StagePlay = "play"
	// StageProbe: the visit is over; answer the probe.
	StageProbe = "probe"
	// StageDone: the visit is over and answered (or has no probe); the
	// result is final.
	StageDone = "done"
)

// Session kinds.
const (
	// KindHuman is a person's sealed session (a participant pseudonym and
	// consent, a visit the server assigns): its run counts for the human
	// baseline.
	KindHuman = "human"
	// KindModel is a session of a client holding a submitter key: its run
	// is stored under the key's label.
	KindModel = "model"
	// KindPractice is anyone's session on a public visit: stepped like
	// the others, never stored as a run (the final record is returned).
	KindPractice = "practice"
)

// SessionRequest is the body of POST /api/sessions. Which fields apply
// depends on who asks:
//
//   - a person: Participant and Consent (and Room to play in a
//     classroom); the server assigns the visit and seals it;
//   - a client with a submitter key (Authorization: Bearer KEY): Visit,
//     or Suite with or without Seed (without: the next visit of the
//     suite the key has not played, sealed until it is over);
//   - anyone else (practice): Visit, or Suite and Seed.
//
// Asking again for the visit of an open session of the same owner
// resumes it (with a new token): a reload never restarts a visit.
type SessionRequest struct {
	Participant    string `json:"participant,omitempty"`
	Consent        bool   `json:"consent,omitempty"`
	ConsentVersion string `json:"consent_version,omitempty"`
	Room           string `json:"room,omitempty"`
	Visit          string `json:"visit,omitempty"`
	Suite          string `json:"suite,omitempty"`
	// Seed picks the visit of Suite at that index (modulo its size) of the
	// suite's stratified order (sim.Stratified, seed 0's), as OpenEnv's
	// reset reads a seed: seeds 0, 1, 2… go through every norm first.
	Seed *int `json:"seed,omitempty"`
	// Agent names a practice client for its own records (never stored).
	Agent string `json:"agent,omitempty"`
}

// SessionState is every answer of the session routes: where the visit
// stands, the current observation as the sim renders it (JSON and text)
// and, once the visit is over, the probe or the result.
type SessionState struct {
	// Session is the token (only in the answer of POST /api/sessions):
	// keep it, it is the session's only name.
	Session string `json:"session,omitempty"`
	Kind    string `json:"kind"`
	// Sealed sessions say nothing of their visit before it is over.
	Sealed bool   `json:"sealed"`
	Suite  string `json:"suite,omitempty"`
	// Visit is the visit id: for sessions that are not sealed, and for
	// sealed ones once they are done (never for a private suite).
	Visit string `json:"visit,omitempty"`
	Stage string `json:"stage"`
	// Resumed reports that POST /api/sessions found the session open.
	Resumed bool `json:"resumed,omitempty"`
	// Actions counts the actions taken so far.
	Actions int `json:"actions"`
	// Day (1-based) and Step (within the day) as the sim counts them.
	Day  int  `json:"day"`
	Step int  `json:"step"`
	Over bool `json:"over"`
	// Terminated, Truncated and DayOver describe the step just taken (in
	// answers to a step).
	Terminated bool `json:"terminated,omitempty"`
	Truncated  bool `json:"truncated,omitempty"`
	DayOver    bool `json:"day_over,omitempty"`
	// Ended sums up the day the step just ended (with DayOver, before the
	// last day): what the newcomer saw of it, for the screen between days.
	Ended *DayEnded `json:"ended,omitempty"`
	// Observation is sim.Observation as the sim encoded it; Text its text
	// form, rendered by the sim (the exact prompt of a model).
	Observation json.RawMessage `json:"observation"`
	Text        string          `json:"text"`
	// Probe is the question after the visit (stage probe).
	Probe *Probe `json:"probe,omitempty"`
	// Result is the outcome (stage done).
	Result *SessionResult `json:"result,omitempty"`
	// Expires is when the session expires if no action comes.
	Expires string `json:"expires,omitempty"`
}

// DayEnded sums up a day that ended: whether the day's task was done
// (the practice day's; the test day's ends the visit) and how many
// sanctions the newcomer received. Both are what the newcomer saw happen,
// so a sealed session may say them.
type DayEnded struct {
	Day       int  `json:"day"`
	TaskDone  bool `json:"task_done"`
	Sanctions int  `json:"sanctions"`
}

// Probe is the question put after the visit: which of four statements
// was the rule (answer with the 0-based index).
type Probe struct {
	Question string   `json:"question"`
	Options  []string `json:"options"`
}

// SessionResult is a finished session's outcome.
type SessionResult struct {
	Scores sim.Scores `json:"scores"`
	// ProbeCorrect is nil when there was no probe.
	ProbeCorrect *bool `json:"probe_correct,omitempty"`
	// Hash is the trajectory hash (not for a private suite).
	Hash string `json:"hash,omitempty"`
	// RunID is the stored run (human and key holders' sessions).
	RunID string `json:"run_id,omitempty"`
	// Provenance of the stored run ("server-stepped").
	Provenance string `json:"provenance,omitempty"`
	// Record is the whole record, for sessions whose visit may be
	// revealed (not a private suite's).
	Record *sim.Record `json:"record,omitempty"`
	// Held reports a result held back until the teacher reveals the rule
	// (a classroom where everyone plays the same visit): it has no
	// record, hash or probe verdict, and the state no visit, until then.
	Held bool `json:"held,omitempty"`
}

// SessionStep is the body of POST /api/session/step (the session named by
// its token in Authorization: Bearer).
type SessionStep struct {
	Action string `json:"action"`
	// Index is the number of actions taken before this one (the Actions
	// of the last answer), if the client sends it; clients that may send
	// a step again should. A step sent again with the index and action of
	// the last one taken (a retry after a lost answer) is taken once and
	// answered as it was the first time; any other index but the
	// session's count of actions is refused (409 conflict, with that
	// count in ErrorDetail.Actions), and nothing is taken.
	Index *int `json:"index,omitempty"`
}

// SessionAnswer is the body of POST /api/session/answer.
type SessionAnswer struct {
	Answer     int      `json:"answer"`
	Confidence *float64 `json:"confidence,omitempty"`
}

// SessionTrail is GET /api/session/trail: every action taken and
// every event the newcomer saw so far, so that a page that reloads can
// draw the visit's feed again.
type SessionTrail struct {
	Actions []string    `json:"actions"`
	Events  []sim.Event `json:"events"`
}

// Provenances of a stored run: how the server knows what the run says.
const (
	// ProvenanceServer: computed by the server itself (baselines).
	ProvenanceServer = "server"
	// ProvenanceStepped: the server stepped the sim for the client, which
	// sent only actions (a session).
	ProvenanceStepped = "server-stepped"
	// ProvenanceSelfReported: submitted as a record (POST /api/runs): the
	// trajectory was replayed, but who or what played it is the
	// submitter's word.
	ProvenanceSelfReported = "self-reported"
)
