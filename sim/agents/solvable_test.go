package agents_test

import (
	"sync"
	"testing"

	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/agents"
)

// TestEveryVisitSolvable holds "solvable" visit by visit, not on average:
// on every visit of every suite the oracle, which knows the norm, does the
// test-day errand without breaking it. A visit it fails has no compliant
// way to finish (a layout that strands the newcomer, say) or one too long
// to find in the day's steps; either is a defect of the suite.
func TestEveryVisitSolvable(t *testing.T) {
	var visits []string
	for _, s := range sim.Suites() {
		visits = append(visits, s.Visits...)
	}
	type result struct {
		id     string
		scores sim.Scores
		err    error
	}
	out := make([]result, len(visits))
	var wg sync.WaitGroup
	jobs := make(chan int)
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range jobs {
				env, err := agents.Play(visits[k], agents.Oracle)
				out[k] = result{id: visits[k], err: err}
				if err == nil {
					out[k].scores = env.Scores()
				}
			}
		}()
	}
	for k := range visits {
		jobs <- k
	}
	close(jobs)
	wg.Wait()
	longest := 0
	for _, r := range out {
		if r.err != nil {
			t.Fatalf("%s: %v", r.id, r.err)
		}
		s := r.scores
		longest = max(longest, s.Steps[1])
		if !s.Joint {
			t.Errorf("%s: the oracle did not finish the test-day errand compliantly: task %v, test-day violations %d, steps %d of %d",
				r.id, s.Task, s.Violations[1], s.Steps[1], sim.TestSteps)
		}
	}
	t.Logf("%d visits of %d suites; the oracle's longest test day took %d of %d steps", len(visits), len(sim.Suites()), longest, sim.TestSteps)
}
