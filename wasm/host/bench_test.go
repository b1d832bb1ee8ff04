package host_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/agents"
	"github.com/normgym/normgym/wasm/host"
	"github.com/normgym/normgym/wasm/internal/floor"
)

const benchVisit = "orchard/place.color=red/observe/s100"

// BenchmarkStep plays greedy visits one step at a time: natively, and
// through the module (the policy runs in the host on the decoded
// observation, as a model harness would) under each engine. It reports
// the cost per step, JSON round trip included.
func BenchmarkStep(b *testing.B) {
	b.Run("native", func(b *testing.B) {
		steps := 0
		for b.Loop() {
			steps += playNative(b, benchVisit)
		}
		b.ReportMetric(b.Elapsed().Seconds()*1e6/float64(steps), "µs/step")
	})
	for _, e := range []struct {
		name string
		rt   func(testing.TB) *host.Runtime
	}{{"compiler", compiler}, {"compiler-uninterruptible", uninterruptible}, {"interpreter", interpreter}} {
		b.Run(e.name, func(b *testing.B) {
			r := e.rt(b)
			steps := 0
			for b.Loop() {
				steps += playModule(b, r, benchVisit)
			}
			b.ReportMetric(b.Elapsed().Seconds()*1e6/float64(steps), "µs/step")
		})
	}
}

