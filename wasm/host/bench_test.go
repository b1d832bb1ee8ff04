package host_test

import (
	"context"
	"testing"

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
	ctx := context.Background()
	b.Run("native", func(b *testing.B) {
		steps := 0
		for b.Loop() {
			p, _ := agents.New("greedy")
			env, obs, err := sim.NewEnv(benchVisit)
			if err != nil {
				b.Fatal(err)
			}
			for !env.Over() {
				res, err := env.Step(p.Act(obs))
				if err != nil {
					b.Fatal(err)
				}
				obs = res.Observation
				_ = obs.Text()
				steps++
			}
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
				p, _ := agents.New("greedy")
				v, obs, _, err := r.Reset(ctx, benchVisit)
				if err != nil {
					b.Fatal(err)
				}
				for !obs.Done {
					res, err := v.Step(ctx, p.Act(obs).String())
					if err != nil {
						b.Fatal(err)
					}
					obs = res.Observation
					steps++
				}
				v.Close(ctx)
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
