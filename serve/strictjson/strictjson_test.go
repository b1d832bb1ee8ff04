package strictjson_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/normgym/normgym/serve/strictjson"
)

func TestCheck(t *testing.T) {
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	deepObj := func(n int) string { return strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n) }
	tests := []struct {
		name string
		doc  string
		kind strictjson.Kind // -1: accepted
	}{
		{"object", `{"run_id":"x","consent":true,"record":{"actions":["north","wait"],"extra":{"a":[1,2.5e-3,-0,null,false]}}}`, -1},
		{"white space around", " \t\r\n{}\n", -1},
		{"scalar", `"text"`, -1},
		{"unicode text", `{"name":"Year 9 — Tuesday ✓ 𝄞"}`, -1},
		{"escaped pair", `{"clef":"\ud834\udd1e"}`, -1},
		{"same key in sibling objects", `[{"a":1},{"a":2}]`, -1},
		{"same key at two levels", `{"a":{"a":1}}`, -1},
		{"depth 32", deep(32), -1},
		{"object depth 32", deepObj(32), -1},

		{"duplicate key", `{"consent":false,"consent":true}`, strictjson.Duplicate},
		{"duplicate by case", `{"consent":false,"Consent":true}`, strictjson.Duplicate},
		{"duplicate by escape", `{"consent":false,"c\u006fnsent":true}`, strictjson.Duplicate},
		{"duplicate by kelvin sign", `{"k":1,"\u212a":2}`, strictjson.Duplicate},
		{"duplicate deep", `{"record":{"extra":{"x":1,"x":2}}}`, strictjson.Duplicate},
		{"depth 33", deep(33), strictjson.Depth},
		{"object depth 33", deepObj(33), strictjson.Depth},
		{"depth 5000", deep(5000), strictjson.Depth},
		{"invalid UTF-8", "{\"name\":\"a\xffb\"}", strictjson.Text},
		{"overlong UTF-8", "{\"name\":\"\xc0\xaf\"}", strictjson.Text},
		{"UTF-8 surrogate", "{\"name\":\"\xed\xa0\x80\"}", strictjson.Text},
		{"lone high surrogate", `{"name":"\ud800"}`, strictjson.Text},
		{"lone low surrogate", `{"name":"\udc00x"}`, strictjson.Text},
		{"high then non-low", `{"name":"\ud800\u0041"}`, strictjson.Text},

		{"empty", ``, strictjson.Syntax},
		{"trailing data", `{} {}`, strictjson.Syntax},
		{"trailing comma", `[1,]`, strictjson.Syntax},
		{"bare word", `{"a":tru}`, strictjson.Syntax},
		{"leading zero", `01`, strictjson.Syntax},
		{"control character", "\"a\x01\"", strictjson.Syntax},
		{"bad escape", `"\x"`, strictjson.Syntax},
		{"unterminated", `{"a":"b`, strictjson.Syntax},
		{"invalid byte outside strings", "\xff", strictjson.Syntax},
		{"array of 5", `[1,2,3,4,[5,6,7,8,9]]`, -1},
		{"array of 6", `{"actions":["n","n","n","n","n","n"]}`, strictjson.Length},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := strictjson.Check([]byte(tt.doc), strictjson.Limits{Array: 5})
			if tt.kind < 0 {
				if err != nil {
					t.Fatalf("Check(%.60q) = %v, want nil", tt.doc, err)
				}
				return
			}
			var e *strictjson.Error
			if !errors.As(err, &e) {
				t.Fatalf("Check(%.60q) = %v, want an *Error of kind %d", tt.doc, err, tt.kind)
			}
			if e.Kind != tt.kind {
				t.Errorf("Check(%.60q) kind = %d (%v), want %d", tt.doc, e.Kind, err, tt.kind)
			}
			if !strings.HasPrefix(err.Error(), "strictjson: ") {
				t.Errorf("error %q does not start with the package name", err)
			}
		})
	}
}

// FuzzCheck: what Check accepts, encoding/json accepts; what
// encoding/json accepts and Check refuses is refused for one of the
// reasons this package adds, never as a syntax error.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{`{"a":1}`, `{"a":1,"A":2}`, `[[[]]]`, `"\ud800"`, "\"\xff\"", `{"a":[1,{"b":null}]}`, `1e5`, `-0.5`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		err := strictjson.Check(b, strictjson.Limits{Depth: 8})
		valid := json.Valid(b)
		if err == nil && !valid {
			t.Fatalf("Check accepted %q, which encoding/json refuses", b)
		}
		var e *strictjson.Error
		if err != nil && valid && errors.As(err, &e) && e.Kind == strictjson.Syntax {
			t.Fatalf("Check called valid JSON %q a syntax error: %v", b, err)
		}
	})
}

func BenchmarkCheck(b *testing.B) {
	doc := []byte(`{"run_id":"0123456789abcdef","consent":true,"record":{"visit":"orchard/none/control/s1","actions":[` +
		strings.Repeat(`"north","pick",`, 75) + `"wait"],"events":[` + strings.Repeat(`{"day":1,"step":2,"kind":"sanction","by":"Ada","to":"newcomer","text":"Tsk! Not like that."},`, 100) +
		`{}]}}`)
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		if err := strictjson.Check(doc, strictjson.Limits{Array: 600}); err != nil {
			b.Fatal(err)
		}
	}
}

func TestCheckManyKeys(t *testing.T) {
	var b strings.Builder
	b.WriteString("{")
	for i := range 40 {
		b.WriteString(`"k` + string(rune('a'+i%26)) + string(rune('a'+i/26)) + `":1,`)
	}
	ok := b.String() + `"last":1}`
	if err := strictjson.Check([]byte(ok), strictjson.Limits{}); err != nil {
		t.Fatalf("40 distinct keys: %v", err)
	}
	dup := b.String() + `"KAA":1}`
	if err := strictjson.Check([]byte(dup), strictjson.Limits{}); err == nil {
		t.Fatal("a 41st key equal to the first (by case) was accepted")
	}
}
