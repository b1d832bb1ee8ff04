package guest

import (
	"testing"

	"github.com/normgym/normgym/wasm/wire"
)

// FuzzDecodeStep: the direct reading of a step request gives what decode
// gives, for every input it accepts.
func FuzzDecodeStep(f *testing.F) {
	for _, s := range []string{
		`{"handle":1,"action":"north"}`, `{"handle":12,"action":"give mara","text_only":true}`,
		`{"handle":0,"action":"","text_only":false}`, `{"handle":01,"action":"n"}`, `{"handle":1,"action":"n"} `,
		`{"handle":1,"action":"a\"b"}`, `{"handle":1,"action":"<&>"}`, `{"handle":1234567890,"action":"n"}`,
		`{"handle":1,"action":"n","text_only":true,"x":1}`, `{"handle":-1,"action":"n"}`, `{"handle":1,"action":"caf` + "\u00e9" + `"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		got, ok := readStep(in)
		if !ok {
			return
		}
		var want wire.StepRequest
		if err := decode(in, &want, true); err != nil {
			t.Fatalf("readStep(%q) = %+v, but decode fails: %v", in, got, err)
		}
		if got != want {
			t.Errorf("readStep(%q) = %+v, decode gives %+v", in, got, want)
		}
	})
}
