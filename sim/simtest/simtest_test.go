package simtest_test

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/agents"
	"github.com/normgym/normgym/sim/simtest"
)

// TestCheckEnvPasses: the baselines pass on visits of every kind:
// learning conditions, control, a transfer and both variants.
func TestCheckEnvPasses(t *testing.T) {
	for _, visit := range []string{
		"orchard/place.color=blue/observe/s17",
		"market/social.greet=elder/solo/s3",
		"park/none/control/s5",
		"orchard>harbor/order.bow=market/told/s3",
		"library/resource.carry=1/peers+noisy/s8",
		"harbor/disposal.at=bin/observe+delayed/s9",
	} {
		for _, name := range []string{"greedy", "random", "observer"} {
			t.Run(name+"/"+visit, func(t *testing.T) {
				t.Parallel()
				p, err := agents.New(name)
				if err != nil {
					t.Fatal(err)
				}
				env := simtest.CheckEnv(t, visit, p)
				if !env.Over() {
					t.Errorf("CheckEnv returned an env whose visit is not over")
				}
				if v, _ := sim.ParseVisitID(visit); v.Condition != sim.Control && env.ProbeAnswer() < 0 {
					t.Errorf("CheckEnv did not answer the probe")
				}
			})
		}
	}
}

// recorder is a testing.TB that records failures; Fatal ends the
// goroutine, as testing's does.
type recorder struct {
	testing.TB
	mu     sync.Mutex
	failed []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failed = append(r.failed, fmt.Sprintf(format, args...))
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	runtime.Goexit()
}

// check runs CheckEnv with a recorder and returns what it reported.
func check(visit string, p agents.Policy) []string {
	r := &recorder{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		simtest.CheckEnv(r, visit, p)
	}()
	<-done
	return r.failed
}

// badActor acts like greedy, but from step n on it does what act says.
type badActor struct {
	agents.Policy
	n      int
	act    sim.Action
	answer int
	steps  int
}

func (b *badActor) Act(o *sim.Observation) sim.Action {
	b.steps++
	if b.steps > b.n {
		return b.act
	}
	return b.Policy.Act(o)
}

func (b *badActor) Answer(*sim.Probe) int { return b.answer }

// TestCheckEnvCatchesBadPolicies: a policy whose action Step refuses, or
// whose probe answer is out of range, fails the check with a message that
// says so.
func TestCheckEnvCatchesBadPolicies(t *testing.T) {
	const visit = "orchard/place.color=blue/observe/s17"
	greedy := func() agents.Policy { p, _ := agents.New("greedy"); return p }
	tests := []struct {
		name string
		p    agents.Policy
		want string
	}{
		{"unknown verb", &badActor{Policy: greedy(), n: 5, act: sim.Action{Verb: "fly"}}, `the policy's action "fly" is refused`},
		{"empty action", &badActor{Policy: greedy(), n: 0}, "is refused"},
		{"answer out of range", &badActor{Policy: greedy(), n: 1000, answer: 7}, "the policy's answer 7 is refused"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			failed := check(visit, tc.p)
			if len(failed) != 1 || !strings.Contains(failed[0], tc.want) {
				t.Errorf("CheckEnv reported %q, want one failure containing %q", failed, tc.want)
			}
		})
	}
	if failed := check(visit, greedy()); len(failed) != 0 {
		t.Errorf("CheckEnv with greedy reported %q, want nothing", failed)
	}
}

// TestCheckObservation: an observation that names the norm, or states it
// outside told, or breaks a frame invariant, is caught.
func TestCheckObservation(t *testing.T) {
	const visit = "orchard/place.color=blue/observe/s17"
	v, err := sim.ParseVisitID(visit)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		edit func(o *sim.Observation)
		want string // in the error; "" for none
	}{
		{"as reset gives it", func(*sim.Observation) {}, ""},
		{"told outside told", func(o *sim.Observation) { o.Told = "Keep off blue tiles." }, "told ="},
		{"norm id in the task", func(o *sim.Observation) { o.Task.Text += " (place.color=blue)" }, "norm id"},
		{"another norm's id in an event", func(o *sim.Observation) { o.Events[0].Text += " resource.carry=1" }, "norm id"},
		{"visit id in the world", func(o *sim.Observation) { o.Task.Text = visit }, "visit id"},
		{"agent on water", func(o *sim.Observation) { o.Frame.At(o.Frame.Agents[1].Pos).Terrain = "water" }, "stands on water"},
		{"wrong world", func(o *sim.Observation) { o.World = "park" }, "world ="},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, o, err := sim.NewVisit(visit)
			if err != nil {
				t.Fatal(err)
			}
			tc.edit(o)
			err = simtest.CheckObservation(v, o)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("CheckObservation = %v, want nil", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("CheckObservation = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}
