package norms_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/normgym/normgym/norms"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  norms.Rule
		canon string // String of the result; "" means input
	}{
		{
			name:  "forbid with qual",
			input: "forbid step color=blue",
			want:  norms.Rule{Deontic: norms.Forbid, Event: norms.Event{Verb: "step", Quals: []norms.Qual{{"color", "blue"}}}},
		},
		{
			name:  "forbid bare verb",
			input: "forbid litter",
			want:  norms.Rule{Deontic: norms.Forbid, Event: norms.Event{Verb: "litter"}},
		},
		{
			name:  "two quals kept in order",
			input: "forbid step terrain=path dir=north",
			want: norms.Rule{Deontic: norms.Forbid, Event: norms.Event{Verb: "step",
				Quals: []norms.Qual{{"terrain", "path"}, {"dir", "north"}}}},
		},
		{
			name:  "near: someone else beside",
			input: "forbid pick near=anyone",
			want:  norms.Rule{Deontic: norms.Forbid, Event: norms.Event{Verb: "pick", Quals: []norms.Qual{{"near", "anyone"}}}},
		},
		{
			name:  "follows: a role, after another qualifier",
			input: "forbid use object=well  follows=elder",
			want: norms.Rule{Deontic: norms.Forbid, Event: norms.Event{Verb: "use",
				Quals: []norms.Qual{{"object", "well"}, {"follows", "elder"}}}},
			canon: "forbid use object=well follows=elder",
		},
		{
			name:  "except",
			input: "forbid litter except object=bin",
			want: norms.Rule{Deontic: norms.Forbid, Event: norms.Event{Verb: "litter",
				Except: []norms.Qual{{"object", "bin"}}}},
		},
		{
			name:  "quals and except with the same key",
			input: "forbid drop phase=noon except zone=garden phase=noon",
			want: norms.Rule{Deontic: norms.Forbid, Event: norms.Event{Verb: "drop",
				Quals:  []norms.Qual{{"phase", "noon"}},
				Except: []norms.Qual{{"zone", "garden"}, {"phase", "noon"}}}},
		},
		{
			name:  "require before",
			input: "require bow before enter zone=market",
			want: norms.Rule{Deontic: norms.Require, Act: norms.Event{Verb: "bow"}, When: "before",
				Event: norms.Event{Verb: "enter", Quals: []norms.Qual{{"zone", "market"}}}},
		},
		{
			name:  "require use after",
			input: "require use object=bell after pick",
			want: norms.Rule{Deontic: norms.Require, Act: norms.Event{Verb: "use", Quals: []norms.Qual{{"object", "bell"}}},
				When: "after", Event: norms.Event{Verb: "pick"}},
		},
		{
			name:  "over takes a digit",
			input: "forbid carry over=0",
			want:  norms.Rule{Deontic: norms.Forbid, Event: norms.Event{Verb: "carry", Quals: []norms.Qual{{"over", "0"}}}},
		},
		{
			name:  "blanks are collapsed",
			input: " \tforbid  step\t\tcolor=blue  ",
			want:  norms.Rule{Deontic: norms.Forbid, Event: norms.Event{Verb: "step", Quals: []norms.Qual{{"color", "blue"}}}},
			canon: "forbid step color=blue",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := norms.Parse(tt.input)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.input, err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Parse(%q) = %#v, want %#v", tt.input, got, tt.want)
			}
			canon := tt.canon
			if canon == "" {
				canon = tt.input
			}
			if got, want := got.String(), canon; got != want {
				t.Errorf("String() = %q, want %q", got, want)
			}
			again, err := norms.Parse(got.String())
			if err != nil {
				t.Fatalf("Parse(String()) = %v", err)
			}
			if !reflect.DeepEqual(again, got) {
				t.Errorf("Parse(String()) = %#v, want %#v", again, got)
			}
		})
	}
}

