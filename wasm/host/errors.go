package host

import "errors"

// ErrInstanceLost is wrapped by the error of a call whose instance trapped
// or was stopped by its context, and of later calls on visits it held.
var ErrInstanceLost = errors.New("host: module instance lost")

// ErrClosed is returned by calls on a closed Runtime.
var ErrClosed = errors.New("host: runtime closed")

// Error is an error value returned by the module: a bad request, an
// unknown visit or handle, a bad action, a visit that is over. The
// instance stays usable.
type Error struct {
	// Export is the export that failed, e.g. "step".
	Export string
	// Message is the module's message, e.g. `sim: bad action: …`.
	Message string
}

func (e *Error) Error() string { return "host: " + e.Export + ": " + e.Message }
