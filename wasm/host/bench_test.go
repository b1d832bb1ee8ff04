package host_test

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/agents"
	"github.com/normgym/normgym/wasm/host"
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
//   - observer-standard: the observer plays every visit of the standard
//     suite (every seventh under -short): natively agents.Play, through
//     the module the run export, as normgym run --agent observer does. A
//     unit is a visit, timed twice a side.
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
	env, obs, err := sim.NewEnv(visit)
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
