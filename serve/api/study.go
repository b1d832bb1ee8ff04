package api

import (
	"time"

	"github.com/normgym/normgym/sim/report"
)

// Studies (issue 23): a human baseline a paper can publish. A researcher
// (an operator with the admin token, or the holder of a study key) creates
// a study: a design of cells (norms × conditions, or families ×
// conditions) with a target number of participants per cell, a consent
// text, a recruiting platform, a completion code or redirect, a time
// limit and exclusion rules declared before any data is seen. Its link
// (/s/CODE?…the platform's parameters…) takes a participant through
// consent, a comprehension check after a short tutorial visit, the sealed
// visit the study's quota assigns, the probe and a debrief to the
// completion code. Every answer below is JSON; the participant's routes
// take the study token (Bearer stp_…) the entry answered with, the
// researcher's the study's researcher token (Bearer ngr_…) or the admin
// token. See serve/server/RATIONALE.md ("Studies").

// Study cell designs (StudyDesign.Cells).
const (
	// StudyCellsNorms: one cell per norm × condition.
	StudyCellsNorms = "norms"
	// StudyCellsFamilies: one cell per norm family × condition; within a
	// cell the norms of the family are filled evenly.
	StudyCellsFamilies = "families"
)

// Recruiting platforms (StudyDesign.Platform).
const (
	PlatformProlific = "prolific"
	PlatformMTurk    = "mturk"
	PlatformSONA     = "sona"
	// PlatformNone: no platform; each browser is a participant and no
	// second attempt can be told from a first.
	PlatformNone = "none"
)

// PlatformParams lists the URL parameters a study link takes from each
// platform, the participant's own id first (the one a second attempt is
// refused by); nil for an unknown platform or none. Prolific appends
// PROLIFIC_PID, STUDY_ID and SESSION_ID; MTurk's external question
// workerId, assignmentId and hitId; SONA's study URL carries the survey
// code in the parameter the researcher chose (id=%SURVEY_CODE% by
// convention).
func PlatformParams(platform string) []string {
	switch platform {
	case PlatformProlific:
		return []string{"PROLIFIC_PID", "STUDY_ID", "SESSION_ID"}
	case PlatformMTurk:
		return []string{"workerId", "assignmentId", "hitId"}
	case PlatformSONA:
		return []string{"id"}
	}
	return nil
}

// Exclusion rule kinds (StudyRule.Kind). Each is decided per participant
// once the visit is played (StudyVerdict).
const (
	// RuleComprehension excludes a participant with fewer than Value
	// correct answers in the comprehension check (0: all of them).
	RuleComprehension = "comprehension"
	// RuleMinActions excludes a visit of fewer than Value actions that
	// are not waits (an all-wait visit has none).
	RuleMinActions = "min_actions"
	// RuleMaxIdle excludes a visit with more than Value minutes between
	// two actions (or between opening the visit and its first action).
	RuleMaxIdle = "max_idle_minutes"
	// RuleMaxRepeat excludes a visit where one action that is not a wait
	// was sent more than Value times in a row (keys mashed or held).
	RuleMaxRepeat = "max_repeat"
)

// RuleKinds lists the exclusion rule kinds.
func RuleKinds() []string {
	return []string{RuleComprehension, RuleMinActions, RuleMaxIdle, RuleMaxRepeat}
}

// StudyRule is one exclusion rule declared for a study.
type StudyRule struct {
	// Name names the rule in the dashboard and the export (a column
	// "rule:NAME"): 1 to 40 letters, digits, '_' or '-', unique.
	Name  string  `json:"name"`
	Kind  string  `json:"kind"`
	Value float64 `json:"value"`
}

