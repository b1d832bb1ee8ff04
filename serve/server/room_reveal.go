package server

import (
	"net/http"
	"regexp"
	"sort"
	"strings"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/serve/domain"
	"github.com/normgym/normgym/sim"
)

// reveal handles GET /api/rooms/CODE/reveal: for the teacher only, each
// visit played in the room with its rule and how the class did, for the
// class's discussion (api.Reveal). The first reveal is recorded: from then
// on a room of one visit shows its students their visit, record and probe
// verdict (room_hold.go).
func (s *Server) reveal(w http.ResponseWriter, r *http.Request) error {
	room, err := s.teacherRoom(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	// From now on the class's results are theirs to see (room_hold.go).
	if err := s.recordReveal(ctx, room); err != nil {
		return err
	}
	members, err := s.members(ctx, room)
	if err != nil {
		return err
	}
	out := api.Reveal{Code: room.Code, Name: room.Name, SameVisit: len(room.Visits) == 1, Members: len(members), Visits: []api.VisitReveal{}}
	for _, m := range members {
		if m.Playing {
			out.Playing++
		}
	}
	type tally struct {
		api.VisitReveal
		students map[string]bool
		did      map[string]int
	}
	byVisit := map[string]*tally{}
	var order []string
	visit := func(v string) *tally {
		t := byVisit[v]
		if t == nil {
			t = &tally{VisitReveal: s.visitReveal(v), students: map[string]bool{}, did: map[string]int{}}
			byVisit[v] = t
			order = append(order, v)
		}
		return t
	}
	if out.SameVisit {
		visit(room.Visits[0])
	}
	f := domain.RunFilter{Room: room.Code, Limit: exportPage}
	for read := 0; read < maxRevealRuns; {
		runs, err := s.store.Runs(ctx, f)
		if err != nil {
			return err
		}
		for _, run := range runs {
			rec := run.Record
			t := visit(rec.Visit)
			t.Runs++
			t.students[run.Participant] = true
			sc := rec.Scores
			t.Task += b2i(sc.Task)
			t.Compliance += b2i(sc.Compliance)
			t.Joint += b2i(sc.Joint)
			for d := 0; d < sim.Days; d++ {
				t.Violations[d] += day(sc.Violations, d)
				t.Sanctions[d] += day(sc.Sanctions, d)
			}
			if p := rec.Probe; p != nil && t.Probe != nil && p.Answer >= 0 && p.Answer < len(t.Probe.Answers) {
				t.Probe.Answers[p.Answer]++
			}
			for _, ev := range rec.Events {
				if ev.Kind == "sanction" && ev.To == sim.NewcomerID && ev.Did != "" {
					t.did[didPhrase(ev.Did)]++
				}
			}
			f.After = run.Seq
		}
		read += len(runs)
		if len(runs) < f.Limit {
			break
		}
	}
	for _, v := range order {
		t := byVisit[v]
		t.Students = len(t.students)
		for d, n := range t.did {
			t.Sanctioned = append(t.Sanctioned, api.SanctionCount{Did: d, N: n})
		}
		sort.Slice(t.Sanctioned, func(i, j int) bool {
			a, b := t.Sanctioned[i], t.Sanctioned[j]
			return a.N > b.N || a.N == b.N && a.Did < b.Did
		})
		if len(t.Sanctioned) > 10 {
			t.Sanctioned = t.Sanctioned[:10]
		}
		out.Visits = append(out.Visits, t.VisitReveal)
	}
	sort.SliceStable(out.Visits, func(i, j int) bool { return out.Visits[i].Runs > out.Visits[j].Runs })
	return writeJSON(w, http.StatusOK, out)
}

// visitReveal is a visit's rule and probe, with nothing counted yet.
func (s *Server) visitReveal(visit string) api.VisitReveal {
	vr := api.VisitReveal{Visit: visit, Label: VisitLabel(visit), Violations: make([]int, sim.Days), Sanctions: make([]int, sim.Days),
		Sanctioned: []api.SanctionCount{}}
	id, err := sim.ParseVisitID(visit)
	if err != nil {
		return vr
	}
	vr.World, vr.Condition = id.World, id.Condition
	if n, err := norms.Default().Lookup(id.Norm); err == nil {
		vr.Norm, vr.Family, vr.Rule = n.ID, n.Family, n.Statement
	}
	if info, ok := s.probeInfo(visit); ok {
		vr.Probe = &api.VisitProbe{Visit: visit, Label: vr.Label, Question: info.Question, Options: info.Options,
			Correct: info.correct, Answers: make([]int, len(info.Options))}
	}
	return vr
}

// didWhere is the place in a sanction's account of the act: "2,8 (red
// stone, plaza)".
var didWhere = regexp.MustCompile(`\d+,\d+ \(([^)]*)\)`)

// didPhrase words a sanction's account of what the newcomer had just
// done (sim's "had just walked north onto 2,8 (red stone, plaza)") for a
// class that compares the acts: without the tile's coordinates, which
// differ between layouts and mean little on a projector ("Walked north
// onto red stone, plaza").
func didPhrase(did string) string {
	d := strings.TrimPrefix(did, "had just ")
	d = didWhere.ReplaceAllString(d, "$1")
	if d == "" {
		return d
	}
	return strings.ToUpper(d[:1]) + d[1:]
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// probeInfo is a visit's probe with the index of the rule.
type probeInfo struct {
	sim.Probe
	correct int
}

// probeInfo returns a visit's probe (computed by the native core once).
func (s *Server) probeInfo(visit string) (probeInfo, bool) {
	if v, ok := s.probes.Load(visit); ok {
		return v.(probeInfo), true
	}
	env, _, err := sim.NewVisit(visit)
	if err != nil {
		return probeInfo{}, false
	}
	p := env.Probe()
	if p == nil {
		return probeInfo{}, false
	}
	info := probeInfo{Probe: sim.Probe{Question: p.Question, Options: p.Options}, correct: -1}
	for k := range p.Options {
		if p.Correct(k) {
			info.correct = k
		}
	}
	s.probes.Store(visit, info)
	return info, true
}
