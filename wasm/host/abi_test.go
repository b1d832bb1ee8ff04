package host_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/wasm/host"
)

// requestExports are the exports that take a request.
var requestExports = []string{"suites", "reset", "close", "step", "observe", "score", "probe", "answer", "record", "run", "replay"}

// badInputs are requests no export accepts.
var badInputs = []struct {
	name string
	in   string
}{
	{"empty", ""},
	{"spaces", " \n\t "},
	{"truncated", `{"handle":`},
	{"garbage", "\x00\xff\xfe garbage \x80"},
	{"number", "42"},
	{"string", `"reset"`},
	{"array", `[1,2,3]`},
	{"two objects", `{} {}`},
	{"trailing garbage", `{"handle":1} x`},
	{"deep nesting", strings.Repeat("[", 20000) + strings.Repeat("]", 20000)},
	{"wrong types", `{"handle":"one","visit":7,"action":[],"answer":"x","visits":"v","agent":{}}`},
	{"unknown field", `{"handel":1}`},
	{"unknown handle", `{"handle":987654}`},
	{"negative handle", `{"handle":-1}`},
	{"huge handle", `{"handle":1e300}`},
	{"invalid utf-8 visit", "{\"visit\":\"\xff\xfe\",\"handle\":0}"},
}

// TestABIBadInput feeds every export malformed requests: each must come
// back as an error value, never a trap.
func TestABIBadInput(t *testing.T) {
	r := compiler(t)
	ctx := context.Background()
	for _, export := range requestExports {
		for _, c := range badInputs {
			t.Run(export+"/"+c.name, func(t *testing.T) {
				out, err := r.Call(ctx, export, []byte(c.in))
				if err == nil {
					t.Fatalf("%s(%q) = %s, want an error value", export, clip(c.in), out)
				}
				if !isModuleError(err) {
					t.Fatalf("%s(%q): %v, want an error value (*host.Error)", export, clip(c.in), err)
				}
			})
		}
	}
	if _, err := r.Info(ctx); err != nil {
		t.Fatalf("the runtime no longer works: %v", err)
	}
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// TestABIErrors checks the messages of typical mistakes through the typed API.
func TestABIErrors(t *testing.T) {
	r := compiler(t)
	ctx := context.Background()
	control := "orchard/none/control/s1"
	v, _, _, err := r.Reset(ctx, control)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close(ctx)
	over, _, _, err := r.Reset(ctx, "orchard/place.color=blue/observe/s17")
	if err != nil {
		t.Fatal(err)
	}
	defer over.Close(ctx)
	for over != nil {
		res, err := over.Step(ctx, "wait")
		if err != nil {
			t.Fatal(err)
		}
		if res.Done() {
			break
		}
	}
	controlOver, _, _, err := r.Reset(ctx, control)
	if err != nil {
		t.Fatal(err)
	}
	defer controlOver.Close(ctx)
	for {
		res, err := controlOver.Step(ctx, "wait")
		if err != nil {
			t.Fatal(err)
		}
		if res.Done() {
			break
		}
	}
	closed, _, _, err := r.Reset(ctx, control)
	if err != nil {
		t.Fatal(err)
	}
	if err := closed.Close(ctx); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		call func() error
		want string
	}{
		{"unknown visit", func() error { _, _, _, err := r.Reset(ctx, "atlantis/none/control/s1"); return err }, `sim: unknown world "atlantis"`},
		{"bad seed", func() error { _, _, _, err := r.Reset(ctx, "orchard/none/control/s007"); return err }, "no leading zeros"},
		{"bad action", func() error { _, err := v.Step(ctx, "fly north"); return err }, `unknown action "fly"`},
		{"give without target", func() error { _, err := v.Step(ctx, "give"); return err }, "give needs one agent"},
		{"step after the end", func() error { _, err := over.Step(ctx, "wait"); return err }, sim.ErrVisitOver.Error()},
		{"probe before the end", func() error { _, err := v.Probe(ctx); return err }, sim.ErrNotOver.Error()},
		{"answer before the end", func() error { _, err := v.Answer(ctx, 0, nil); return err }, sim.ErrNotOver.Error()},
		{"probe under control", func() error { _, err := controlOver.Probe(ctx); return err }, "control visits have no probe"},
		{"answer under control", func() error { _, err := controlOver.Answer(ctx, 0, nil); return err }, "no probe"},
		{"answer out of range", func() error { _, err := over.Answer(ctx, 4, nil); return err }, "out of range"},
		{"confidence out of range", func() error { c := 1.5; _, err := over.Answer(ctx, 0, &c); return err }, "confidence out of range"},
		{"closed visit", func() error { _, err := closed.Step(ctx, "wait"); return err }, "is closed"},
		{"unknown agent", func() error { _, err := r.RunBaseline(ctx, control, "human"); return err }, `unknown agent "human"`},
		{"empty batch", func() error { _, err := r.RunBaselines(ctx, nil, "greedy"); return err }, "give visit or visits"},
		{"bad visit in batch", func() error { _, err := r.RunBaselines(ctx, []string{control, "x"}, "greedy"); return err }, "bad visit id"},
		{"unknown suite", func() error { _, err := r.Suite(ctx, "huge"); return err }, `unknown suite "huge"`},
		{"replay of nothing", func() error { _, err := r.Replay(ctx, sim.Record{}); return err }, "bad visit id"},
		{"replay too short", func() error {
			_, err := r.Replay(ctx, sim.Record{Visit: control, Actions: []string{"wait"}})
			return err
		}, "not over"},
		{"replay bad action", func() error {
			_, err := r.Replay(ctx, sim.Record{Visit: control, Actions: []string{"jump"}})
			return err
		}, "action 1"},
		{"replay too long", func() error {
			_, err := r.Replay(ctx, sim.Record{Visit: control, Actions: make([]string, sim.MaxActions+1)})
			return err
		}, "more than a visit can take"},
		{"request too large", func() error {
			_, err := r.Call(ctx, "reset", make([]byte, 1<<20+1))
			return err
		}, "more than"},
	}
	// The errors of sim.Env's contract are sim's own on this side too.
	is := map[string]error{"unknown visit": sim.ErrVisitID, "bad seed": sim.ErrVisitID, "bad action": sim.ErrAction,
		"give without target": sim.ErrAction, "step after the end": sim.ErrVisitOver, "probe before the end": sim.ErrNotOver,
		"answer before the end": sim.ErrNotOver, "probe under control": sim.ErrNoProbe, "answer under control": sim.ErrNoProbe,
		"answer out of range": sim.ErrBadAnswer, "confidence out of range": sim.ErrBadConfidence}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.call()
			if err == nil {
				t.Fatalf("no error, want one containing %q", c.want)
			}
			if want, ok := is[c.name]; ok && !errors.Is(err, want) {
				t.Errorf("error %v does not wrap %v", err, want)
			}
			if !isModuleError(err) && c.name != "closed visit" {
				t.Errorf("%v is not an error value from the module", err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q, want it to contain %q", err, c.want)
			}
		})
	}
}