// StudyDesign is what a researcher declares when creating a study (POST
// /api/studies). Every field is checked; a bad one is refused with its
// reason and nothing is stored.
type StudyDesign struct {
	Name string `json:"name"`
	// Suite is the public suite whose visits the cells are drawn from
	// (default standard); each visit is played under a secret seed.
	Suite string `json:"suite,omitempty"`
	// Cells is StudyCellsNorms or StudyCellsFamilies; Norms or Families
	// lists them, Conditions the conditions ("observe", "solo", …;
	// "control" adds one cell of control visits, which have no norm).
	Cells      string   `json:"cells"`
	Norms      []string `json:"norms,omitempty"`
	Families   []string `json:"families,omitempty"`
	Conditions []string `json:"conditions"`
	// Target is the number of completed, non-excluded participants each
	// cell needs; the study closes when every cell has it.
	Target int `json:"target"`
	// ConsentVersion names the consent text (the version an ethics board
	// approved); it is stored with every run of the study.
	ConsentVersion string `json:"consent_version"`
	ConsentText    string `json:"consent_text"`
	Platform       string `json:"platform"`
	// IDParam overrides the URL parameter that carries the participant's
	// id (SONA: whatever the study URL names; default "id").
	IDParam string `json:"id_param,omitempty"`
	// CompletionCode is shown at the end and put in RedirectURL where it
	// says {code}; RedirectURL (https) is where the page goes at the end
	// ({id} is the participant's platform id, filled in by the page, for
	// SONA's credit URL). At least one of them is required unless the
	// platform is none.
	CompletionCode string `json:"completion_code,omitempty"`
	RedirectURL    string `json:"redirect_url,omitempty"`
	// TimeLimitMinutes is how long a participant has from entering to
	// finishing the visit; after it the place is released.
	TimeLimitMinutes int         `json:"time_limit_minutes"`
	Rules            []StudyRule `json:"rules"`
	PaymentNote      string      `json:"payment_note,omitempty"`
	// Debrief is shown after the probe, with the visit's rule.
	Debrief string `json:"debrief,omitempty"`
}

// StudyCreated answers POST /api/studies.
type StudyCreated struct {
	Code string `json:"code"`
	// Link is the study link to give the platform, with the platform's
	// placeholders ("/s/CODE?PROLIFIC_PID={{%PROLIFIC_PID%}}…"): prefix
	// it with the site's origin.
	Link string `json:"link"`
	// Token is the researcher token (shown once; the server keeps its
	// hash): it opens the dashboard and the export and changes the rules.
	Token string `json:"token"`
	// Salt is the study's salt (shown once, never exported): the export
	// holds each platform id as HMAC-SHA256(salt, id), so that only the
	// researcher can match its rows to the platform's.
	Salt  string      `json:"salt"`
	Cells []string    `json:"cells"`
	Study StudyDesign `json:"study"`
}

// Study statuses (StudyPublic.Status).
const (
	// StudyOpen: places are free.
	StudyOpen = "open"
	// StudyBusy: every place left is held by a participant within the
	// time limit; one frees up if they leave.
	StudyBusy = "busy"
	// StudyFull: every cell has its target: the study is closed.
	StudyFull = "full"
)

// StudyPublic is GET /api/study/CODE: what a participant's page shows
// before entering. It names no cell, norm or condition.
type StudyPublic struct {
	Code             string `json:"code"`
	Name             string `json:"name"`
	Status           string `json:"status"`
	Platform         string `json:"platform"`
	IDParam          string `json:"id_param,omitempty"`
	ConsentVersion   string `json:"consent_version"`
	ConsentText      string `json:"consent_text"`
	TimeLimitMinutes int    `json:"time_limit_minutes"`
	PaymentNote      string `json:"payment_note,omitempty"`
	// RedirectNeedsID reports that the redirect carries the platform id
	// ({id}): the page keeps it until the end.
	RedirectNeedsID bool `json:"redirect_needs_id,omitempty"`
}

// StudyEnter is the body of POST /api/study/CODE/enter: the link's URL
// parameters as the page read them (only the platform's are kept, hashed).
// With the study token of an earlier entry (Authorization) and the same
// platform id, it resumes that entry.
type StudyEnter struct {
	Params map[string]string `json:"params"`
}

// Participant stages (StudyState.Stage), in order.
const (
	StudyStageConsent = "consent"
	StudyStageCheck   = "check"
	StudyStagePlay    = "play"
	StudyStageDebrief = "debrief"
	StudyStageDone    = "done"
	// StudyStageExpired: the time limit passed before the visit was
	// played; the place was released.
	StudyStageExpired = "expired"
)