func TestParseCatalogRoundTrip(t *testing.T) {
	for _, n := range norms.Default().Norms() {
		t.Run(n.ID, func(t *testing.T) {
			text := n.Rule.String()
			r, err := norms.Parse(text)
			if err != nil {
				t.Fatalf("Parse(%q): %v", text, err)
			}
			if !reflect.DeepEqual(r, n.Rule) {
				t.Errorf("Parse(%q) = %#v, want %#v", text, r, n.Rule)
			}
			if got, want := r.String(), text; got != want {
				t.Errorf("String() = %q, want %q", got, want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name  string
		input string
		pos   int
		msg   string // substring of Error()
	}{
		{"empty input", "", 1, "empty rule"},
		{"blank input", "  \t", 4, "empty rule"},
		{"unknown deontic", "allow step", 1, `unknown rule type "allow"`},
		{"missing verb", "forbid", 7, "missing verb"},
		{"unknown verb", "forbid walk color=red", 8, `unknown verb "walk"`},
		{"unknown key", "forbid step colour=blue", 13, `unknown key "colour" (want one of color, dir, follows, hat,`},
		{"missing key", "forbid step =blue", 13, "missing key"},
		{"bad value", "forbid step color=purple", 19, `bad value "purple" for color (want one of red, blue`},
		{"value of another key", "forbid step zone=sand", 18, `bad value "sand" for zone`},
		{"missing value", "forbid step color=", 19, "missing value for color"},
		{"missing =", "forbid step color blue", 13, `missing "=" in qualifier "color"`},
		{"second verb", "forbid step enter", 13, `unexpected "enter"`},
		{"except with no quals", "forbid litter except", 15, `"except" needs at least one qualifier`},
		{"near: bad value", "forbid pick near=someone", 18, `bad value "someone" for near (want one of anyone, elder`},
		{"follows on a move", "forbid step follows=anyone", 8, `follows=... needs a verb of an act on the spot`},
		{"follows exempting", "forbid litter except follows=anyone", 8, `follows=... cannot exempt`},
		{"follows in an act", "require use object=well follows=anyone before pick", 9, `an act cannot say follows=...`},
		{"except twice", "forbid litter except zone=garden except object=bin", 34, `unexpected "except"`},
		{"require without before or after", "require bow enter zone=market", 13, `missing "before" or "after"`},
		{"require ends after act", "require bow", 12, `missing "before" or "after"`},
		{"require ends after when", "require bow before", 19, "missing verb"},
		{"act not bow or use", "require pick before enter", 9, `act must be bow or use, not "pick"`},
		{"use without object", "require use before pick", 9, `"use" needs object=`},
		{"use with other quals only", "require use phase=noon before pick", 9, `"use" needs object=`},
		{"before in a forbid", "forbid bow before pick", 12, `unexpected "before"`},
		{"duplicate key", "forbid step color=blue color=red", 24, `duplicate key "color"`},
		{"duplicate key in except", "forbid litter except zone=garden zone=plaza", 34, `duplicate key "zone"`},
		{"duplicate key in act", "require use object=bell object=well before pick", 25, `duplicate key "object"`},
		{"over out of range", "forbid carry over=10", 19, `bad value "10" for over`},
		{"newline is not a blank", "forbid step\ncolor=red", 8, "unknown verb"},
		{"long token is shortened", "forbid " + strings.Repeat("x", 100), 8, `"` + strings.Repeat("x", 64) + `"...`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := norms.Parse(tt.input)
			if err == nil {
				t.Fatalf("Parse(%q) = %v, want an error", tt.input, r)
			}
			var se *norms.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Parse(%q) error %T, want *norms.SyntaxError", tt.input, err)
			}
			if got, want := se.Pos, tt.pos; got != want {
				t.Errorf("Pos = %d, want %d (%v)", got, want, err)
			}
			if got, want := se.Input, tt.input; got != want {
				t.Errorf("Input = %q, want %q", got, want)
			}
			if got, want := err.Error(), tt.msg; !strings.Contains(got, want) {
				t.Errorf("Error() = %q, want it to contain %q", got, want)
			}
			if got, want := err.Error(), "norms: column "; !strings.HasPrefix(got, want) {
				t.Errorf("Error() = %q, want prefix %q", got, want)
			}
		})
	}
}

func TestMustParsePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("MustParse(\"forbid\") did not panic")
		}
	}()
	norms.MustParse("forbid")
}
