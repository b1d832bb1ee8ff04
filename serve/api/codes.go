package api

import "net/http"

// Code is the stable, machine-readable code of an error answer: the
// "code" field of Error and ErrorDetail, a plain JSON string. The server
// (serve/server), its sessions (serve/session) and its Workers build
// (serve/worker) answer only with the codes below, each with the HTTP
// status Status gives; a client decides what to do by the code, and shows
// the message.
type Code string

// The codes, with their HTTP status.
const (
	// CodeInvalid (400): the request is malformed: not JSON, a field
	// missing or out of range, an unknown visit, suite or participant.
	CodeInvalid Code = "invalid"
	// CodeConsent (400): the participant has not agreed to the current
	// consent text (GET /api/consent).
	CodeConsent Code = "consent"
	// CodeUnauthorized (401): a key or token is needed and none, or an
	// unknown one, was sent.
	CodeUnauthorized Code = "unauthorized"
	// CodeForbidden (403): the key or token sent does not allow this.
	CodeForbidden Code = "forbidden"
	// CodeNotFound (404): no such run, room, session or route.
	CodeNotFound Code = "not_found"
	// CodeMethod (405): the route does not take this HTTP method.
	CodeMethod Code = "method"
	// CodeConflict (409): the request clashes with what is stored: a run
	// id taken by another submission, a nickname taken in the room, a
	// full room, a norm its participant has met already.
	CodeConflict Code = "conflict"
	// CodeVersion (409): the record was made by another sim.wasm, sim,
	// catalog or suite version than this server's; ErrorDetail.SimSHA256
	// names the server's sim.wasm.
	CodeVersion Code = "version"
	// CodeGone (410): the thing existed and is no more: a closed or
	// retired room, an expired session, every visit played.
	CodeGone Code = "gone"
	// CodeTooLarge (413): the body is over the route's limit.
	CodeTooLarge Code = "too_large"
	// CodeMismatch (422): the submitted record disagrees with its replay;
	// ErrorDetail.Diffs names the fields.
	CodeMismatch Code = "mismatch"
	// CodeUpgrade (426): the route is a WebSocket and the request is not
	// an upgrade.
	CodeUpgrade Code = "upgrade"
	// CodeRateLimited (429): too many requests of this kind from the
	// address; the answer has a Retry-After header.
	CodeRateLimited Code = "rate_limited"
	// CodeInternal (500): the server failed; the cause is logged, never
	// shown. An unknown code counts as internal.
	CodeInternal Code = "internal"
	// CodeNotImplemented (501): this build of the server does not offer
	// the route (the Workers build has no WebSocket sessions).
	CodeNotImplemented Code = "not_implemented"
	// CodeUnavailable (503): the server does not offer this now (a server
	// that steps no sessions, a Worker that failed to start).
	CodeUnavailable Code = "unavailable"
	// CodeBusy (503): the server is verifying too many runs at once; the
	// answer has a Retry-After header.
	CodeBusy Code = "busy"
	// CodeTimeout (503): the work took longer than its limit, or the
	// request ended before it was done; the answer has a Retry-After
	// header.
	CodeTimeout Code = "timeout"
)

// statuses maps every code to its HTTP status: the one table.
var statuses = map[Code]int{
	CodeInvalid:        http.StatusBadRequest,
	CodeConsent:        http.StatusBadRequest,
	CodeUnauthorized:   http.StatusUnauthorized,
	CodeForbidden:      http.StatusForbidden,
	CodeNotFound:       http.StatusNotFound,
	CodeMethod:         http.StatusMethodNotAllowed,
	CodeConflict:       http.StatusConflict,
	CodeVersion:        http.StatusConflict,
	CodeGone:           http.StatusGone,
	CodeTooLarge:       http.StatusRequestEntityTooLarge,
	CodeMismatch:       http.StatusUnprocessableEntity,
	CodeUpgrade:        http.StatusUpgradeRequired,
	CodeRateLimited:    http.StatusTooManyRequests,
	CodeInternal:       http.StatusInternalServerError,
	CodeNotImplemented: http.StatusNotImplemented,
	CodeUnavailable:    http.StatusServiceUnavailable,
	CodeBusy:           http.StatusServiceUnavailable,
	CodeTimeout:        http.StatusServiceUnavailable,
}

// Status returns the HTTP status of c: 500 for a code not listed above.
func (c Code) Status() int {
	if st, ok := statuses[c]; ok {
		return st
	}
	return http.StatusInternalServerError
}

// Known reports whether c is one of the codes listed above.
func (c Code) Known() bool {
	_, ok := statuses[c]
	return ok
}
