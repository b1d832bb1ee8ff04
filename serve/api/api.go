// Package api holds the JSON types the NormGym server speaks, shared by the
// server, the command-line clients (run/eval --submit) and tests. It has no
// logic beyond validation helpers.
package api

import (
	"fmt"

	"github.com/normgym/normgym/sim"
)

// Submission is the body of POST /api/runs: one finished visit.
type Submission struct {
	// RunID is the client's idempotency key: 16–64 characters of
	// [A-Za-z0-9_-], random per run. Submitting the same RunID twice
	// stores one run.
	RunID string `json:"run_id"`
	// Participant is a random pseudonym (no names, emails or IPs).
	Participant string `json:"participant,omitempty"`
	// Consent must be true: the submitter agrees to the consent text of
	// ConsentVersion (the server's current one).
	Consent        bool   `json:"consent"`
	ConsentVersion string `json:"consent_version,omitempty"`
	// Room is a classroom join code, if the run was played in one.
	Room string `json:"room,omitempty"`
	// Record is the visit in the shared result format. The server replays
	// its actions and stores only what it recomputed.
	Record sim.Record `json:"record"`
}

// SubmitResponse is the answer to an accepted submission.
type SubmitResponse struct {
	RunID string `json:"run_id"`
	// Duplicate reports that this RunID was already stored (nothing new).
	Duplicate bool `json:"duplicate"`
	// Record is the verified record as stored.
	Record sim.Record `json:"record"`
}

// Error is the body of every 4xx/5xx answer.
type Error struct {
	// Code is a stable machine-readable code (see Code).
	Code    Code   `json:"code"`
	Message string `json:"error"`
}

// Error implements error.
func (e *Error) Error() string { return fmt.Sprintf("%s: %s", e.Code, e.Message) }

// ValidRunID reports whether id is a well-formed run id.
func ValidRunID(id string) bool {
	if len(id) < 16 || len(id) > 64 {
		return false
	}
	for _, c := range id {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}
