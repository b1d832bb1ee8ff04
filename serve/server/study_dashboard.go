package server

import (
	"context"
	"math"
	"net/http"
	"slices"
	"sort"

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/serve/domain"
	"github.com/normgym/normgym/sim/report"
)

// The study dashboard (GET /api/study/CODE/dashboard, researcher): per
// cell n / target, completion and exclusion rates with the reasons,
// median time, joint success with Wilson intervals, and the comparison
// rows: the baselines on the very visits the participants played, and the
// public human row and the models on the cell's visits of the suite.

// studyPublicRow says what a study's runs are to the leaderboard.
const studyPublicRow = "A study's runs are the study's own row, shown here and in its export, never the public human row of the leaderboard: " +
	"its participants were recruited and paid through a platform, assigned by the study's quota to its cells only, and are judged by " +
	"the study's declared exclusions, so mixing them into the site's volunteers would change what that row measures. Within the study, " +
	"every participant who entered counts: those who left are in the completion rate, those excluded in the exclusion rate."

// studyDashboard handles GET /api/study/CODE/dashboard.
func (s *Server) studyDashboard(w http.ResponseWriter, r *http.Request) error {
	st, ss, err := s.findStudy(r, r.PathValue("code"))
	if err != nil {
		return err
	}
	if err := s.researcher(r, st); err != nil {
		return err
	}
	d, err := s.dashboardOf(r.Context(), ss, st)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, d)
}

// dashboardOf computes a study's dashboard.
func (s *Server) dashboardOf(ctx context.Context, ss domain.StudyStorage, st domain.Study) (api.StudyDashboard, error) {
	rows, err := s.settledRows(ctx, ss, st)
	if err != nil {
		return api.StudyDashboard{}, err
	}
	cells, ref, err := designCells(st.Design)
	if err != nil {
		return api.StudyDashboard{}, err
	}
	changes, err := ss.StudyRuleChanges(ctx, st.Code)
	if err != nil {
		return api.StudyDashboard{}, err
	}
	base, err := s.studyBaselines(ctx, st, rows)
	if err != nil {
		return api.StudyDashboard{}, err
	}
	suite, err := ss.SuiteOutcomes(ctx, ref.name, ref.version, s.now().Add(-s.opts.SessionTTL))
	if err != nil {
		return api.StudyDashboard{}, err
	}
	d := api.StudyDashboard{Code: st.Code, Status: s.quotaOf(st, cells, rows).status(), Design: st.Design, Creator: st.Creator,
		CreatedAt: st.CreatedAt, Changes: changes, PublicRow: studyPublicRow}
	d.Design.Rules = st.Rules
	var all []domain.StudyRow
	for _, c := range cells {
		var in []domain.StudyRow
		for _, p := range rows {
			if p.Cell == c.Key {
				in = append(in, p)
			}
		}
		all = append(all, in...)
		cs := s.cellStats(st, in, base, matching(suite, []studyCell{c}))
		cs.Cell, cs.Norm, cs.Family, cs.Condition, cs.Target = c.Key, c.Norm, c.Family, c.Condition, st.Design.Target
		cs.Full = cs.N >= cs.Target
		d.Cells = append(d.Cells, cs)
	}
	d.Totals = s.cellStats(st, all, base, matching(suite, cells))
	d.Totals.Cell, d.Totals.Target = "all", st.Design.Target*len(cells)
	d.Totals.Full = d.Status == api.StudyFull
	return d, nil
}

// matching returns the suite outcomes of the cells.
func matching(suite []domain.CellOutcome, cells []studyCell) []domain.CellOutcome {
	var out []domain.CellOutcome
	for _, o := range suite {
		for _, c := range cells {
			if o.Condition == c.Condition && (c.Norm != "" && o.Norm == c.Norm || c.Norm == "" && o.Family == c.Family) {
				out = append(out, o)
				break
			}
		}
	}
	return out
}

