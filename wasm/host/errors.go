package host

import (
	"errors"

	"github.com/normgym/normgym/sim"
)

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

// Unwrap returns the error of sim.Env's contract that the module's message
// names (sim.ErrorFor), so that errors.Is(err, sim.ErrAction) holds for a
// bad action stepped in the module as it does natively; nil for the
// module's own errors.
func (e *Error) Unwrap() error { return sim.ErrorFor(e.Message) }
