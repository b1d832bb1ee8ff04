package simtest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/normgym/normgym/norms"
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
				rec := simtest.CheckEnv(t, new(sim.Native), visit, p)
				if len(rec.Actions) == 0 || rec.Hash == "" {
					t.Errorf("CheckEnv returned the record %+v of no visit", rec)
				}
				if v, _ := sim.ParseVisitID(visit); (v.Condition != sim.Control) != (rec.Probe != nil) {
					t.Errorf("CheckEnv's record has the probe answer %+v under %s", rec.Probe, v.Condition)
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

// check runs CheckEnv over env with a recorder and returns what it
// reported.
func check(env sim.Env, visit string, p agents.Policy) []string {
	r := &recorder{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		simtest.CheckEnv(r, env, visit, p)
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
			failed := check(new(sim.Native), visit, tc.p)
			if len(failed) != 1 || !strings.Contains(failed[0], tc.want) {
				t.Errorf("CheckEnv reported %q, want one failure containing %q", failed, tc.want)
			}
		})
	}
	if failed := check(new(sim.Native), visit, greedy()); len(failed) != 0 {
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

// drifted is an Env that drifts from the contract in one way.
type drifted struct {
	sim.Native
	wire    func(t sim.Turn, id string) string // what it delivers beside the turn
	step    func(n *sim.Native, action string) (sim.Turn, error)
	probe   func(n *sim.Native) (*sim.Probe, error)
	visitID string
}

func (d *drifted) Reset(ctx context.Context, visit string) (sim.Turn, error) {
	d.visitID = visit
	t, err := d.Native.Reset(ctx, visit)
	return d.deliver(t), err
}

func (d *drifted) Step(ctx context.Context, action string) (sim.Turn, error) {
	if d.step != nil {
		t, err := d.step(&d.Native, action)
		return d.deliver(t), err
	}
	t, err := d.Native.Step(ctx, action)
	return d.deliver(t), err
}

func (d *drifted) Probe(ctx context.Context) (*sim.Probe, error) {
	if d.probe != nil {
		return d.probe(&d.Native)
	}
	return d.Native.Probe(ctx)
}

func (d *drifted) deliver(t sim.Turn) sim.Turn {
	if d.wire != nil {
		t.Wire = json.RawMessage(d.wire(t, d.visitID))
	}
	return t
}

// TestCheckEnvCatchesDrift: an Env that leaks the visit in what it
// delivers, or answers the contract's calls otherwise than the core, fails
// the check with a message that says so; the same Env without the drift
// passes.
func TestCheckEnvCatchesDrift(t *testing.T) {
	const visit = "orchard/place.color=blue/solo/s17"
	const control = "park/none/control/s5"
	other, err := norms.Default().Lookup("resource.carry=1")
	if err != nil {
		t.Fatal(err)
	}
	asWire := func(fields string) func(sim.Turn, string) string {
		return func(t sim.Turn, id string) string {
			text, _ := json.Marshal(t.Text)
			return `{"text":` + string(text) + strings.ReplaceAll(fields, "ID", id) + `}`
		}
	}
	tests := []struct {
		name  string
		visit string
		env   *drifted
		want  string // "" for no failure
	}{
		{"faithful", visit, &drifted{wire: asWire(`,"stage":"play"`)}, ""},
		{"visit id delivered", visit, &drifted{wire: asWire(`,"visit":"ID"`)}, "delivered observation contains the visit id"},
		{"condition delivered", visit, &drifted{wire: asWire(`,"condition":"solo"`)}, `names the condition "solo"`},
		{"another norm delivered", visit, &drifted{wire: asWire(`,"hint":"` + other.Statement + `"`)}, "statement of " + other.ID},
		{"bad action played as wait", visit, &drifted{step: func(n *sim.Native, a string) (sim.Turn, error) {
			if _, err := sim.ParseAction(a); err != nil {
				a = "wait"
			}
			return n.Step(context.Background(), a)
		}}, `Step("fly")`},
		{"probe before the end", visit, &drifted{probe: func(n *sim.Native) (*sim.Probe, error) { return n.Visit().Probe(), nil }}, "Probe before the end"},
		{"no probe as nil", control, &drifted{probe: func(n *sim.Native) (*sim.Probe, error) {
			if n.Visit().Over() {
				return nil, nil
			}
			return n.Probe(context.Background())
		}}, "Probe under control"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, _ := agents.New("greedy")
			failed := check(tc.env, tc.visit, p)
			if tc.want == "" && len(failed) != 0 || tc.want != "" && (len(failed) != 1 || !strings.Contains(failed[0], tc.want)) {
				t.Errorf("CheckEnv reported %q, want %q", failed, tc.want)
			}
		})
	}
}
