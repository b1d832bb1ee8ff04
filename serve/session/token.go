package session

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strings"
)

// NewToken returns a random session token: 256 bits, "sess_…".
func NewToken() string {
	b := make([]byte, 32)
	rand.Read(b)
	return "sess_" + base64.RawURLEncoding.EncodeToString(b)
}

// TokenHash is the SHA-256 (hex) under which a token is stored.
func TokenHash(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// ValidToken reports whether s has the form of a token.
func ValidToken(s string) bool {
	rest, ok := strings.CutPrefix(s, "sess_")
	if !ok || len(rest) != 43 {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(rest)
	return err == nil
}

func newID() string {
	b := make([]byte, 18)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// RunID is the run id a session is stored under: derived from the
// session, so that storing it again after a crash stores nothing twice.
func RunID(s Session) string { return "session-" + s.ID }