// TestABIBuffer drives in_ptr and the exports with lengths the typed API
// never sends.
func TestABIBuffer(t *testing.T) {
	r := compiler(t)
	ctx := context.Background()
	cases := []struct {
		name        string
		alloc, n    int32
		wantRefused bool
	}{
		{"over 1 MiB", 1<<20 + 1, 0, true},
		{"max int32", 1<<31 - 1, 0, true},
		{"negative", -1, 0, true},
		{"length above the buffer", 16, 17, false},
		{"length far above the buffer", 0, 1 << 30, false},
		{"negative length", 16, -5, false},
		{"exactly 1 MiB of zeros", 1 << 20, 1 << 20, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, export := range requestExports {
				ptr, out, err := host.RawCall(ctx, r, export, c.alloc, c.n)
				if err != nil {
					t.Fatalf("%s: trap: %v", export, err)
				}
				if got := ptr == 0; got != c.wantRefused {
					t.Fatalf("in_ptr(%d) = %d, refused %v, want %v", c.alloc, ptr, got, c.wantRefused)
				}
				var e struct{ Error string }
				if err := json.Unmarshal(out, &e); err != nil || e.Error == "" {
					t.Fatalf("%s: response %q, want an error value", export, clip(string(out)))
				}
			}
		})
	}
	if _, err := r.Info(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestHandleLimit opens visits in one instance until the table is full.
func TestHandleLimit(t *testing.T) {
	r := newRuntime(t, host.Options{MaxInstances: 1})
	ctx := context.Background()
	var open []*host.Visit
	for i := 0; ; i++ {
		v, _, _, err := r.Reset(ctx, fmt.Sprintf("orchard/none/control/s%d", i))
		if err != nil {
			if !strings.Contains(err.Error(), "too many open environments") {
				t.Fatal(err)
			}
			if i != 256 {
				t.Fatalf("the table filled after %d visits, want 256", i)
			}
			break
		}
		open = append(open, v)
	}
	if err := open[0].Close(ctx); err != nil {
		t.Fatal(err)
	}
	v, _, _, err := r.Reset(ctx, "orchard/none/control/s1")
	if err != nil {
		t.Fatalf("after a close: %v", err)
	}
	if v.Handle() == open[0].Handle() {
		// Handles are not reused at once: a stale handle must not reach a new visit.
		t.Errorf("handle %d reused at once", v.Handle())
	}
	if _, _, err := open[0].Observe(ctx); err == nil {
		t.Error("a closed visit still answers")
	}
}

// FuzzABI feeds arbitrary bytes to reset, step and replay; the module
// must answer with JSON, never trap. Seeds run as unit tests.
func FuzzABI(f *testing.F) {
	seeds := []string{
		`{"visit":"orchard/place.color=blue/observe/s17"}`,
		`{"handle":1,"action":"north"}`,
		`{"handle":1,"action":"give mara"}`,
		`{"visit":"orchard/none/control/s1","actions":["wait"]}`,
		`{"visit":"market/none/control/s3","actions":["n","s"],"probe":{"answer":9}}`,
		"", "{", "null", `{"handle":1e400}`, "\xff",
	}
	for _, s := range seeds {
		for k := range 3 {
			f.Add(uint8(k), []byte(s))
		}
	}
	r := fuzzRuntime(f)
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		ctx := context.Background()
		export := []string{"reset", "step", "replay"}[int(which)%3]
		out, err := r.Call(ctx, export, data)
		switch {
		case err == nil:
			if !json.Valid(out) {
				t.Fatalf("%s(%q): invalid JSON %q", export, data, out)
			}
			if export == "reset" {
				// Keep the table from filling up (one instance: the
				// close reaches the reset's table).
				var h struct{ Handle int }
				json.Unmarshal(out, &h)
				r.Call(ctx, "close", fmt.Appendf(nil, `{"handle":%d}`, h.Handle))
			}
		case errors.Is(err, host.ErrInstanceLost) || !isModuleError(err):
			t.Fatalf("%s(%q): %v", export, data, err)
		}
	})
}

