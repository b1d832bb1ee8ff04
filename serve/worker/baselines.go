//go:build js && wasm

package main

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/normgym/normgym/sim"
)

// The variables of the baselines' Cron Trigger (wrangler.jsonc
// "triggers").
const (
	// baselinesVar lists the suites whose baseline rows the Worker
	// computes ("mini,standard" when unset, as normgym serve's
	// --baselines; "none" for none).
	baselinesVar = "NORMGYM_BASELINES"
	// baselineBudgetVar bounds one run of the trigger (a Go duration;
	// default defaultBaselineBudget).
	baselineBudgetVar = "NORMGYM_BASELINE_BUDGET"
)

// defaultBaselineBudget keeps a run of the trigger within the Workers
// paid plan's default 30 s of CPU: the Worker's clock stands still while
// it computes and moves on at each D1 query, and every baseline run
// stored makes two, so the budget is checked between runs.
const defaultBaselineBudget = 20 * time.Second

// computeBaselines is the Cron Trigger's task: it stores the server's
// baseline runs (provenance "server", verifier "native", the sim.wasm
// hash linked in at build) that D1 lacks, as normgym serve --baselines
// does, for at most the budget; the next run goes on where this one
// stopped (server.ComputeBaselines skips what is stored), and once every
// row is complete a run costs a leaderboard read per suite. It never
// fails the trigger: errors are logged.
func computeBaselines(ctx context.Context) error {
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	suites := strings.Split(secret(baselinesVar), ",")
	if secret(baselinesVar) == "" {
		suites = []string{"mini", "standard"}
	} else if secret(baselinesVar) == "none" {
		return nil
	}
	for _, s := range suites {
		if _, err := sim.LookupSuite(s); err != nil {
			log.Error("baselines", "var", baselinesVar, "err", err)
			return nil
		}
	}
	budget, msg := duration(baselineBudgetVar, "20s")
	if msg != "" {
		log.Error("baselines", "err", msg)
		return nil
	}
	if budget == 0 {
		budget = defaultBaselineBudget
	}
	srv, _, msg := newServer()
	if srv == nil {
		log.Error("baselines", "err", msg)
		return nil
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	n, err := srv.ComputeBaselines(ctx, suites, func(suite, agent string, stored int) {
		log.Info("baselines", "suite", suite, "agent", agent, "stored", stored)
	})
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		log.Info("baselines: budget spent, the next run goes on", "stored", n, "seconds", int(time.Since(start).Seconds()))
	case err != nil:
		log.Error("baselines", "stored", n, "err", err)
	default:
		log.Info("baselines done", "suites", strings.Join(suites, ","), "stored", n)
	}
	return nil
}