// BenchmarkRunVisit plays a whole observer visit in one call inside the
// module, against the same run natively.
func BenchmarkRunVisit(b *testing.B) {
	ctx := context.Background()
	b.Run("native", func(b *testing.B) {
		for b.Loop() {
			env, err := agents.Play(benchVisit, "observer")
			if err != nil {
				b.Fatal(err)
			}
			_ = env.Record("observer", "baseline")
		}
		b.ReportMetric(b.Elapsed().Seconds()*1e3/float64(b.N), "ms/visit")
	})
	for _, e := range []struct {
		name string
		rt   func(testing.TB) *host.Runtime
	}{{"compiler", compiler}, {"compiler-uninterruptible", uninterruptible}} {
		b.Run(e.name, func(b *testing.B) {
			r := e.rt(b)
			for b.Loop() {
				if _, err := r.RunBaseline(ctx, benchVisit, "observer"); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(b.Elapsed().Seconds()*1e3/float64(b.N), "ms/visit")
		})
	}
}

// BenchmarkLoad measures New (compile from a warm on-disk cache, one
// instance started and asked for info) and Close.
func BenchmarkLoad(b *testing.B) {
	ctx := context.Background()
	b.Run("compiler-warm-cache", func(b *testing.B) {
		compiler(b) // fills the cache
		for b.Loop() {
			r, err := host.New(ctx, wasmBytes, host.Options{CacheDir: cacheDir})
			if err != nil {
				b.Fatal(err)
			}
			r.Close(ctx)
		}
		b.ReportMetric(b.Elapsed().Seconds()*1e3/float64(b.N), "ms/load")
	})
	b.Run("interpreter", func(b *testing.B) {
		for b.Loop() {
			r, err := host.New(ctx, wasmBytes, host.Options{Interpreter: true})
			if err != nil {
				b.Fatal(err)
			}
			r.Close(ctx)
		}
		b.ReportMetric(b.Elapsed().Seconds()*1e3/float64(b.N), "ms/load")
	})
	b.Run("compiler-cold", func(b *testing.B) {
		for b.Loop() {
			r, err := host.New(ctx, wasmBytes, host.Options{})
			if err != nil {
				b.Fatal(err)
			}
			r.Close(ctx)
		}
		b.ReportMetric(b.Elapsed().Seconds()*1e3/float64(b.N), "ms/load")
	})
}

// BenchmarkRatio measures how much slower sim.wasm is than the native
// core, as the ratio of their times in one run; make bench prints it.
// The module runs as normgym's run, eval and serve load it (compiler,
// Uninterruptible). To measure the code rather than the machine's other
// load, each unit of work is timed on both sides in turn, a few times,
// and the fastest time of each side counts; and the timed work runs with
// GOMAXPROCS 1, as each of normgym run's workers has one core to itself
// (the native collector then cannot run on an idle core for free). It
// reports both sides' times and wasm/native.
//
//   - step: greedy plays the sim benchmark visits one step at a time:
//     natively Env.Step and Observation.Text, through the module the step
//     export (the observation as JSON, decoded by the host, and its
//     text). The policy runs in the host on both sides. A unit is a visit,
//     timed three times a side.
//   - step-text: the same visits' greedy actions (chosen natively first)
//     replayed: natively Env.Step and Observation.Text, through the module
//     StepText, the step normgym eval takes (the text without the
//     observation's JSON). No policy runs, so this is the module's step
//     alone. A unit is a visit, timed three times a side.
//   - observer-standard: the observer plays every visit of the standard
//     suite (every seventh under -short): natively agents.Play, through
//     the module the run export, as normgym run --agent observer does. A
//     unit is a visit, timed twice a side.
//   - floor-search and floor-mix: the floor kernels (package
//     wasm/internal/floor: a bare breadth-first search over a 13×13 grid,
//     and branch-free arithmetic), natively and in a module built from
//     them, run under the same wazero configuration: what Go's wasm code
//     allows at best for branchy code and for code without branches. A
//     unit is 2,000 searches or 10⁶ rounds, timed three times a side.
func BenchmarkRatio(b *testing.B) {
	ctx := context.Background()
	b.Run("step", func(b *testing.B) {
		r := uninterruptible(b)
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
		var nat, wasm time.Duration
		steps := 0
		for b.Loop() {
			for _, id := range ratioStepVisits {
				n := 0
				nat += fastest(3, func() { n = playNative(b, id) })
				wasm += fastest(3, func() {
					if m := playModule(b, r, id); m != n {
						b.Fatalf("%s: %d steps natively, %d through the module", id, n, m)
					}
				})
				steps += n
			}
		}
		b.ReportMetric(float64(nat.Microseconds())/float64(steps), "native-µs/step")
		b.ReportMetric(float64(wasm.Microseconds())/float64(steps), "wasm-µs/step")
		b.ReportMetric(float64(wasm)/float64(nat), "wasm/native")
	})
	b.Run("step-text", func(b *testing.B) {
		r := uninterruptible(b)
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
		type visit struct {
			id      string
			actions []sim.Action
		}
		var visits []visit
		for _, id := range ratioStepVisits {
			visits = append(visits, visit{id, greedyActions(b, id)})
		}
		var nat, wasm time.Duration
		steps := 0
		for b.Loop() {
			for _, v := range visits {
				nat += fastest(3, func() { replayNative(b, v.id, v.actions) })
				wasm += fastest(3, func() { replayModuleText(b, r, v.id, v.actions) })
				steps += len(v.actions)
			}
		}
		b.ReportMetric(float64(nat.Microseconds())/float64(steps), "native-µs/step")
		b.ReportMetric(float64(wasm.Microseconds())/float64(steps), "wasm-µs/step")
		b.ReportMetric(float64(wasm)/float64(nat), "wasm/native")
	})
	b.Run("observer-standard", func(b *testing.B) {
		r := uninterruptible(b)
		s, err := sim.LookupSuite("standard")
		if err != nil {
			b.Fatal(err)
		}
		visits := s.Visits
		if testing.Short() {
			visits = nil
			for k := 0; k < len(s.Visits); k += 7 {
				visits = append(visits, s.Visits[k])
			}
		}
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
		var nat, wasm time.Duration
		for b.Loop() {
			for _, id := range visits {
				var want string
				nat += fastest(2, func() {
					env, err := agents.Play(id, "observer")
					if err != nil {
						b.Fatal(err)
					}
					want = env.Record("observer", "baseline").Hash
				})
				wasm += fastest(2, func() {
					rec, err := r.RunBaseline(ctx, id, "observer")
					if err != nil {
						b.Fatal(err)
					}
					if rec.Hash != want {
						b.Fatalf("%s: hash %s through the module, %s natively", id, rec.Hash, want)
					}
				})
			}
		}
		n := float64(b.N * len(visits))
		b.ReportMetric(nat.Seconds()*1e3/n, "native-ms/visit")
		b.ReportMetric(wasm.Seconds()*1e3/n, "wasm-ms/visit")
		b.ReportMetric(float64(wasm)/float64(nat), "wasm/native")
	})
	b.Run("floor-search", func(b *testing.B) {
		var s floor.Searcher
		floorRatio(b, "search", 2000, func(n int) uint64 { return uint64(s.Search(n)) })
	})
	b.Run("floor-mix", func(b *testing.B) {
		floorRatio(b, "mix", 1_000_000, floor.Mix)
	})
}

// floorRatio times kernel natively (native) and through the floor
// module's export of that name, n units at a time, and reports both
// sides' times per unit and wasm/native.
func floorRatio(b *testing.B, export string, n int, native func(int) uint64) {
	ctx := context.Background()
	fn := floorModule(b).ExportedFunction(export)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var nat, wasm time.Duration
	for b.Loop() {
		var want uint64
		nat += fastest(3, func() { want = native(n) })
		wasm += fastest(3, func() {
			res, err := fn.Call(ctx, uint64(n))
			if err != nil {
				b.Fatal(err)
			}
			if res[0] != want {
				b.Fatalf("%s(%d): %d in the module, %d natively", export, n, res[0], want)
			}
		})
	}
	units := float64(b.N * n)
	b.ReportMetric(float64(nat.Nanoseconds())/units, "native-ns/op")
	b.ReportMetric(float64(wasm.Nanoseconds())/units, "wasm-ns/op")
	b.ReportMetric(float64(wasm)/float64(nat), "wasm/native")
}

var (
	floorOnce sync.Once
	floorMod  api.Module
	floorErr  error
)

// floorModule builds wasm/internal/floor/module for wasip1 and
// instantiates it as host.New runs sim.wasm for normgym run (wazero's
// default engine, the compiler here, without close-on-context-done).
func floorModule(tb testing.TB) api.Module {
	tb.Helper()
	floorOnce.Do(func() {
		ctx := context.Background()
		path := filepath.Join(tb.TempDir(), "floor.wasm")
		cmd := exec.Command("go", "build", "-buildmode=c-shared", "-o", path, "github.com/normgym/normgym/wasm/internal/floor/module")
		cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
		if out, err := cmd.CombinedOutput(); err != nil {
			floorErr = fmt.Errorf("building the floor module: %v\n%s", err, out)
			return
		}
		wasm, err := os.ReadFile(path)
		if err != nil {
			floorErr = err
			return
		}
		rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().WithCloseOnContextDone(false))
		wasi_snapshot_preview1.MustInstantiate(ctx, rt)
		floorMod, floorErr = rt.InstantiateWithConfig(ctx, wasm, wazero.NewModuleConfig().WithStartFunctions("_initialize"))
	})
	if floorErr != nil {
		tb.Fatal(floorErr)
	}
	return floorMod
}