// StudyState is every answer of a participant's routes: where the
// participant stands and what the page shows there.
type StudyState struct {
	Code  string `json:"code"`
	Name  string `json:"name"`
	Stage string `json:"stage"`
	// Token is the study token (only in the answer of the entry): the
	// page keeps it; it alone resumes the participant.
	Token   string `json:"token,omitempty"`
	Resumed bool   `json:"resumed,omitempty"`
	// ConsentVersion and ConsentText at stage consent.
	ConsentVersion string `json:"consent_version,omitempty"`
	ConsentText    string `json:"consent_text,omitempty"`
	// Tutorial is a public visit to practise on before the questions
	// (stage check): its norm is none of the study's.
	Tutorial  string          `json:"tutorial,omitempty"`
	Questions []StudyQuestion `json:"questions,omitempty"`
	// Check is the comprehension check's outcome, once answered.
	Check *StudyCheckResult `json:"check,omitempty"`
	// Expires is when the time limit ends (RFC 3339), until the visit is
	// played.
	Expires string `json:"expires,omitempty"`
	// Debrief at stages debrief and done.
	Debrief string `json:"debrief,omitempty"`
	// CompletionCode and RedirectURL at stage done ({code} filled in;
	// {id} left for the page).
	CompletionCode string `json:"completion_code,omitempty"`
	RedirectURL    string `json:"redirect_url,omitempty"`
	Platform       string `json:"platform,omitempty"`
	// Message says why, at stage expired.
	Message string `json:"message,omitempty"`
}

// StudyQuestion is a question of the comprehension check.
type StudyQuestion struct {
	Question string   `json:"question"`
	Options  []string `json:"options"`
}

// StudyConsent is the body of POST /api/study/CODE/consent.
type StudyConsent struct {
	Consent        bool   `json:"consent"`
	ConsentVersion string `json:"consent_version"`
}

// StudyCheck is the body of POST /api/study/CODE/check: the chosen
// option (0-based) of each question, in order.
type StudyCheck struct {
	Answers []int `json:"answers"`
}

// StudyCheckResult is how the comprehension check went. The answers are
// kept as given (one try): the declared rules decide what a failed
// check means; the page shows the right answers before the visit.
type StudyCheckResult struct {
	Correct int  `json:"correct"`
	Of      int  `json:"of"`
	Passed  bool `json:"passed"`
	// Right is the right option of each question.
	Right []int `json:"right"`
}

// StudyRulesUpdate is the body of PUT /api/study/CODE/rules: the new rule
// set and why. A change after the first participant entered is recorded
// in the data card with its time and the number of participants then.
type StudyRulesUpdate struct {
	Rules []StudyRule `json:"rules"`
	Note  string      `json:"note"`
}

// StudyRuleChange is one recorded change of a study's rules.
type StudyRuleChange struct {
	At    time.Time   `json:"at"`
	Rules []StudyRule `json:"rules"`
	Note  string      `json:"note"`
	// Participants had entered when the change was made; AfterStart is
	// Participants > 0.
	Participants int  `json:"participants"`
	AfterStart   bool `json:"after_start"`
}

// StudyDashboard is GET /api/study/CODE/dashboard (researcher).
type StudyDashboard struct {
	Code   string      `json:"code"`
	Status string      `json:"status"`
	Design StudyDesign `json:"design"`
	// Creator is the study key's label, or "admin".
	Creator   string    `json:"creator"`
	CreatedAt time.Time `json:"created_at"`
	// Totals sum the cells.
	Totals StudyCellStats   `json:"totals"`
	Cells  []StudyCellStats `json:"cells"`
	// Changes are the rule changes, oldest first.
	Changes []StudyRuleChange `json:"changes"`
	// PublicRow says what the study's runs are to the leaderboard.
	PublicRow string `json:"public_row"`
}

// StudyCellStats are one cell's figures (or the study's, in Totals).
type StudyCellStats struct {
	Cell      string `json:"cell"`
	Norm      string `json:"norm,omitempty"`
	Family    string `json:"family,omitempty"`
	Condition string `json:"condition,omitempty"`
	Target    int    `json:"target"`
	// N counts completed, non-excluded participants: what the quota
	// counts. Full is N ≥ Target.
	N    int  `json:"n"`
	Full bool `json:"full"`
	// Entered were assigned the cell; InProgress are within their time
	// limit and have not played; Abandoned passed it without playing;
	// Completed played the visit (and answered the probe); Excluded are
	// completed participants a declared rule excludes.
	Entered    int `json:"entered"`
	InProgress int `json:"in_progress"`
	Abandoned  int `json:"abandoned"`
	Completed  int `json:"completed"`
	Excluded   int `json:"excluded"`
	// Completion is Completed of Entered less InProgress; Exclusion is
	// Excluded of Completed; Reasons counts the exclusions by rule name.
	Completion report.Rate    `json:"completion"`
	Exclusion  report.Rate    `json:"exclusion"`
	Reasons    map[string]int `json:"reasons"`
	Median     float64        `json:"median_minutes"`
	Joint      report.Rate    `json:"joint"`
	Task       report.Rate    `json:"task"`
	Compliance report.Rate    `json:"compliance"`
	Probe      report.Rate    `json:"probe"`
	Compare    []StudyCompare `json:"compare,omitempty"`
}

