package nickname_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/normgym/normgym/web/nickname"
)

func TestNormalize(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
		err            error
	}{
		{"made-up name", "Blue Fox", "Blue Fox", nil},
		{"spaces trimmed and folded", "  Blue   Fox ", "Blue Fox", nil},
		{"seat number", "12", "Seat 12", nil},
		{"seat number with zeros", "007", "Seat 7", nil},
		{"seat written out", "seat 12", "seat 12", nil},
		{"hyphen", "Zoë-Star", "Zoë-Star", nil},
		{"combining accent", "Zoe\u0308", "Zoe\u0308", nil},
		{"other scripts", "Лиса", "Лиса", nil},
		{"sixteen", strings.Repeat("a", 16), strings.Repeat("a", 16), nil},
		{"empty", "   ", "", nickname.ErrEmpty},
		{"seventeen", strings.Repeat("a", 17), "", nickname.ErrTooLong},
		{"long paste", strings.Repeat("a", 10000), "", nickname.ErrTooLong},
		{"email", "ana@school.org", "", nickname.ErrChars},
		{"link", "site.com", "", nickname.ErrChars},
		{"phone number", "0612345678", "", nickname.ErrDigits},
		{"date", "Ana 2013", "", nickname.ErrDigits},
		{"tags", "<b>hi</b>", "", nickname.ErrChars},
		{"zero-width joiner", "Ana\u200dBen", "", nickname.ErrChars},
		{"control character", "Ana\x00", "", nickname.ErrChars},
		{"lone accent", "\u0301Ana", "", nickname.ErrChars},
		{"emoji", "Fox 🦊", "", nickname.ErrChars},
		{"only a hyphen", "-", "", nickname.ErrNoLetter},
		{"digits and hyphen", "1-2", "", nickname.ErrNoLetter},
		{"invalid UTF-8", "Ana\xff", "", nickname.ErrChars},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := nickname.Normalize(tc.in)
			if got != tc.want || !errors.Is(err, tc.err) {
				t.Errorf("Normalize(%q) = %q, %v; want %q, %v", tc.in, got, err, tc.want, tc.err)
			}
		})
	}
}

func TestKey(t *testing.T) {
	for _, tc := range []struct{ a, b string }{
		{"Blue Fox", "blue-fox"},
		{"Blue Fox", "BLUEFOX"},
		{"12", "seat 12"},
		{"Seat 12", "seat12"},
	} {
		na, errA := nickname.Normalize(tc.a)
		nb, errB := nickname.Normalize(tc.b)
		if errA != nil || errB != nil {
			t.Fatalf("Normalize(%q), Normalize(%q): %v, %v", tc.a, tc.b, errA, errB)
		}
		if ka, kb := nickname.Key(na), nickname.Key(nb); ka != kb {
			t.Errorf("Key(%q) = %q, Key(%q) = %q: want one nickname", na, ka, nb, kb)
		}
	}
	if nickname.Key("Blue Fox") == nickname.Key("Red Fox") {
		t.Error("two nicknames share a key")
	}
}

func FuzzNormalize(f *testing.F) {
	for _, s := range []string{"Blue Fox", "12", "a@b", "Zoe\u0308"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := nickname.Normalize(s)
		if err != nil {
			return
		}
		again, err := nickname.Normalize(n)
		if err != nil || again != n {
			t.Errorf("Normalize(%q) = %q is not kept as it is (%q, %v)", s, n, again, err)
		}
		if strings.ContainsAny(n, "@./<>&\"'") || nickname.Key(n) == "" {
			t.Errorf("Normalize(%q) = %q", s, n)
		}
	})
}
