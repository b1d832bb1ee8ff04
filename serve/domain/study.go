package domain

import (
	"context"
	"time"

	"github.com/normgym/normgym/serve/api"
)

// StudyStorage keeps studies (issue 23). It is apart from Storage so that
// a store without studies still serves everything else; serve/store
// implements both, on SQLite and D1, and every write is one statement.
type StudyStorage interface {
	// CreateStudy stores a study; ErrExists if its code is taken.
	CreateStudy(ctx context.Context, st Study) error
	// Study returns the study with the code.
	Study(ctx context.Context, code string) (Study, error)
	// ChangeStudyRules records a change of the study's rules (numbered,
	// with the number of participants entered then) and makes them the
	// study's, in one statement.
	ChangeStudyRules(ctx context.Context, code string, rules []api.StudyRule, note string, at time.Time) error
	// StudyRuleChanges lists a study's rule changes, oldest first.
	StudyRuleChanges(ctx context.Context, code string) ([]api.StudyRuleChange, error)

	// EnterStudy stores a new participant unless one of the study has
	// its platform id (PIDHash): then it stores nothing and reports
	// false.
	EnterStudy(ctx context.Context, p StudyParticipant) (bool, error)
	// StudyParticipant returns the study's participant of a platform id.
	StudyParticipant(ctx context.Context, study, pidHash string) (StudyParticipant, error)
	// StudyParticipantByToken returns the participant of a study token.
	StudyParticipantByToken(ctx context.Context, tokenHash string) (StudyParticipant, error)
	// StudyConsent records the participant's consent unless it is
	// recorded; StudyCheck the comprehension check's answers unless
	// answered; StudyFinish the end (the completion code shown) unless
	// recorded. Each reports whether it wrote.
	StudyConsent(ctx context.Context, id, version string, at time.Time) (bool, error)
	StudyCheck(ctx context.Context, id string, answers []int, correct int, at time.Time) (bool, error)
	StudyFinish(ctx context.Context, id string, at time.Time) (bool, error)
	// SetStudyVerdicts stores the participant's verdicts under the rules
	// of change n (0: as declared).
	SetStudyVerdicts(ctx context.Context, id string, verdicts map[string]api.StudyVerdict, n int, excluded bool) error
	// StudyRows returns a study's participants with their sessions and
	// runs, in the order they entered.
	StudyRows(ctx context.Context, code string) ([]StudyRow, error)
	// TimedActions returns a session's stored actions with their times.
	TimedActions(ctx context.Context, sessionID string) ([]TimedAction, error)
	// SuiteOutcomes counts the public runs (no room, no study) of a suite
	// version by norm, condition (with its variant), client, agent and
	// provenance, and the public sealed sessions of people left
	// unfinished since before abandonedBefore (client "human", provenance
	// server-stepped, Abandoned).
	SuiteOutcomes(ctx context.Context, suite, version string, abandonedBefore time.Time) ([]CellOutcome, error)
}

// Study is a study as stored. Design holds the rules as declared; Rules
// are the rules in force, set by change RulesN (0: as declared).
type Study struct {
	Code   string
	Name   string
	Design api.StudyDesign
	Rules  []api.StudyRule
	RulesN int
	// Salt keys the HMAC of platform ids (hex); never shown after
	// creation, never exported.
	Salt        string
	TokenSHA256 string
	// Creator is the study key's label, or "admin".
	Creator   string
	CreatedAt time.Time
}

// StudyParticipant is one platform id's entry in a study. Zero times
// mean "not yet".
type StudyParticipant struct {
	ID    string
	Study string
	// PIDHash is HMAC-SHA256(study salt, platform id) in hex; IDs the
	// link's other platform ids, alike.
	PIDHash     string
	IDs         map[string]string
	TokenSHA256 string
	// Pseudonym owns the participant's sealed session and run.
	Pseudonym string
	// Cell and Visit are what the quota assigned at entry (the visit
	// under a secret seed).
	Cell           string
	Visit          string
	EnteredAt      time.Time
	ConsentedAt    time.Time
	ConsentVersion string
	// CheckAnswers are the comprehension check's answers (nil: not
	// answered), CheckCorrect how many were right (-1: not answered).
	CheckAnswers []int
	CheckCorrect int
	CheckedAt    time.Time
	FinishedAt   time.Time
	// Verdicts are the rules' verdicts (nil: not decided yet), decided
	// under the rules of change VerdictsN.
	Verdicts  map[string]api.StudyVerdict
	VerdictsN int
	Excluded  bool
}

// StudyRow is a participant with its sealed session (nil before it was
// opened) and run (nil until the visit is played).
type StudyRow struct {
	StudyParticipant
	Session *Session
	Run     *RunOutcome
}

// RunOutcome is a stored run's outcome, as a study reads it.
type RunOutcome struct {
	RunID                   string
	CreatedAt               time.Time
	Task, Compliance, Joint bool
	// ProbeCorrect is nil for a visit without a probe (control).
	ProbeCorrect *bool
}

// TimedAction is a stored session action with the time it came.
type TimedAction struct {
	Action string
	At     time.Time
}

// CellOutcome counts a suite version's public runs of one norm ×
// condition by client, agent and provenance; Abandoned counts the public
// sealed sessions of people left unfinished (a visit without success).
type CellOutcome struct {
	Norm, Family, Condition   string
	Client, Agent, Provenance string
	Runs, Joint, Abandoned    int
}