// StudyCompare is another row's joint success on the same cell: the
// baselines on the very visits the study's participants played (Source
// "same visits"), and the public human row and the models on the cell's
// visits of the suite (Source "suite").
type StudyCompare struct {
	Client     string      `json:"client"`
	Agent      string      `json:"agent"`
	Provenance string      `json:"provenance"`
	Source     string      `json:"source"`
	Joint      report.Rate `json:"joint"`
}

// StudyDataCard heads a study's export.
type StudyDataCard struct {
	Name        string    `json:"name"`
	Code        string    `json:"code"`
	Description string    `json:"description"`
	Generated   time.Time `json:"generated"`
	Platform    string    `json:"platform"`
	// ConsentVersion is the study's consent text's version.
	ConsentVersion string    `json:"consent_version"`
	Created        time.Time `json:"created"`
	// FirstEntry and LastEntry bound the participants' entries (nil:
	// none yet).
	FirstEntry *time.Time  `json:"first_entry,omitempty"`
	LastEntry  *time.Time  `json:"last_entry,omitempty"`
	Design     StudyDesign `json:"design"`
	// RulesDeclared are the rules when the study was created;
	// RulesAtStart the rules when its first participant entered (the
	// declared ones and any change made before); Rules the current ones,
	// which the verdicts apply. Changes lists every change.
	RulesDeclared []StudyRule       `json:"rules_declared"`
	RulesAtStart  []StudyRule       `json:"rules_at_start"`
	Rules         []StudyRule       `json:"rules"`
	Changes       []StudyRuleChange `json:"changes"`
	Counts        map[string]int    `json:"counts"`
	Fields        map[string]string `json:"fields"`
	Versions      map[string]string `json:"versions"`
	PublicRow     string            `json:"public_row"`
}

// StudyVerdict is one exclusion rule's verdict on one participant: what
// the rule measures (correct answers, actions that are not waits, the
// longest idle minutes, the longest run of one action) and whether it
// excludes.
type StudyVerdict struct {
	Measured float64 `json:"measured"`
	Exclude  bool    `json:"exclude"`
}

// StudyExportRow is one participant in a study's JSONL export (the CSV
// has the same fields as columns, each rule's verdict as "rule:NAME").
type StudyExportRow struct {
	// Participant is HMAC-SHA256(salt, platform id); IDs the other
	// platform ids alike. Pseudonym owns the participant's run in the
	// server's research export.
	Participant string            `json:"participant"`
	IDs         map[string]string `json:"ids,omitempty"`
	Pseudonym   string            `json:"pseudonym"`
	Cell        string            `json:"cell"`
	Condition   string            `json:"condition"`
	Norm        string            `json:"norm"`
	Family      string            `json:"family"`
	Visit       string            `json:"visit,omitempty"`
	// Outcome: completed, in_progress, abandoned (the time limit passed
	// before the visit was played).
	Outcome      string                  `json:"outcome"`
	Entered      time.Time               `json:"entered"`
	Consented    *time.Time              `json:"consented,omitempty"`
	Finished     *time.Time              `json:"finished,omitempty"`
	Minutes      float64                 `json:"minutes"`
	CheckCorrect int                     `json:"check_correct"`
	CheckAnswers []int                   `json:"check_answers"`
	Actions      int                     `json:"actions"`
	Verdicts     map[string]StudyVerdict `json:"verdicts"`
	Excluded     bool                    `json:"excluded"`
	Reasons      []string                `json:"reasons"`
	// ExcludedAtStart applies the rules in force when the first
	// participant entered (the data card's rules_at_start).
	ExcludedAtStart bool   `json:"excluded_at_start"`
	RunID           string `json:"run_id,omitempty"`
	Task            *bool  `json:"task,omitempty"`
	Compliance      *bool  `json:"compliance,omitempty"`
	Joint           *bool  `json:"joint,omitempty"`
	ProbeCorrect    *bool  `json:"probe_correct,omitempty"`
}
