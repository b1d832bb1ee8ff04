// Package strictjson checks a JSON document before it is decoded, for what
// encoding/json lets through: a key given twice in one object (the decoder
// keeps the last, so `"consent":false,"consent":true` reads as true),
// invalid UTF-8 and lone surrogate escapes (silently turned into U+FFFD),
// nesting deep enough to cost time and stack, and arrays longer than any
// honest document holds (decoding 15,000 elements costs milliseconds;
// scanning them here, a tenth of that). It allocates little and never
// builds the values.
package strictjson

import (
	"fmt"
	"unicode"
	"unicode/utf8"
)

// DefaultMaxDepth is a nesting bound far above what NormGym's bodies use
// (a submission's deepest field, in a record's extra, is a few levels).
const DefaultMaxDepth = 32

// Error is a refusal: its kind, what is wrong and the byte offset where
// it was found.
type Error struct {
	Kind   Kind
	Offset int
	Msg    string
}

func (e *Error) Error() string { return fmt.Sprintf("strictjson: %s (at byte %d)", e.Msg, e.Offset) }

// Kind classifies a refusal.
type Kind int

// The kinds of refusal. Syntax is anything encoding/json would refuse as
// well; the others are what this package adds.
const (
	Syntax    Kind = iota
	Duplicate      // a key given twice in one object
	Depth          // nested too deeply
	Text           // invalid UTF-8 or a lone surrogate escape
	Length         // an array with too many elements
)

// Limits bound a document's shape.
type Limits struct {
	// Depth bounds the nesting of arrays and objects (≤ 0:
	// DefaultMaxDepth).
	Depth int
	// Array bounds the elements of any one array (≤ 0: no bound).
	Array int
}

// Check returns nil if data is exactly one JSON value (RFC 8259, with
// surrounding white space) in valid UTF-8, whose strings hold no lone
// surrogate escape, whose objects hold no key twice, whose arrays and
// objects nest at most lim.Depth deep and whose arrays hold at most
// lim.Array elements.
//
// Keys are compared as encoding/json matches them to struct fields:
// after decoding escapes and ignoring case (Unicode simple folding), so
// that "consent" and "Consent" count as the same key.
func Check(data []byte, lim Limits) error {
	if lim.Depth <= 0 {
		lim.Depth = DefaultMaxDepth
	}
	s := scanner{b: data, max: lim.Depth, maxArray: lim.Array}
	s.space()
	if s.i == len(s.b) {
		return s.fail("empty document")
	}
	if err := s.value(0); err != nil {
		return err
	}
	s.space()
	if s.i != len(s.b) {
		return s.fail("data after the JSON value")
	}
	return nil
}

type scanner struct {
	b        []byte
	i        int
	max      int
	maxArray int
	key      []byte   // scratch for a folded key
	keys     []string // the keys of the open objects, innermost last
}

func (s *scanner) fail(format string, a ...any) error {
	return &Error{Kind: Syntax, Offset: s.i, Msg: fmt.Sprintf(format, a...)}
}

func (s *scanner) failText(format string, a ...any) error {
	return &Error{Kind: Text, Offset: s.i, Msg: fmt.Sprintf(format, a...)}
}

func (s *scanner) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// value scans one value at nesting depth (the number of enclosing arrays
// and objects).
func (s *scanner) value(depth int) error {
	if s.i >= len(s.b) {
		return s.fail("unexpected end of the document")
	}
	switch c := s.b[s.i]; {
	case c == '{':
		return s.object(depth + 1)
	case c == '[':
		return s.array(depth + 1)
	case c == '"':
		_, err := s.str(false)
		return err
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	case c == '-' || c >= '0' && c <= '9':
		return s.number()
	default:
		return s.fail("unexpected character %q", c)
	}
}

func (s *scanner) deeper(depth int) error {
	if depth > s.max {
		return &Error{Kind: Depth, Offset: s.i, Msg: fmt.Sprintf("nested more than %d levels deep", s.max)}
	}
	return nil
}

func (s *scanner) object(depth int) error {
	if err := s.deeper(depth); err != nil {
		return err
	}
	s.i++ // '{'
	s.space()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		return nil
	}
	start := len(s.keys)
	defer func() { s.keys = s.keys[:start] }()
	var seen map[string]struct{} // for objects with many keys
	for {
		s.space()
		if s.i >= len(s.b) || s.b[s.i] != '"' {
			return s.fail("expected a key in quotes")
		}
		at := s.i
		key, err := s.str(true)
		if err != nil {
			return err
		}
		dup := false
		if seen != nil {
			_, dup = seen[key]
			seen[key] = struct{}{}
		} else {
			for _, k := range s.keys[start:] {
				dup = dup || k == key
			}
			s.keys = append(s.keys, key)
			if len(s.keys)-start > 16 {
				seen = map[string]struct{}{}
				for _, k := range s.keys[start:] {
					seen[k] = struct{}{}
				}
			}
		}
		if dup {
			return &Error{Kind: Duplicate, Offset: at, Msg: fmt.Sprintf("key %s appears twice in one object", clip(s.b[at:s.i]))}
		}
		s.space()
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			return s.fail("expected ':' after a key")
		}
		s.i++
		s.space()
		if err := s.value(depth); err != nil {
			return err
		}
		s.space()
		if s.i >= len(s.b) {
			return s.fail("unexpected end of the document in an object")
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case '}':
			s.i++
			return nil
		default:
			return s.fail("expected ',' or '}' in an object")
		}
	}
}