// cellStats computes the figures of a group of participants (a cell, or
// the whole study); the caller names the group and its target.
func (s *Server) cellStats(st domain.Study, rows []domain.StudyRow, base map[string]map[string]bool, suite []domain.CellOutcome) api.StudyCellStats {
	out := api.StudyCellStats{Entered: len(rows), Reasons: map[string]int{}}
	var minutes []float64
	var joint, task, comp, probeK, probeN int
	var kept []domain.StudyRow
	for _, p := range rows {
		switch s.outcome(st, p) {
		case outcomeInProgress:
			out.InProgress++
			continue
		case outcomeAbandoned:
			out.Abandoned++
			continue
		}
		out.Completed++
		minutes = append(minutes, p.Run.CreatedAt.Sub(p.EnteredAt).Minutes())
		if p.Excluded {
			out.Excluded++
			for name, v := range p.Verdicts {
				if v.Exclude {
					out.Reasons[name]++
				}
			}
			continue
		}
		kept = append(kept, p)
		joint, task, comp = joint+b2n(p.Run.Joint), task+b2n(p.Run.Task), comp+b2n(p.Run.Compliance)
		if p.Run.ProbeCorrect != nil {
			probeN, probeK = probeN+1, probeK+b2n(*p.Run.ProbeCorrect)
		}
	}
	out.N = len(kept)
	out.Completion = report.Wilson(out.Completed, out.Completed+out.Abandoned)
	out.Exclusion = report.Wilson(out.Excluded, out.Completed)
	out.Median = median(minutes)
	out.Joint, out.Task, out.Compliance = report.Wilson(joint, out.N), report.Wilson(task, out.N), report.Wilson(comp, out.N)
	out.Probe = report.Wilson(probeK, probeN)
	out.Compare = append(sameVisits(kept, base), suiteRows(suite)...)
	return out
}

// sameVisits is each baseline's joint success on the visits of rows.
func sameVisits(rows []domain.StudyRow, base map[string]map[string]bool) []api.StudyCompare {
	var out []api.StudyCompare
	for _, agent := range studyBaselineAgents {
		k, n := 0, 0
		for _, p := range rows {
			if j, ok := base[p.Visit][agent]; ok {
				n, k = n+1, k+b2n(j)
			}
		}
		if n > 0 {
			out = append(out, api.StudyCompare{Client: "baseline", Agent: agent, Provenance: api.ProvenanceServer, Source: "same visits",
				Joint: report.Wilson(k, n)})
		}
	}
	return out
}

// suiteRows is the joint success of the public human row and of each
// model row on the outcomes (the cell's visits of the suite); an
// abandoned public session counts as a visit without success.
func suiteRows(suite []domain.CellOutcome) []api.StudyCompare {
	type key struct{ client, agent, prov string }
	k, n := map[key]int{}, map[key]int{}
	var keys []key
	for _, o := range suite {
		if o.Client == "baseline" || o.Client == "human" && o.Provenance != api.ProvenanceStepped {
			continue // baselines: on the same visits; humans: sealed sessions only
		}
		kk := key{o.Client, o.Agent, o.Provenance}
		if _, ok := n[kk]; !ok {
			keys = append(keys, kk)
		}
		k[kk] += o.Joint
		n[kk] += o.Runs + o.Abandoned
	}
	sort.Slice(keys, func(i, j int) bool {
		if (keys[i].client == "human") != (keys[j].client == "human") {
			return keys[i].client == "human"
		}
		return keys[i].agent+keys[i].prov < keys[j].agent+keys[j].prov
	})
	var out []api.StudyCompare
	for _, kk := range keys {
		out = append(out, api.StudyCompare{Client: kk.client, Agent: kk.agent, Provenance: kk.prov, Source: "suite", Joint: report.Wilson(k[kk], n[kk])})
	}
	return out
}

// median is the median of xs, rounded to a tenth (0 for none).
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	xs = slices.Clone(xs)
	slices.Sort(xs)
	m := xs[len(xs)/2]
	if len(xs)%2 == 0 {
		m = (xs[len(xs)/2-1] + m) / 2
	}
	return math.Round(m*10) / 10
}

func b2n(b bool) int {
	if b {
		return 1
	}
	return 0
}
