package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/serve/domain"
	"github.com/normgym/normgym/sim/agents"
)

// The baselines on a study's own visits. Each participant played a visit
// under a secret seed that no baseline has played; once the visit is
// played (its seed revealed to the participant with the result), the
// server plays the baselines on it with its native core and stores their
// runs in the study's scope (room "study:CODE", provenance server), so the
// dashboard compares people and baselines on the very same visits. The
// runs are computed when the dashboard is read, at most maxBaselinePlays
// a request (the Workers build restarts for every request), and stored
// once: the next read finds them.

// studyBaselineAgents are the baselines a study's participants are
// compared with on their own visits.
var studyBaselineAgents = []string{"random", "greedy", "self", "observer", "oracle"}

// maxBaselinePlays bounds the baseline visits played for one request.
const maxBaselinePlays = 60

// studyBaselines returns each played visit's baseline joint success by
// agent, playing those not stored yet (within the bound).
func (s *Server) studyBaselines(ctx context.Context, st domain.Study, rows []domain.StudyRow) (map[string]map[string]bool, error) {
	scope := studyScopePrefix + st.Code
	out := map[string]map[string]bool{}
	set := func(visit, agent string, joint bool) {
		if out[visit] == nil {
			out[visit] = map[string]bool{}
		}
		out[visit][agent] = joint
	}
	f := domain.RunFilter{Room: scope, Limit: exportPage}
	for {
		runs, err := s.store.Runs(ctx, f)
		if err != nil {
			return nil, err
		}
		for _, run := range runs {
			if run.Record.Client == "baseline" {
				set(run.Record.Visit, run.Record.Agent, run.Record.Scores.Joint)
			}
			f.After = run.Seq
		}
		if len(runs) < f.Limit {
			break
		}
	}
	plays := 0
	for _, p := range rows {
		if p.Run == nil {
			continue
		}
		for _, agent := range studyBaselineAgents {
			if _, ok := out[p.Visit][agent]; ok {
				continue
			}
			if plays++; plays > maxBaselinePlays {
				return out, nil
			}
			joint, err := s.storeStudyBaseline(ctx, st, p.Visit, agent)
			if err != nil {
				return nil, err
			}
			set(p.Visit, agent, joint)
		}
	}
	return out, nil
}

// storeStudyBaseline plays a baseline on a study's visit natively and
// stores its run in the study's scope; it returns the joint success.
func (s *Server) storeStudyBaseline(ctx context.Context, st domain.Study, visit, agent string) (bool, error) {
	env, err := agents.Play(visit, agent)
	if err != nil {
		return false, fmt.Errorf("server: baseline %s on a study visit: %w", agent, err)
	}
	sha := s.verify.SHA256()
	rec := env.Record(agent, "baseline")
	rec.SimSHA256, rec.Suite = sha, st.Design.Suite
	if _, ref, err := designCells(st.Design); err == nil {
		rec.SuiteVersion = ref.version
	}
	body, _ := json.Marshal(rec)
	c := sha256.Sum256(body)
	id := sha256.Sum256([]byte(st.Code + "\n" + sha + "\n" + visit + "\n" + agent))
	_, _, err = s.store.PutRun(ctx, domain.Run{RunID: "study-baseline-" + hex.EncodeToString(id[:])[:40], ContentSHA256: hex.EncodeToString(c[:]),
		CreatedAt: s.now().UTC(), Room: studyScopePrefix + st.Code, Verifier: "native", Provenance: api.ProvenanceServer, Record: rec})
	return rec.Scores.Joint, err
}
