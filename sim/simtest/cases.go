package simtest

import (
	"testing"

	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/agents"
)

// Case is a visit and the baseline that plays it.
type Case struct{ Visit, Policy string }

// Cases are the visits every implementation of sim.Env plays under
// CheckEnv in its own tests: each condition (control and told included),
// a transfer and both sanction variants, with learners and the random
// baseline (whose actions are often impossible). The sim's own test plays
// every world and norm besides.
func Cases() []Case {
	return []Case{
		{"orchard/place.color=blue/observe/s17", "observer"},
		{"market/social.greet=elder/solo/s3", "self"},
		{"park/none/control/s5", "greedy"},
		{"orchard>harbor/order.bow=market/told/s3", "greedy"},
		{"library/resource.carry=1/peers+noisy/s8", "random"},
		{"harbor/disposal.at=bin/observe+delayed/s9", "observer"},
	}
}

// Run runs CheckEnv over env for every case, one subtest each (env is
// reset by each, so they run in turn).
func Run(t *testing.T, env sim.Env, cases []Case) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.Policy+"/"+c.Visit, func(t *testing.T) {
			p, err := agents.New(c.Policy)
			if err != nil {
				t.Fatal(err)
			}
			CheckEnv(t, env, c.Visit, p)
		})
	}
}
