package session

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/normgym/normgym/sim"
)

// Sealed seeds. The sim and every public visit are open and deterministic:
// a visit's layouts and its members' routines follow from its id, so the
// first screen of a public visit identifies it (and its norm) by lookup. A
// sealed session therefore plays a visit of its assigned cell (world ×
// norm × condition) under a seed the server draws from a space too large
// to enumerate and reveals only with the result.
//
// Public seeds (every suite's, and any a practice session names) lie below
// PublicSeeds; sealed seeds are drawn at or above it, so a practice
// session can never open the visit a sealed session plays.

// PublicSeeds bounds the seeds of public visits: suites and practice
// sessions use seeds below it, sealed sessions seeds at or above it.
const PublicSeeds = 1 << 32

// SealedSeed draws a secret seed for a sealed visit: uniform over
// [PublicSeeds, 2^64), from the operating system's random source.
func SealedSeed() uint64 {
	var b [8]byte
	for {
		rand.Read(b[:])
		if s := binary.LittleEndian.Uint64(b[:]); s >= PublicSeeds {
			return s
		}
	}
}

// SealVisit returns the visit of the same cell (worlds, norm, condition
// and variant) as visit under a fresh sealed seed.
func SealVisit(visit string) (string, error) {
	id, err := sim.ParseVisitID(visit)
	if err != nil {
		return "", fmt.Errorf("session: sealing %q: %w", visit, err)
	}
	id.Seed = SealedSeed()
	return id.String(), nil
}

// SealedVisit reports whether a visit id carries a sealed seed: only a
// sealed session may play it, and only the server draws one.
func SealedVisit(visit string) bool {
	id, err := sim.ParseVisitID(visit)
	return err == nil && id.Seed >= PublicSeeds
}

// Cell is a visit's cell: its id without the seed ("orchard/place.color=blue/observe").
func Cell(visit string) string {
	id, err := sim.ParseVisitID(visit)
	if err != nil {
		return ""
	}
	id.Seed = 0
	s := id.String()
	return s[:len(s)-len("/s0")]
}

// VisitParts reads a visit's world, condition (with its variant, as in
// "observe+noisy") and norm family ("" under control) from the text of its
// id and its norm's id ("place.color=blue" is of family "place"), with no
// catalog: so a private visit's are read too, and the store's schema 8
// reads older sessions' the same way.
func VisitParts(visit, norm string) (world, condition, family string) {
	parts := strings.Split(visit, "/")
	if len(parts) != 4 {
		return "", "", ""
	}
	if f, _, ok := strings.Cut(norm, "."); ok && norm != "none" {
		family = f
	}
	return parts[0], parts[2], family
}
