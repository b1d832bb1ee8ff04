package sim

import (
	"encoding/hex"
	"fmt"
	"strconv"
)

// The trajectory hash (DESIGN.md, Reproducibility) is SHA-256 over lines
// of text: the visit's first line, a line at the start of each day, and a
// line per tick with its step, the newcomer's action, each member's action
// in agent order, and each sanction given in the tick ("!by>to") where it
// happened. Only this file writes to it; a change to any line changes
// every hash, and needs a Version bump.

// traceVisit writes the visit's first line.
func (e *Visit) traceVisit() {
	fmt.Fprintf(e.trace, "normgym sim %s visit %s\n", Version, e.id)
}

// traceDay writes the line that starts day (0-based).
func (e *Visit) traceDay(day int) {
	fmt.Fprintf(e.trace, "day %d\n", day)
}

// traceTick starts the line of the tick taken at step, with the
// newcomer's action (canonical text).
func (e *Visit) traceTick(step int, action string) {
	e.traceLine = strconv.AppendInt(e.traceLine[:0], int64(step), 10)
	e.traceLine = append(e.traceLine, ' ')
	e.traceLine = append(e.traceLine, action...)
}

// traceAct adds a member's action to the tick's line.
func (e *Visit) traceAct(action string) {
	e.traceLine = append(append(e.traceLine, ' '), action...)
}

// traceSanction adds a sanction given by by to to the tick's line.
func (e *Visit) traceSanction(by, to string) {
	e.traceLine = append(append(append(append(e.traceLine, " !"...), by...), '>'), to...)
}

// traceEnd writes the tick's line.
func (e *Visit) traceEnd() {
	e.traceLine = append(e.traceLine, '\n')
	e.trace.Write(e.traceLine)
}

// Hash returns the trajectory hash so far: SHA-256 over the visit id and
// every agent's action and every sanction, tick by tick, in hex.
func (e *Visit) Hash() string {
	// Sum does not change the running hash.
	return hex.EncodeToString(e.trace.Sum(nil))
}
