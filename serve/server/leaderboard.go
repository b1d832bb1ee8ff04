package server

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"math"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/serve/domain"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/report"
)

// leaderboard handles GET /api/leaderboard?suite=S (default standard).
func (s *Server) leaderboard(w http.ResponseWriter, r *http.Request) error {
	b, err := s.board(r.Context(), r.URL.Query().Get("suite"))
	if err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	h.Set("Vary", "Accept-Encoding")
	body := b.json
	if accepts(r.Header.Get("Accept-Encoding"), "gzip") {
		body = b.gzipped()
		h.Set("Content-Encoding", "gzip")
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.Write(body)
	return nil
}

// board is a computed leaderboard, kept by boards.
type board struct {
	lb     api.Leaderboard
	json   []byte
	seq    int64     // the store's last run when computed
	at     time.Time // when computed
	gzOnce sync.Once
	gz     []byte
}

func (b *board) gzipped() []byte {
	b.gzOnce.Do(func() {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
		zw.Write(b.json)
		zw.Close()
		b.gz = buf.Bytes()
	})
	return b.gz
}

// boards caches leaderboards by suite. A board is recomputed when runs
// were stored since it was computed (the store's last Seq moved), at most
// once per Options.BoardTTL; while one request recomputes, others get the
// previous board.
type boards struct {
	mu      sync.Mutex
	entries map[string]*board
	busy    map[string]chan struct{}
}

// boardMaxAge bounds how long a board is kept while no run is stored:
// sealed sessions open and are abandoned without storing runs, and the
// figures count them.
const boardMaxAge = 30 * time.Second

// board returns the leaderboard of a suite's current version.
func (s *Server) board(ctx context.Context, name string) (*board, error) {
	if name == "" {
		name = assignSuite
	}
	su, err := sim.LookupSuite(name)
	if p := s.opts.Private; err != nil && p != nil && name == p.Name {
		su, err = sim.Suite{Name: p.Name, Version: p.Version}, nil
	}
	if err != nil {
		return nil, errf(api.CodeInvalid, "unknown suite %q (want one of %s)", clip(name), strings.Join(s.suiteNames(), ", "))
	}
	c := &s.boards
	for {
		seq, err := s.store.LastSeq(ctx)
		if err != nil {
			return nil, err
		}
		c.mu.Lock()
		b := c.entries[su.Name]
		if b != nil && (b.seq == seq && s.now().Sub(b.at) < boardMaxAge || s.now().Sub(b.at) < s.opts.BoardTTL) {
			c.mu.Unlock()
			return b, nil
		}
		if wait, ok := c.busy[su.Name]; ok {
			c.mu.Unlock()
			if b != nil {
				return b, nil
			}
			select {
			case <-wait:
				continue
			case <-ctx.Done():
				return nil, errf(api.CodeTimeout, "the request ended while the leaderboard was computed")
			}
		}
		done := make(chan struct{})
		c.busy[su.Name] = done
		c.mu.Unlock()
		nb, err := s.computeBoard(ctx, su, seq)
		c.mu.Lock()
		delete(c.busy, su.Name)
		if err == nil {
			c.entries[su.Name] = nb
		}
		c.mu.Unlock()
		close(done)
		return nb, err
	}
}

// computeBoard builds a suite's leaderboard from the store's totals.
func (s *Server) computeBoard(ctx context.Context, su sim.Suite, seq int64) (*board, error) {
	at := s.now()
	totals, err := s.store.Board(ctx, su.Name, su.Version, s.now().Add(-s.opts.SessionTTL))
	if err != nil {
		return nil, err
	}
	lb := api.Leaderboard{Suite: su.Name, SuiteVersion: su.Version, SimSHA256: s.verify.SHA256(), Agents: Summaries(su.Name, totals),
		Suites: s.suiteNames()}
	lb.Agents, lb.MoreSelfReported = capSelfReported(lb.Agents, MaxSelfReportedRows)
	visits := su.Visits
	if p := s.opts.Private; p != nil && su.Name == p.Name {
		visits = p.Visits
	}
	if err := s.addCoverage(ctx, su.Name, su.Version, visits, lb.Agents); err != nil {
		return nil, err
	}
	if p := s.opts.Private; p != nil && su.Name != p.Name {
		// The contamination-resistant column: each row's joint success
		// on the private suite, whose norms were never published.
		pt, err := s.store.Board(ctx, p.Name, p.Version, s.now().Add(-s.opts.SessionTTL))
		if err != nil {
			return nil, err
		}
		private := map[[3]string]*domain.Totals{}
		for _, c := range pt.Cells {
			if !counts(c.Client, c.Provenance) {
				continue
			}
			k := [3]string{c.Client, c.Agent, c.Provenance}
			if private[k] == nil {
				private[k] = &domain.Totals{}
			}
			private[k].AddCounts(c.Totals)
		}
		lb.PrivateSuite = p.Name
		for i, a := range lb.Agents {
			if t := private[[3]string{a.Client, a.Agent, a.Provenance}]; t != nil {
				r := report.Wilson(t.Joint, t.Visits())
				lb.Agents[i].Private = &r
			}
		}
	}
	body, err := json.Marshal(lb)
	if err != nil {
		return nil, err
	}
	return &board{lb: lb, json: append(body, '\n'), seq: seq, at: at}, nil
}

// Summaries turns totals into one entry per client, agent and provenance,
// as report.Summarize does for records, the boardRows the server vouches for
// (baselines, sealed sessions, keyed models) before the self-reported
// ones, each part ordered by joint success (best first), then runs, then
// name. A boardRow counts only runs of the provenance it claims: human boardRows
// only server-stepped runs (sealed sessions), baseline boardRows only the
// server's own; model boardRows are server-stepped (a submitter key's) or
// self-reported, each its own boardRow. A server-stepped boardRow also counts its
// abandoned sealed sessions, as visits without success.
func Summaries(suite string, totals domain.BoardTotals) []api.LeaderboardEntry {
	rs := boardRows{byKey: map[[3]string]*boardRow{}}
	for _, c := range totals.Cells {
		if counts(c.Client, c.Provenance) {
			rs.get(c.Client, c.Agent, c.Provenance).addCell(c)
		}
	}
	for _, c := range totals.Worlds {
		if counts(c.Client, c.Provenance) {
			totalsOf(rs.get(c.Client, c.Agent, c.Provenance).wd, c.World).AddCounts(c.Totals)
		}
	}
	for _, c := range totals.Sessions {
		// A session's kind is its run's client.
		rs.get(c.Kind, c.Agent, api.ProvenanceStepped).addSessions(c, totals.Owners[[2]string{c.Kind, c.Agent}])
	}
	out := make([]api.LeaderboardEntry, 0, len(rs.order))
	for _, r := range rs.order {
		out = append(out, r.entry(suite))
	}
	sortEntries(out)
	return out
}

// boardRows are a leaderboard's rows as they are summed, in first-seen order.
type boardRows struct {
	byKey map[[3]string]*boardRow
	order []*boardRow
}

// get returns the boardRow of a client, agent and provenance, made if need be.
func (rs *boardRows) get(client, agent, prov string) *boardRow {
	key := [3]string{client, agent, prov}
	r := rs.byKey[key]
	if r == nil {
		r = &boardRow{client: client, agent: agent, prov: prov, cond: map[string]*domain.Totals{}, fam: map[string]*domain.Totals{},
			wd: map[string]*domain.Totals{}, shas: map[string]bool{}}
		rs.byKey[key] = r
		rs.order = append(rs.order, r)
	}
	return r
}

// boardRow is one leaderboard row's totals: in all, by condition, family and
// world, the sim.wasm hashes of its runs and its sealed sessions.
type boardRow struct {
	client, agent, prov string
	all                 domain.Totals
	cond, fam, wd       map[string]*domain.Totals
	shas                map[string]bool
	sess                *api.SessionCounts
}

// totalsOf returns m's totals of k, made if need be.
func totalsOf(m map[string]*domain.Totals, k string) *domain.Totals {
	if m[k] == nil {
		m[k] = &domain.Totals{}
	}
	return m[k]
}

// familyKey is a family as the board names it ("control" for none).
func familyKey(f string) string {
	if f == "" {
		return "control"
	}
	return f
}

func (r *boardRow) addCell(c domain.Cell) {
	r.all.AddCounts(c.Totals)
	totalsOf(r.cond, c.Condition).AddCounts(c.Totals)
	totalsOf(r.fam, familyKey(c.Family)).AddCounts(c.Totals)
	r.shas[c.SimSHA256] = true
}

// addSessions counts a cell of sealed sessions; participants is the boardRow's
// number of distinct participants. Every sealed session counts: an
// abandoned one is a visit of the boardRow with no success.
func (r *boardRow) addSessions(c domain.SessionCell, participants int) {
	if r.sess == nil {
		r.sess = &api.SessionCounts{Participants: participants}
	}
	r.sess.Opened += c.Opened
	r.sess.Finished += c.Finished
	r.sess.Open += c.Open
	r.sess.Abandoned += c.Abandoned()
	ab := domain.Totals{Abandoned: c.Abandoned()}
	r.all.AddCounts(ab)
	totalsOf(r.cond, c.Condition).AddCounts(ab)
	totalsOf(r.fam, familyKey(c.Family)).AddCounts(ab)
}

// entry is the boardRow as the leaderboard shows it.
func (r *boardRow) entry(suite string) api.LeaderboardEntry {
	sm := report.Summary{Suite: suite, Agent: r.agent, Visits: r.all.Visits(), Breakdown: r.all.Breakdown(),
		ByCondition: report.Breakdowns(r.cond), ByFamily: report.Breakdowns(r.fam), ByWorld: report.Breakdowns(r.wd)}
	shas := make([]string, 0, len(r.shas))
	for k := range r.shas {
		shas = append(shas, k)
	}
	sort.Strings(shas)
	sm.SimSHA256 = strings.Join(shas, ",")
	o, okO := sm.ByCondition[sim.Observe]
	so, okS := sm.ByCondition[sim.Solo]
	if okO && okS {
		gap := round4(o.Joint.Rate - so.Joint.Rate)
		sm.Gap = &gap
	}
	if r.sess != nil {
		r.sess.Completion = report.Wilson(r.sess.Finished, r.sess.Finished+r.sess.Abandoned)
	}
	return api.LeaderboardEntry{Client: r.client, Provenance: r.prov, Sessions: r.sess, Summary: sm}
}

// sortEntries orders boardRows: the ones the server vouches for first (a
// self-reported boardRow's player is only the submitter's word), then by joint
// success, runs, agent, client and provenance.
func sortEntries(out []api.LeaderboardEntry) {
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if sa, sb := a.Provenance == api.ProvenanceSelfReported, b.Provenance == api.ProvenanceSelfReported; sa != sb {
			return sb
		}
		if a.Joint.Rate != b.Joint.Rate {
			return a.Joint.Rate > b.Joint.Rate
		}
		if a.Visits != b.Visits {
			return a.Visits > b.Visits
		}
		if a.Agent != b.Agent {
			return a.Agent < b.Agent
		}
		if a.Client != b.Client {
			return a.Client < b.Client
		}
		return a.Provenance < b.Provenance
	})
}

// MaxSelfReportedRows bounds the self-reported rows a leaderboard shows:
// anyone may submit under any acceptable name, and the board must stay
// readable.
const MaxSelfReportedRows = 50

// capSelfReported keeps the first max self-reported rows of rows (which
// Summaries put last) and says how many it left out.
func capSelfReported(rows []api.LeaderboardEntry, max int) ([]api.LeaderboardEntry, int) {
	n := 0
	for i, r := range rows {
		if r.Provenance != api.ProvenanceSelfReported {
			continue
		}
		if n == max {
			return rows[:i], len(rows) - i
		}
		n++
	}
	return rows, 0
}

// counts reports whether runs of a client with a provenance count for the
// leaderboard: a person's only if the server stepped them, a baseline's
// only if the server computed them, a model's always (its row says which).
func counts(client, prov string) bool {
	switch client {
	case "human":
		return prov == api.ProvenanceStepped
	case "baseline":
		return prov == api.ProvenanceServer
	}
	return true
}

// suiteNames lists the public suites and the private one, if any.
func (s *Server) suiteNames() []string {
	names := sim.SuiteNames()
	if p := s.opts.Private; p != nil {
		names = append(names, p.Name)
	}
	return names
}

func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }
