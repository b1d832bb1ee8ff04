package api

import (
	"strings"
	"time"

	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/report"
)

// The server's other answers (see serve/server). Every error answer is an
// ErrorDetail, which a client may read as an Error.

// ErrorDetail is the body of every 4xx/5xx answer: Error plus the details
// some codes carry.
type ErrorDetail struct {
	Code    Code   `json:"code"`
	Message string `json:"error"`
	// Diffs names the fields where a submitted record disagrees with its
	// replay (CodeMismatch), e.g. "hash", "scores.joint".
	Diffs []string `json:"diffs,omitempty"`
	// SimSHA256 is the sim.wasm this server verifies with (CodeVersion).
	SimSHA256 string `json:"sim_sha256,omitempty"`
	// Actions is how many actions the session has taken, when a step's
	// index is not that count (CodeConflict): where to go on from.
	Actions *int `json:"actions,omitempty"`
}

// Consent is GET /api/consent: the text a participant agrees to before
// playing. Its Version is stored with every run.
type Consent struct {
	Version string `json:"version"`
	Text    string `json:"text"`
}

// Health is GET /healthz.
type Health struct {
	OK         bool   `json:"ok"`
	SimSHA256  string `json:"sim_sha256"`
	SimVersion string `json:"sim_version"`
	Catalog    string `json:"catalog_version"`
	Verify     string `json:"verify"`
}

// Assignment is GET /api/assign: whether a visit waits for a human
// participant.
type Assignment struct {
	Participant string `json:"participant"`
	Room        string `json:"room,omitempty"`
	// Visit is never given: the id names the norm (and, outside rooms,
	// a secret seed), so the visit is played sealed, through POST
	// /api/sessions, and Sealed is set. The field stays for old clients,
	// which read its absence as "play through a session".
	Visit string `json:"visit,omitempty"`
	Suite string `json:"suite,omitempty"`
	// Sealed reports that a visit waits, to be played through a session.
	Sealed bool `json:"sealed,omitempty"`
	// Done reports that the participant has played every norm on offer.
	Done bool `json:"done,omitempty"`
	// Played counts the norms the participant has met (runs and sessions).
	Played int `json:"played"`
}

// ParticipantHeader carries a participant's pseudonym on GET /api/runs:
// a pseudonym goes in a header or a body, never in a URL.
const ParticipantHeader = "NormGym-Participant"

// AssignRequest is the body of POST /api/assign: whose next visit, and in
// which room. A pseudonym goes in a body, never in a URL (request logs,
// proxies and histories keep URLs).
type AssignRequest struct {
	Participant string `json:"participant"`
	Room        string `json:"room,omitempty"`
}

// RunSummary is one stored run as its participant sees it.
type RunSummary struct {
	RunID      string    `json:"run_id"`
	CreatedAt  time.Time `json:"created_at"`
	Room       string    `json:"room,omitempty"`
	Visit      string    `json:"visit"`
	World      string    `json:"world"`
	Condition  string    `json:"condition"`
	Agent      string    `json:"agent"`
	Client     string    `json:"client"`
	Task       bool      `json:"task"`
	Compliance bool      `json:"compliance"`
	Joint      bool      `json:"joint"`
	// Violations per day (index 0 practice) and sanctions received.
	Violations []int `json:"violations"`
	Sanctions  int   `json:"sanctions"`
	// ProbeCorrect is nil when the run has no probe answer.
	ProbeCorrect *bool `json:"probe_correct,omitempty"`
	// Held reports a classroom run whose visit and probe verdict are held
	// back until the teacher reveals the rule (Visit and ProbeCorrect are
	// then empty).
	Held bool `json:"held,omitempty"`
}

// Runs is GET /api/runs (the pseudonym in ParticipantHeader).
type Runs struct {
	Participant string       `json:"participant"`
	Runs        []RunSummary `json:"runs"`
}

// LeaderboardEntry is one agent's line: humans aggregated as "human",
// models by model name, baselines by name.
type LeaderboardEntry struct {
	Client string `json:"client"`
	// Provenance of the row's runs: "server" (baselines the server
	// computed), "server-stepped" (sealed sessions; a submitter key's
	// model) or "self-reported" (submitted records).
	Provenance string `json:"provenance"`
	// Private is the row's joint success on the operator's private suite
	// (norms never published: the contamination-resistant column), when
	// it has runs there.
	Private *report.Rate `json:"private,omitempty"`
	// Sessions counts a server-stepped row's sealed sessions, when it has
	// any: every one opened counts, and an abandoned one is a visit
	// without success (Visits, Joint and Task include them).
	Sessions *SessionCounts `json:"sessions,omitempty"`
	// Coverage says how much of the suite the row played, when the store
	// counts it.
	Coverage *SuiteCoverage `json:"coverage,omitempty"`
	report.Summary
}

// SuiteCoverage is how much of a suite a leaderboard row played: its
// visits (finished runs and abandoned sealed sessions) beside the suite's,
// and the suite's cells (norm × condition, with its variant) its runs
// hold beside all of them. A row of a few visits, or of a few cells, says
// little about the suite however high its joint success.
type SuiteCoverage struct {
	Visits      int `json:"visits"`
	SuiteVisits int `json:"suite_visits"`
	Cells       int `json:"cells"`
	SuiteCells  int `json:"suite_cells"`
}

// SessionCounts are a row's sealed sessions: opened, finished (stored as
// a run), abandoned (left unfinished past their time) and open (still
// within it: not yet in the figures), by how many distinct participants.
type SessionCounts struct {
	Opened       int `json:"opened"`
	Finished     int `json:"finished"`
	Abandoned    int `json:"abandoned"`
	Open         int `json:"open"`
	Participants int `json:"participants"`
	// Completion is the share of decided sessions (finished or
	// abandoned) that were finished.
	Completion report.Rate `json:"completion"`
}

// Leaderboard is GET /api/leaderboard?suite=S.
type Leaderboard struct {
	Suite        string `json:"suite"`
	SuiteVersion string `json:"suite_version"`
	// SimSHA256 is the sim.wasm this server verifies with.
	SimSHA256 string             `json:"sim_sha256"`
	Agents    []LeaderboardEntry `json:"agents"`
	// Suites lists the suites with a leaderboard (the private one last).
	Suites []string `json:"suites,omitempty"`
	// PrivateSuite names the operator's private suite, whose joint
	// success each entry shows as Private ("" when there is none).
	PrivateSuite string `json:"private_suite,omitempty"`
	// MoreSelfReported counts the self-reported rows left out (the board
	// shows at most server.MaxSelfReportedRows, after the rows the server
	// vouches for).
	MoreSelfReported int `json:"more_self_reported,omitempty"`
}

// RoomRequest is the body of POST /api/rooms: a name for the teacher's own
// use and either a suite or a list of visit ids (default: the mini suite).
type RoomRequest struct {
	Name   string   `json:"name,omitempty"`
	Suite  string   `json:"suite,omitempty"`
	Visits []string `json:"visits,omitempty"`
	// SameVisit makes everyone in the room play the same visit, so that
	// the class can discuss one rule: the one visit given, or one drawn
	// at random from the visits given or from the suite's observe visits
	// (members break the rule and are sanctioned, so there is something
	// to see). Without it each student gets a visit of a different rule
	// where the set allows.
	SameVisit bool `json:"same_visit,omitempty"`
}

// RoomCreated answers POST /api/rooms. TeacherToken is shown once: the
// server keeps only its hash.
type RoomCreated struct {
	Code         string `json:"code"`
	TeacherToken string `json:"teacher_token"`
	Name         string `json:"name,omitempty"`
	Suite        string `json:"suite,omitempty"`
	Visits       int    `json:"visits"`
	// SameVisit reports that everyone plays the same visit (the room
	// holds one).
	SameVisit bool `json:"same_visit"`
	// JoinURL is the path students open.
	JoinURL string `json:"join_url"`
	// Expires is when the room stops taking students (its teacher can
	// still read its dashboard and export).
	Expires time.Time `json:"expires"`
}

// ProbeStats counts probe answers.
type ProbeStats struct {
	Answered int         `json:"answered"`
	Correct  report.Rate `json:"correct"`
	// Answers counts how often each option index was chosen.
	Answers []int `json:"answers"`
}

// ClassStats are a room's aggregates: nothing in them names a student.
type ClassStats struct {
	Participants int         `json:"participants"`
	Runs         int         `json:"runs"`
	Joint        report.Rate `json:"joint"`
	Task         report.Rate `json:"task"`
	Compliance   report.Rate `json:"compliance"`
	// ViolationsPerDay is the mean number of violations per run on each
	// day of a visit (index 0 practice).
	ViolationsPerDay []float64  `json:"violations_per_day"`
	Probe            ProbeStats `json:"probe"`
}

// Room is GET /api/rooms/CODE: public.
type Room struct {
	Code   string `json:"code"`
	Name   string `json:"name,omitempty"`
	Suite  string `json:"suite,omitempty"`
	Visits int    `json:"visits"`
	// SameVisit reports that everyone plays the same visit.
	SameVisit bool `json:"same_visit"`
	// Members counts the students who joined with a nickname.
	Members int `json:"members"`
	// Tutorial is the visit of the room's guided first minute: a visit
	// whose norm is in no visit of the room, and whose family is in none
	// where the room leaves one out, or a control visit (no norm) when
	// every norm is in the room. It is never a result: the page plays it
	// alone and sends nothing.
	Tutorial string `json:"tutorial,omitempty"`
	// Expires is when the room stops taking students.
	Expires time.Time  `json:"expires"`
	Stats   ClassStats `json:"stats"`
}

// StudentRow is one student on the teacher's dashboard, by the nickname
// chosen at join: never the pseudonym, which is the private key to the
// student's runs.
type StudentRow struct {
	// Nickname is "" for a participant who sent runs to the room without
	// joining it (a program, or a page from before nicknames).
	Nickname string `json:"nickname"`
	// Playing reports that the student holds a visit not yet sent.
	Playing          bool      `json:"playing"`
	Runs             int       `json:"runs"`
	Joint            int       `json:"joint"`
	Task             int       `json:"task"`
	Compliance       int       `json:"compliance"`
	ProbeAnswered    int       `json:"probe_answered"`
	ProbeCorrect     int       `json:"probe_correct"`
	ViolationsPerDay []float64 `json:"violations_per_day"`
	// Last is when the student's latest run was stored (zero: none yet).
	Last time.Time `json:"last,omitzero"`
}

// VisitProbe is how a room answered one visit's probe.
type VisitProbe struct {
	Visit string `json:"visit"`
	// Label names the visit for people (VisitLabel).
	Label    string   `json:"label"`
	Question string   `json:"question"`
	Options  []string `json:"options"`
	// Correct is the index of the rule among Options.
	Correct int `json:"correct"`
	// Answers counts how often each option was chosen.
	Answers []int `json:"answers"`
}

// Dashboard is GET /api/rooms/CODE/dashboard: for the teacher only.
type Dashboard struct {
	Room
	Students []StudentRow `json:"students"`
	Probes   []VisitProbe `json:"probes"`
}

// DataCard describes an export: what each field means, which versions
// produced the data and how much there is.
type DataCard struct {
	Name        string            `json:"name"`
	Description string            `json:"description"`
	Generated   time.Time         `json:"generated"`
	Fields      map[string]string `json:"fields"`
	Versions    DataVersions      `json:"versions"`
	Counts      DataCounts        `json:"counts"`
}

// DataVersions are the versions behind an export.
type DataVersions struct {
	// SimSHA256 is the sim.wasm the server verifies with; Sims lists every
	// sim.wasm hash in the data.
	SimSHA256 string `json:"sim_sha256"`
	// Verifier is how the server verifies now: "wasm" or "native" (each
	// run says how it was verified).
	Verifier string            `json:"verifier"`
	Sims     []string          `json:"sims"`
	Sim      string            `json:"sim_version"`
	Catalog  string            `json:"catalog_version"`
	Suites   map[string]string `json:"suites"`
	Consent  string            `json:"consent_version"`
}

// DataCounts are an export's counts.
type DataCounts struct {
	Runs         int            `json:"runs"`
	Participants int            `json:"participants"`
	ByClient     map[string]int `json:"by_client"`
	BySuite      map[string]int `json:"by_suite"`
	// ByVerifier counts runs by verifier ("" for runs stored before the
	// server recorded it).
	ByVerifier map[string]int `json:"by_verifier"`
	// ByProvenance counts runs by provenance.
	ByProvenance map[string]int `json:"by_provenance"`
	// Abandoned counts the sealed sessions left unfinished past their
	// time (the export's {"abandoned": …} lines, or rows of outcome
	// abandoned).
	Abandoned int `json:"abandoned_sessions"`
}

// ExportRun is one line of GET /api/export?format=jsonl after the data
// card line ({"data_card": {...}}).
type ExportRun struct {
	RunID          string `json:"run_id"`
	Date           string `json:"date"`
	Participant    string `json:"participant,omitempty"`
	Room           string `json:"room,omitempty"`
	ConsentVersion string `json:"consent_version"`
	// Verifier is how the server recomputed the record: "wasm" or
	// "native" (see the data card).
	Verifier string `json:"verifier"`
	// Provenance is "server", "server-stepped" or "self-reported" (see
	// the data card).
	Provenance string     `json:"provenance"`
	Record     sim.Record `json:"record"`
}

