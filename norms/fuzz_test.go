package norms_test

import (
	"reflect"
	"testing"

	"github.com/normgym/normgym/norms"
)

func FuzzParse(f *testing.F) {
	for _, n := range norms.Default().Norms() {
		f.Add(n.Rule.String())
	}
	for _, s := range []string{"", "forbid", "require bow", "forbid litter except", " forbid\tstep  color=red ", "forbid step ==", "forbid step color=blue=red"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := norms.Parse(s)
		if err != nil {
			return
		}
		text := r.String()
		again, err := norms.Parse(text)
		if err != nil {
			t.Fatalf("Parse(%q) ok, but Parse(String() = %q): %v", s, text, err)
		}
		if !reflect.DeepEqual(again, r) {
			t.Fatalf("Parse(%q) = %#v, Parse(String()) = %#v", s, r, again)
		}
		if got := again.String(); got != text {
			t.Fatalf("String not stable: %q then %q", text, got)
		}
	})
}

func FuzzParseID(f *testing.F) {
	for _, n := range norms.Default().Norms() {
		f.Add(n.ID)
	}
	for _, s := range []string{"", norms.NoNorm, ".=", "a.b=c.d", "a.b=c=d", "A.b=c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		family, key, value, err := norms.ParseID(id)
		if err != nil {
			return
		}
		if got := family + "." + key + "=" + value; got != id {
			t.Fatalf("ParseID(%q) = %q, %q, %q, which join to %q", id, family, key, value, got)
		}
	})
}