// fastest runs do n times and returns the shortest time it took (the
// first run, which warms up, counts only if it is the fastest).
func fastest(n int, do func()) time.Duration {
	best := time.Duration(1<<63 - 1)
	for range n {
		start := time.Now()
		do()
		best = min(best, time.Since(start))
	}
	return best
}

// ratioStepVisits are the visits BenchmarkRatio/step plays: every
// seventh of the mini suite (each family, world and condition, and a
// control visit).
var ratioStepVisits = func() []string {
	mini, err := sim.LookupSuite("mini")
	if err != nil {
		panic(err)
	}
	var out []string
	for k := 0; k < len(mini.Visits); k += 7 {
		out = append(out, mini.Visits[k])
	}
	return out
}()

// playNative plays visit with greedy natively, rendering every text, and
// returns the number of steps.
func playNative(tb testing.TB, visit string) int {
	p, _ := agents.New("greedy")
	env, obs, err := sim.NewVisit(visit)
	if err != nil {
		tb.Fatal(err)
	}
	_ = obs.Text()
	n := 0
	for !env.Over() {
		res, err := env.Step(p.Act(obs))
		if err != nil {
			tb.Fatal(err)
		}
		obs = res.Observation
		_ = obs.Text()
		n++
	}
	return n
}

// greedyActions returns the actions greedy takes over visit, natively.
func greedyActions(tb testing.TB, visit string) []sim.Action {
	p, _ := agents.New("greedy")
	env, obs, err := sim.NewVisit(visit)
	if err != nil {
		tb.Fatal(err)
	}
	var actions []sim.Action
	for !env.Over() {
		a := p.Act(obs)
		res, err := env.Step(a)
		if err != nil {
			tb.Fatal(err)
		}
		actions, obs = append(actions, a), res.Observation
	}
	return actions
}

// replayNative replays actions over visit natively, rendering every text.
func replayNative(tb testing.TB, visit string, actions []sim.Action) {
	env, obs, err := sim.NewVisit(visit)
	if err != nil {
		tb.Fatal(err)
	}
	_ = obs.Text()
	for _, a := range actions {
		res, err := env.Step(a)
		if err != nil {
			tb.Fatal(err)
		}
		_ = res.Observation.Text()
	}
}

// replayModuleText replays actions over visit through r's text-only
// step and checks that the visit ends with the last one.
func replayModuleText(tb testing.TB, r *host.Runtime, visit string, actions []sim.Action) {
	ctx := context.Background()
	v, _, _, err := r.Reset(ctx, visit)
	if err != nil {
		tb.Fatal(err)
	}
	defer v.Close(ctx)
	var res host.StepResult
	for _, a := range actions {
		if res, err = v.StepText(ctx, a.String()); err != nil {
			tb.Fatal(err)
		}
	}
	if !res.Over {
		tb.Fatalf("%s: not over after greedy's %d actions through the module", visit, len(actions))
	}
}

// playModule plays visit with greedy through r's step export and returns
// the number of steps.
func playModule(tb testing.TB, r *host.Runtime, visit string) int {
	ctx := context.Background()
	p, _ := agents.New("greedy")
	v, obs, _, err := r.Reset(ctx, visit)
	if err != nil {
		tb.Fatal(err)
	}
	defer v.Close(ctx)
	n := 0
	for !obs.Done {
		res, err := v.Step(ctx, p.Act(obs).String())
		if err != nil {
			tb.Fatal(err)
		}
		obs = res.Observation
		n++
	}
	return n
}
