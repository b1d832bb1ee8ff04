package api

import (
	"strings"

	"github.com/normgym/normgym/sim"
)

// SimError is the error of sim.Env's contract that the session routes'
// refusal of a call stands for, or nil: call is "reset" (opening a
// session), "step" or "answer", status and message the refusal's HTTP
// status and message (Error). Clients that implement sim.Env over these
// routes (serve/remote; the browser's ui.Sealed mirrors it) wrap it, so
// that errors.Is holds as it does natively.
func SimError(call string, status int, message string) error {
	conflict := status == CodeConflict.Status()
	switch {
	case status == CodeInvalid.Status():
		switch {
		case call == "reset":
			return sim.ErrVisitID
		case call == "step":
			return sim.ErrAction
		case call == "answer" && strings.HasPrefix(message, "confidence"):
			return sim.ErrBadConfidence
		case call == "answer":
			return sim.ErrBadAnswer
		}
	case conflict && call == "step" && strings.HasPrefix(message, "the visit is over"):
		return sim.ErrVisitOver
	case conflict && call == "answer" && strings.HasPrefix(message, "the visit is not over"):
		return sim.ErrNotOver
	case conflict && call == "answer" && strings.HasPrefix(message, "this visit has no probe"):
		return sim.ErrNoProbe
	case conflict && call == "answer" && strings.HasPrefix(message, "the probe is answered already"):
		return sim.ErrAnswered
	}
	return nil
}