// ExportAbandoned is a sealed session left unfinished past its time: a
// line {"abandoned": {...}} of GET /api/export?format=jsonl after the
// runs. Every sealed session counts in the figures; an abandoned one is a
// visit without success. Its visit, revealed now that it cannot go on,
// replays from its actions (not kept here) on the server only.
type ExportAbandoned struct {
	Session        string `json:"session"`
	Date           string `json:"date"`
	Participant    string `json:"participant,omitempty"`
	ConsentVersion string `json:"consent_version,omitempty"`
	Kind           string `json:"kind"`
	Agent          string `json:"agent"`
	Suite          string `json:"suite"`
	SuiteVersion   string `json:"suite_version"`
	Visit          string `json:"visit"`
	World          string `json:"world"`
	Norm           string `json:"norm"`
	Family         string `json:"family"`
	Condition      string `json:"condition"`
	// Actions counts the actions taken before it was left.
	Actions int `json:"actions"`
}

// ValidParticipant reports whether p is a well-formed participant
// pseudonym: 8–64 characters of [A-Za-z0-9_-]. An email address (or a
// name with spaces) never is.
func ValidParticipant(p string) bool {
	if len(p) < 8 || len(p) > 64 {
		return false
	}
	for _, c := range p {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// RoomAlphabet is the alphabet of room codes: Crockford's base 32, the
// digits and the capital letters without I, L, O and U. Read back
// (NormalizeRoomCode), 'O' is '0' and 'I' and 'L' are '1', so that a code
// copied from a board by hand still works.
const RoomAlphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// RoomCodeLen is the number of symbols in a room code: 12 of 32, 60
// random bits, shown in three groups of four joined by '-'
// ("7K3M-Q9XD-2WFA", RoomCodeGroup).
const RoomCodeLen = 12

// RoomCodeGroup is the size of the groups a code is shown in.
const RoomCodeGroup = 4

// legacyRoomAlphabet and legacyRoomCodeLen are the codes issued before
// schema 4 (6 symbols, ~29 bits, guessable): NormalizeRoomCode still reads
// them so that a teacher can open such a room's dashboard, but they take
// no students (LegacyRoomCode) and none is issued any more.
const (
	legacyRoomAlphabet = "23456789ABCDEFGHJKMNPQRSTWXYZ"
	legacyRoomCodeLen  = 6
)

// NormalizeRoomCode returns the canonical form of a room code as a person
// may type it (any case, with or without the '-', spaces around groups,
// O for 0, I or L for 1) and whether it is well formed. The canonical
// form is what the server stores and shows: upper case, grouped.
func NormalizeRoomCode(s string) (string, bool) {
	if len(s) > 40 {
		return "", false
	}
	b := make([]byte, 0, RoomCodeLen)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '-' || c == ' ':
			continue
		case c >= 'a' && c <= 'z':
			c -= 'a' - 'A'
		}
		b = append(b, c)
	}
	if len(b) == legacyRoomCodeLen && allIn(b, legacyRoomAlphabet) {
		return string(b), true
	}
	for i, c := range b {
		switch c {
		case 'O':
			b[i] = '0'
		case 'I', 'L':
			b[i] = '1'
		}
	}
	if len(b) != RoomCodeLen || !allIn(b, RoomAlphabet) {
		return "", false
	}
	out := make([]byte, 0, RoomCodeLen+RoomCodeLen/RoomCodeGroup)
	for i, c := range b {
		if i > 0 && i%RoomCodeGroup == 0 {
			out = append(out, '-')
		}
		out = append(out, c)
	}
	return string(out), true
}

func allIn(b []byte, alphabet string) bool {
	for _, c := range b {
		if strings.IndexByte(alphabet, c) < 0 {
			return false
		}
	}
	return true
}

// LegacyRoomCode reports whether c (canonical) is a code of the old
// 6-symbol kind.
func LegacyRoomCode(c string) bool { return len(c) == legacyRoomCodeLen }

// ValidRoomCode reports whether c is a room code in canonical form.
func ValidRoomCode(c string) bool {
	n, ok := NormalizeRoomCode(c)
	return ok && n == c
}