var (
	fuzzOnce sync.Once
	fuzzRT   *host.Runtime
	fuzzErr  error
)

// fuzzRuntime is one instance with a visit open under handle 1, shared by
// every fuzz input of the process.
func fuzzRuntime(tb testing.TB) *host.Runtime {
	fuzzOnce.Do(func() {
		ctx := context.Background()
		if fuzzRT, fuzzErr = host.New(ctx, wasmBytes, host.Options{CacheDir: cacheDir, MaxInstances: 1}); fuzzErr != nil {
			return
		}
		var v *host.Visit
		if v, _, _, fuzzErr = fuzzRT.Reset(ctx, "orchard/place.color=blue/observe/s17"); fuzzErr == nil && v.Handle() != 1 {
			fuzzErr = fmt.Errorf("first handle %d, want 1", v.Handle())
		}
	})
	if fuzzErr != nil {
		tb.Fatal(fuzzErr)
	}
	return fuzzRT
}

// TestExportSignatures checks the export list and that every parameter
// and result is an i32 (an i64 would be a BigInt in JavaScript).
func TestExportSignatures(t *testing.T) {
	ctx := context.Background()
	rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigInterpreter())
	defer rt.Close(ctx)
	m, err := rt.CompileModule(ctx, wasmBytes)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{ // number of parameters
		"_initialize": -1, "in_ptr": 1, "out_ptr": 0, "info": 0, "norms": 0,
		"suites": 1, "reset": 1, "close": 1, "step": 1, "observe": 1, "score": 1,
		"probe": 1, "answer": 1, "record": 1, "run": 1, "replay": 1,
	}
	got := m.ExportedFunctions()
	for name, params := range want {
		f, ok := got[name]
		if !ok {
			t.Errorf("no export %q", name)
			continue
		}
		if params < 0 {
			continue
		}
		if ps, rs := f.ParamTypes(), f.ResultTypes(); len(ps) != params || len(rs) != 1 ||
			slices.ContainsFunc(append(ps, rs...), func(v api.ValueType) bool { return v != api.ValueTypeI32 }) {
			t.Errorf("%s%v%v, want %d i32 parameters and one i32 result", name, ps, rs, params)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("unexpected export %q: add it to wasm/ABI.md and this test", name)
		}
	}
	if _, ok := m.ExportedMemories()["memory"]; !ok {
		t.Error("no exported memory")
	}
}
