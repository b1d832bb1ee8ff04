package api

// The classroom's answers beyond the room itself (server_types.go): a
// student joining with a nickname, and the teacher's reveal for a class
// discussion.

// JoinRequest is the body of POST /api/rooms/CODE/join: a student takes
// a nickname in the room (web/nickname says which). Participant is
// the student's random pseudonym, which stays the private key to its runs:
// the room shows the nickname instead. Joining again with another
// nickname changes it.
type JoinRequest struct {
	Participant string `json:"participant"`
	Nickname    string `json:"nickname"`
}

// Joined answers a JoinRequest: the nickname as the room keeps and shows
// it ("12" becomes "Seat 12").
type Joined struct {
	Room     string `json:"room"`
	Nickname string `json:"nickname"`
}

// Reveal is GET /api/rooms/CODE/reveal, for the teacher only: each
// visit's rule and how the class did on it, for a discussion after
// playing. Nothing in it names a student.
type Reveal struct {
	Code string `json:"code"`
	Name string `json:"name,omitempty"`
	// SameVisit reports that everyone plays the same visit.
	SameVisit bool `json:"same_visit"`
	// Members counts the students who joined; Playing those who hold a
	// visit not yet sent (revealing the rule now would tell them).
	Members int `json:"members"`
	Playing int `json:"playing"`
	// Visits are the visits played in the room, most played first; a
	// same-visit room lists its visit even before anyone has sent it.
	Visits []VisitReveal `json:"visits"`
}

// VisitReveal is one visit's rule and the class's results on it.
type VisitReveal struct {
	Visit string `json:"visit"`
	// Label names the visit for people: its world, what the newcomer
	// could learn from, and its seed.
	Label     string `json:"label"`
	World     string `json:"world"`
	Condition string `json:"condition"`
	// Norm is the norm's id and Rule its statement; both "" under
	// control, which has no rule.
	Norm   string `json:"norm,omitempty"`
	Family string `json:"family,omitempty"`
	Rule   string `json:"rule,omitempty"`
	// Students counts the students who sent a run of the visit; Runs the
	// runs.
	Students int `json:"students"`
	Runs     int `json:"runs"`
	// Task, Compliance and Joint count the runs with the test-day task
	// done, no violation on the test day, and both.
	Task       int `json:"task"`
	Compliance int `json:"compliance"`
	Joint      int `json:"joint"`
	// Violations and Sanctions sum the students' violations and the
	// sanctions they received, per day (index 0 practice).
	Violations []int `json:"violations"`
	Sanctions  []int `json:"sanctions"`
	// Sanctioned counts what the students had just done when they were
	// sanctioned ("walked north onto red stone, plaza"), most often
	// first, at most ten lines.
	Sanctioned []SanctionCount `json:"sanctioned"`
	// Probe is how the class answered the probe (nil under control).
	Probe *VisitProbe `json:"probe,omitempty"`
}

// SanctionCount is how often the students were sanctioned for one act.
type SanctionCount struct {
	Did string `json:"did"`
	N   int    `json:"n"`
}
