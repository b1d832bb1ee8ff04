package sim

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/normgym/normgym/norms"
)

// The conditions: what the newcomer can learn from.
const (
	Observe = "observe" // members act, some violate and are sanctioned
	Peers   = "peers"   // members act and never violate
	Solo    = "solo"    // members stand idle; a warden sanctions the newcomer
	Told    = "told"    // as observe, and the task states the norm
	Control = "control" // no norm
)

// Sanction variants make visits harder (DESIGN.md, Members and sanctions).
const (
	// Noisy: a member notices a violation only 60% of the time, and 2% of
	// the compliant actions within its view draw a sanction all the same.
	Noisy = "noisy"
	// Delayed: sanctions come two steps after the violation (those still
	// due when a day ends are never given).
	Delayed = "delayed"
)

// Variants lists the sanction variants.
func Variants() []string { return []string{Noisy, Delayed} }

// Conditions lists the conditions in canonical order.
func Conditions() []string { return []string{Observe, Peers, Solo, Told, Control} }

// VisitID names one visit: world, norm, condition and seed. Its text form
// is "world/norm/condition/sN", e.g. "orchard/place.color=blue/observe/s17";
// control visits use the norm "none". A transfer visit holds its test day
// in another world: "orchard>harbor/place.color=blue/observe/s17".
type VisitID struct {
	World string
	// TestWorld is the test day's world when it differs from World.
	TestWorld string
	Norm      string
	Condition string
	// Variant is a sanction variant (Noisy, Delayed) or "". Its text form
	// follows the condition: "observe+noisy".
	Variant string
	// Seed draws the layouts and the members' routines. Public suites use
	// small seeds; a sealed session plays a seed the server draws from all
	// 64 bits and keeps secret until the visit is over (DESIGN.md, Trusted
	// results).
	Seed uint64
}

// String returns the canonical text form; ParseVisitID reads it back exactly.
func (v VisitID) String() string {
	w := v.World
	if v.TestWorld != "" {
		w += ">" + v.TestWorld
	}
	c := v.Condition
	if v.Variant != "" {
		c += "+" + v.Variant
	}
	return w + "/" + v.Norm + "/" + c + "/s" + strconv.FormatUint(v.Seed, 10)
}

// DayWorld returns the world of day d (0 practice, 1 test).
func (v VisitID) DayWorld(d int) string {
	if d == Days-1 && v.TestWorld != "" {
		return v.TestWorld
	}
	return v.World
}

// ErrVisitID is wrapped by every error of ParseVisitID, and so of NewVisit
// for a bad id: test for it with errors.Is.
var ErrVisitID = errors.New("sim: bad visit id")

// ParseVisitID reads a visit id and checks every part against the worlds,
// the catalog and the conditions. It accepts only the canonical form.
func ParseVisitID(s string) (VisitID, error) { return ParseVisitIDIn(norms.Default(), s) }

// ParseVisitIDIn is ParseVisitID with the norm checked against cat.
func ParseVisitIDIn(cat *norms.Catalog, s string) (VisitID, error) {
	parts := strings.Split(s, "/")
	if len(parts) != 4 {
		return VisitID{}, fmt.Errorf("%w %q: want world/norm/condition/sN, as in orchard/place.color=blue/observe/s17", ErrVisitID, clip(s))
	}
	v := VisitID{World: parts[0], Norm: parts[1], Condition: parts[2]}
	if c, variant, ok := strings.Cut(v.Condition, "+"); ok {
		if !contains(Variants(), variant) {
			return VisitID{}, fmt.Errorf("%w %q: unknown sanction variant %q (want one of %s)", ErrVisitID, clip(s), clip(variant), strings.Join(Variants(), ", "))
		}
		if c == Control {
			return VisitID{}, fmt.Errorf("%w %q: control visits have no sanctions to vary", ErrVisitID, clip(s))
		}
		v.Condition, v.Variant = c, variant
	}
	if first, test, ok := strings.Cut(v.World, ">"); ok {
		if first == test {
			return VisitID{}, fmt.Errorf("%w %q: a transfer visit needs two different worlds, as in orchard>harbor", ErrVisitID, clip(s))
		}
		v.World, v.TestWorld = first, test
		if _, err := LookupWorld(test); err != nil {
			return VisitID{}, fmt.Errorf("%w %q: %v", ErrVisitID, clip(s), err)
		}
	}
	if _, err := LookupWorld(v.World); err != nil {
		return VisitID{}, fmt.Errorf("%w %q: %v", ErrVisitID, clip(s), err)
	}
	if !contains(Conditions(), v.Condition) {
		return VisitID{}, fmt.Errorf("%w %q: unknown condition %q (want one of %s)", ErrVisitID, clip(s), clip(v.Condition), strings.Join(Conditions(), ", "))
	}
	switch {
	case v.Condition == Control && v.Norm != norms.NoNorm:
		return VisitID{}, fmt.Errorf("%w %q: control visits have no norm: write %q for the norm", ErrVisitID, clip(s), norms.NoNorm)
	case v.Condition != Control && v.Norm == norms.NoNorm:
		return VisitID{}, fmt.Errorf("%w %q: only control visits have no norm", ErrVisitID, clip(s))
	case v.Norm != norms.NoNorm:
		if _, err := cat.Lookup(v.Norm); err != nil {
			return VisitID{}, fmt.Errorf("%w %q: %v", ErrVisitID, clip(s), err)
		}
	}
	seed := parts[3]
	if len(seed) < 2 || seed[0] != 's' || (seed[1] == '0' && len(seed) > 2) {
		return VisitID{}, fmt.Errorf("%w %q: the seed must read sN with no leading zeros, as in s17", ErrVisitID, clip(s))
	}
	n, err := strconv.ParseUint(seed[1:], 10, 64)
	if err != nil {
		return VisitID{}, fmt.Errorf("%w %q: the seed must be s0 to s%d", ErrVisitID, clip(s), uint64(math.MaxUint64))
	}
	v.Seed = n
	return v, nil
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