func (s *scanner) array(depth int) error {
	if err := s.deeper(depth); err != nil {
		return err
	}
	s.i++ // '['
	s.space()
	if s.i < len(s.b) && s.b[s.i] == ']' {
		s.i++
		return nil
	}
	for n := 1; ; n++ {
		if s.maxArray > 0 && n > s.maxArray {
			return &Error{Kind: Length, Offset: s.i, Msg: fmt.Sprintf("an array holds more than %d elements", s.maxArray)}
		}
		s.space()
		if err := s.value(depth); err != nil {
			return err
		}
		s.space()
		if s.i >= len(s.b) {
			return s.fail("unexpected end of the document in an array")
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case ']':
			s.i++
			return nil
		default:
			return s.fail("expected ',' or ']' in an array")
		}
	}
}

func (s *scanner) literal(word string) error {
	if len(s.b)-s.i < len(word) || string(s.b[s.i:s.i+len(word)]) != word {
		return s.fail("unexpected character %q", s.b[s.i])
	}
	s.i += len(word)
	return nil
}

func (s *scanner) digits() int {
	n := 0
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
		n++
	}
	return n
}

func (s *scanner) number() error {
	if s.b[s.i] == '-' {
		s.i++
	}
	if s.i < len(s.b) && s.b[s.i] == '0' {
		s.i++
	} else if s.digits() == 0 {
		return s.fail("malformed number")
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if s.digits() == 0 {
			return s.fail("malformed number")
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if s.digits() == 0 {
			return s.fail("malformed number")
		}
	}
	return nil
}

// str scans a string. For a key it returns the decoded text folded as
// encoding/json folds field names; otherwise "".
func (s *scanner) str(key bool) (string, error) {
	s.i++ // '"'
	s.key = s.key[:0]
	for {
		if s.i >= len(s.b) {
			return "", s.fail("unterminated string")
		}
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return string(s.key), nil
		case c < 0x20:
			return "", s.fail("control character %#x in a string", c)
		case c == '\\':
			r, err := s.escape()
			if err != nil {
				return "", err
			}
			if key {
				s.key = fold(s.key, r)
			}
		case c < utf8.RuneSelf:
			s.i++
			if key {
				s.key = fold(s.key, rune(c))
			}
		default:
			r, n := utf8.DecodeRune(s.b[s.i:])
			if r == utf8.RuneError && n <= 1 {
				return "", s.failText("invalid UTF-8 in a string")
			}
			s.i += n
			if key {
				s.key = fold(s.key, r)
			}
		}
	}
}

// escape scans one escape sequence (s.b[s.i] is '\\') and returns the
// rune it stands for. A surrogate escape must be a high one followed by
// a low one.
func (s *scanner) escape() (rune, error) {
	if s.i+1 >= len(s.b) {
		return 0, s.fail("unterminated escape")
	}
	c := s.b[s.i+1]
	if c != 'u' {
		s.i += 2
		switch c {
		case '"', '\\', '/':
			return rune(c), nil
		case 'b':
			return '\b', nil
		case 'f':
			return '\f', nil
		case 'n':
			return '\n', nil
		case 'r':
			return '\r', nil
		case 't':
			return '\t', nil
		}
		s.i -= 2
		return 0, s.fail("invalid escape \\%c", c)
	}
	r, ok := s.hex4()
	if !ok {
		return 0, s.fail("invalid \\u escape")
	}
	switch {
	case r >= 0xDC00 && r <= 0xDFFF:
		return 0, s.failText("lone low surrogate \\u%04X (not text)", r)
	case r >= 0xD800 && r <= 0xDBFF:
		if s.i+1 >= len(s.b) || s.b[s.i] != '\\' || s.b[s.i+1] != 'u' {
			return 0, s.failText("lone high surrogate \\u%04X (not text)", r)
		}
		lo, ok := s.hex4()
		if !ok || lo < 0xDC00 || lo > 0xDFFF {
			return 0, s.failText("high surrogate \\u%04X not followed by a low one", r)
		}
		return 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00), nil
	}
	return r, nil
}

// hex4 scans `\uXXXX` at s.i.
func (s *scanner) hex4() (rune, bool) {
	if len(s.b)-s.i < 6 {
		return 0, false
	}
	var r rune
	for _, c := range s.b[s.i+2 : s.i+6] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	s.i += 6
	return r, true
}

// fold appends r folded as encoding/json folds field names (upper case of
// lower case; ASCII letters to upper case).
func fold(b []byte, r rune) []byte {
	if r < utf8.RuneSelf {
		if 'a' <= r && r <= 'z' {
			r -= 'a' - 'A'
		}
		return append(b, byte(r))
	}
	return utf8.AppendRune(b, unicode.ToUpper(unicode.ToLower(r)))
}

// clip quotes at most about 40 bytes of a key for a message, cut
// between runes.
func clip(b []byte) string {
	if len(b) <= 40 {
		return string(b)
	}
	n := 40
	for n > 0 && !utf8.RuneStart(b[n]) {
		n--
	}
	return string(b[:n]) + "…"
}
