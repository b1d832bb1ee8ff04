// Package nickname says what a classroom nickname may be: the name a
// student chooses when joining a room, which the teacher's dashboard and
// the class's views show instead of the student's private pseudonym.
//
// It is a leaf package (strings and unicode only), so that the server
// (serve/server) and the browser app (web/internal/ui) apply the same
// rules without the app linking the server's types. It lives under web,
// which imports nothing from serve; the server imports it from here.
//
// A nickname is short and carries no personal data that a rule can catch:
// 1 to MaxLen letters, digits, spaces and '-', with at most MaxDigits
// digits (a seat number, never a phone number, a date or a student id)
// and nothing that makes an email address or a link ('@', '.', '/').
// A bare number is a seat: "12" is "Seat 12". No rule can tell a
// nickname from a child's real name; the join screen asks for one that
// is not.
package nickname

import (
	"errors"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxLen is the most characters (runes) a nickname has, "Seat " included.
const MaxLen = 16

// MaxDigits is the most digits a nickname holds: a seat number.
const MaxDigits = 3

// Rules says what a nickname may be, for people.
const Rules = "a nickname is 1 to 16 letters, digits, spaces or '-', with at most 3 digits: a made-up name such as Blue Fox, or your seat number such as 12 (not your real name)"

// Errors of Normalize; each message is for the person typing.
var (
	ErrEmpty    = errors.New("nickname: type a nickname or your seat number")
	ErrTooLong  = errors.New("nickname: at most 16 characters, please")
	ErrChars    = errors.New("nickname: use only letters, digits, spaces and '-'")
	ErrDigits   = errors.New("nickname: at most 3 digits (a seat number), so that it is never a phone number or a date")
	ErrNoLetter = errors.New("nickname: use some letters, or only your seat number")
)

// Normalize returns the nickname a person typed as it is kept and shown:
// spaces trimmed and runs of spaces made one, a bare seat number written
// "Seat N" (without leading zeros). It fails, with a message for the
// person, on anything Rules does not allow.
func Normalize(s string) (string, error) {
	if !utf8.ValidString(s) {
		return "", ErrChars
	}
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return "", ErrEmpty
	}
	if utf8.RuneCountInString(s) > 4*MaxLen {
		return "", ErrTooLong // before looking at every rune of a long paste
	}
	letters, digits := 0, 0
	prev := ' '
	for _, c := range s {
		switch {
		case c >= '0' && c <= '9':
			digits++
		case unicode.IsLetter(c):
			letters++
		case unicode.Is(unicode.Mn, c) && unicode.IsLetter(prev):
			// A combining accent on a letter (e + ◌́ = é).
		case c == ' ' || c == '-':
		default:
			return "", ErrChars
		}
		if !unicode.Is(unicode.Mn, c) {
			prev = c
		}
	}
	if digits > MaxDigits {
		return "", ErrDigits
	}
	if letters == 0 {
		n, err := strconv.Atoi(s)
		if err != nil || digits == 0 {
			return "", ErrNoLetter
		}
		s = "Seat " + strconv.Itoa(n)
	}
	if utf8.RuneCountInString(s) > MaxLen {
		return "", ErrTooLong
	}
	return s, nil
}

// Key is what makes two nicknames the same in a room: case, spaces and
// '-' ignored ("Blue Fox", "blue-fox" and "BLUEFOX" are one nickname;
// "Seat 12" and "seat12" too). n must be Normalize's result.
func Key(n string) string {
	var b strings.Builder
	for _, c := range strings.ToLower(n) {
		if c != ' ' && c != '-' {
			b.WriteRune(c)
		}
	}
	return b.String()
}
