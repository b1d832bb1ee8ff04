package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/serve/domain"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/agents"
)

// ComputeBaselines plays every baseline (agents.Names) over the visits of
// the named suites (the private suite's name included, if the server has
// one) with the native core and stores the runs the store lacks, as
// client "baseline" with provenance "server": the only baseline runs the
// leaderboard counts (submitted baseline records are refused). A baseline
// whose runs of a suite are all stored for this sim.wasm is skipped, so a
// restart recomputes nothing. Run ids are derived from the sim.wasm, the
// visit and the baseline, so that a run is never stored twice. It returns
// the number of runs stored, when done or when ctx ends.
//
// The whole standard suite takes about four minutes of one core; normgym
// serve runs it in the background after start (--baselines).
func (s *Server) ComputeBaselines(ctx context.Context, suites []string, progress func(suite, agent string, stored int)) (int, error) {
	sha := s.verify.SHA256()
	total := 0
	for _, name := range suites {
		visits, ref, err := s.suiteVisits(name, true)
		if err != nil {
			return total, err
		}
		have, err := s.baselineCounts(ctx, ref, sha)
		if err != nil {
			return total, err
		}
		for _, agent := range agents.Names() {
			if have[agent] >= len(visits) {
				continue
			}
			n := 0
			for _, v := range visits {
				if err := ctx.Err(); err != nil {
					return total, err
				}
				created, err := s.storeBaseline(ctx, v, agent, ref, sha)
				if err != nil {
					return total, err
				}
				if created {
					n++
				}
			}
			total += n
			if progress != nil {
				progress(ref.name, agent, n)
			}
		}
	}
	return total, nil
}

// baselineCounts counts the server's baseline runs of a suite version for
// the sim.wasm, by baseline.
func (s *Server) baselineCounts(ctx context.Context, ref suiteRef, sha string) (map[string]int, error) {
	b, err := s.store.Board(ctx, ref.name, ref.version, s.now())
	if err != nil {
		return nil, err
	}
	out := map[string]int{}
	for _, c := range b.Cells {
		if c.Client == "baseline" && c.Provenance == api.ProvenanceServer && c.SimSHA256 == sha {
			out[c.Agent] += c.Runs
		}
	}
	return out, nil
}

// storeBaseline plays visit with the baseline and stores the run unless
// it is stored.
func (s *Server) storeBaseline(ctx context.Context, visit, agent string, ref suiteRef, sha string) (bool, error) {
	sum := sha256.Sum256([]byte(sha + "\n" + visit + "\n" + agent))
	runID := "baseline-" + hex.EncodeToString(sum[:])[:40]
	if _, err := s.store.Run(ctx, runID); err == nil {
		return false, nil
	}
	var env *sim.Env
	var obs *sim.Observation
	var err error
	if p := s.opts.Private; p != nil && ref.name == p.Name {
		env, obs, err = sim.NewEnvIn(p.Catalog, visit)
	} else {
		env, obs, err = sim.NewEnv(visit)
	}
	if err != nil {
		return false, fmt.Errorf("server: baseline %s on %s: %w", agent, visit, err)
	}
	pol, err := agents.ForEnv(agent, env)
	if err != nil {
		return false, err
	}
	for !env.Over() {
		res, err := env.Step(pol.Act(obs))
		if err != nil {
			return false, fmt.Errorf("server: baseline %s on %s: %w", agent, visit, err)
		}
		obs = res.Observation
	}
	if pr := env.Probe(); pr != nil {
		if _, err := env.Answer(pol.Answer(pr)); err != nil {
			return false, err
		}
	}
	rec := env.Record(agent, "baseline")
	rec.SimSHA256, rec.Suite, rec.SuiteVersion = sha, ref.name, ref.version
	body, _ := json.Marshal(rec)
	c := sha256.Sum256(body)
	_, created, err := s.store.PutRun(ctx, domain.Run{RunID: runID, ContentSHA256: hex.EncodeToString(c[:]), CreatedAt: time.Now().UTC(),
		Verifier: "native", Provenance: api.ProvenanceServer, Record: rec})
	return created, err
}
