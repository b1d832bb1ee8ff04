package session

import (
	"fmt"

	"github.com/normgym/normgym/serve/api"
)

// Error is the package's error for clients: an api.Code (invalid,
// not_found, gone, conflict or internal; its Status is the HTTP status
// serve/server answers with) and a message that never names a sealed
// visit.
type Error struct {
	Code    api.Code
	Message string
	// Actions is how many actions the session has taken, when a step's
	// index did not match it (a conflict).
	Actions *int
	// Err is the internal cause (logged, never shown).
	Err error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return "session: " + string(e.Code) + ": " + e.Message + ": " + e.Err.Error()
	}
	return "session: " + string(e.Code) + ": " + e.Message
}

func (e *Error) Unwrap() error { return e.Err }

func errf(code api.Code, format string, a ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, a...)}
}

func internal(msg string, err error) *Error {
	return &Error{Code: api.CodeInternal, Message: msg, Err: err}
}
