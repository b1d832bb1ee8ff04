package agents_test

import (
	"testing"
	"time"

	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/agents"
)

// BenchmarkVisit plays one whole visit per iteration with each baseline,
// the mini suite's visits in turn.
func BenchmarkVisit(b *testing.B) {
	mini, err := sim.LookupSuite("mini")
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range agents.Names() {
		b.Run(name, func(b *testing.B) {
			steps := 0
			for i := 0; i < b.N; i++ {
				id := mini.Visits[i%len(mini.Visits)]
				env, err := agents.Play(id, name)
				if err != nil {
					b.Fatal(err)
				}
				steps += len(env.Actions())
			}
			b.ReportMetric(float64(steps)/float64(b.N), "steps/visit")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(steps), "ns/step")
		})
	}
}

// BenchmarkStandardObserver plays the whole standard suite with the
// observer on runtime.GOMAXPROCS workers, per iteration.
func BenchmarkStandardObserver(b *testing.B) {
	s, err := sim.LookupSuite("standard")
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	for i := 0; i < b.N; i++ {
		if _, err := runVisits(s.Visits, []string{"observer"}, 0); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(s.Visits))/time.Since(start).Seconds(), "visits/s")
}
