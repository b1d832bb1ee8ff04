package server

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"html"
	"io"
	"math"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/normgym/normgym/norms"
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
			private[k].Add(c.Totals)
		}
		lb.PrivateSuite = p.Name
		for i, a := range lb.Agents {
			if t := private[[3]string{a.Client, a.Agent, a.Provenance}]; t != nil {
				r := report.Wilson(t.Joint, t.Runs)
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
// as report.Summarize does for records, the rows the server vouches for
// (baselines, sealed sessions, keyed models) before the self-reported
// ones, each part ordered by joint success (best first), then runs, then
// name. A row counts only runs of the provenance
// it claims: human rows only server-stepped runs (sealed sessions),
// baseline rows only the server's own; model rows are server-stepped (a
// submitter key's) or self-reported, each its own row.
func Summaries(suite string, totals domain.BoardTotals) []api.LeaderboardEntry {
	type group struct {
		client, agent, prov string
		all                 domain.Totals
		cond, fam, wd       map[string]*domain.Totals
		shas                map[string]bool
		sess                *api.SessionCounts
	}
	groups := map[[3]string]*group{}
	var order []*group
	get := func(m map[string]*domain.Totals, k string) *domain.Totals {
		if m[k] == nil {
			m[k] = &domain.Totals{}
		}
		return m[k]
	}
	groupOf := func(client, agent, prov string) *group {
		key := [3]string{client, agent, prov}
		g := groups[key]
		if g == nil {
			g = &group{client: client, agent: agent, prov: prov, cond: map[string]*domain.Totals{}, fam: map[string]*domain.Totals{},
				wd: map[string]*domain.Totals{}, shas: map[string]bool{}}
			groups[key] = g
			order = append(order, g)
		}
		return g
	}
	for _, c := range totals.Cells {
		if !counts(c.Client, c.Provenance) {
			continue
		}
		g := groupOf(c.Client, c.Agent, c.Provenance)
		g.all.Add(c.Totals)
		get(g.cond, c.Condition).Add(c.Totals)
		f := c.Family
		if f == "" {
			f = "control"
		}
		get(g.fam, f).Add(c.Totals)
		g.shas[c.SimSHA256] = true
	}
	for _, c := range totals.Worlds {
		if counts(c.Client, c.Provenance) {
			get(groupOf(c.Client, c.Agent, c.Provenance).wd, c.World).Add(c.Totals)
		}
	}
	// Every sealed session counts: an abandoned one is a visit of its row
	// with no success.
	for _, c := range totals.Sessions {
		g := groupOf(c.Kind, c.Agent, api.ProvenanceStepped) // a session's kind is its run's client
		if g.sess == nil {
			g.sess = &api.SessionCounts{Participants: totals.Owners[[2]string{c.Kind, c.Agent}]}
		}
		g.sess.Opened += c.Opened
		g.sess.Finished += c.Finished
		g.sess.Open += c.Open
		g.sess.Abandoned += c.Abandoned()
		ab := domain.Totals{Abandoned: c.Abandoned()}
		g.all.Add(ab)
		get(g.cond, c.Condition).Add(ab)
		f := c.Family
		if f == "" {
			f = "control"
		}
		get(g.fam, f).Add(ab)
	}
	out := make([]api.LeaderboardEntry, 0, len(order))
	for _, g := range order {
		sm := report.Summary{Suite: suite, Agent: g.agent, Visits: g.all.Runs + g.all.Abandoned, Breakdown: Breakdown(g.all),
			ByCondition: breakdowns(g.cond), ByFamily: breakdowns(g.fam), ByWorld: breakdowns(g.wd)}
		shas := make([]string, 0, len(g.shas))
		for k := range g.shas {
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
		if g.sess != nil {
			g.sess.Completion = report.Wilson(g.sess.Finished, g.sess.Finished+g.sess.Abandoned)
		}
		out = append(out, api.LeaderboardEntry{Client: g.client, Provenance: g.prov, Sessions: g.sess, Summary: sm})
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		// Rows the server vouches for come first: a self-reported row's
		// player is only the submitter's word.
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
	return out
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

// Breakdown computes report.Breakdown from totals, exactly as
// report.Summarize does from the records. Abandoned sealed sessions are
// visits without success: they count in Visits, Joint and Task; the other
// figures, which need a finished visit, are over the runs.
func Breakdown(t domain.Totals) report.Breakdown {
	n := t.Runs + t.Abandoned
	b := report.Breakdown{Visits: n, Joint: report.Wilson(t.Joint, n), Task: report.Wilson(t.Task, n),
		Compliance: report.Wilson(t.Compliance, t.Runs), Probe: report.Wilson(t.ProbeCorrect, t.ProbeAnswered),
		ProbeTold: report.Wilson(t.ToldCorrect, t.ToldAnswered), Violations: []float64{},
		Findings: report.Findings{AfterOwn: report.Wilson(t.LearnedOK[0], t.Learned[0]),
			AfterWitnessOnly: report.Wilson(t.LearnedOK[1], t.Learned[1]), AfterNeither: report.Wilson(t.LearnedOK[2], t.Learned[2]),
			RepeatAfterOwn: report.Wilson(t.RepeatAfterOwn, t.Learned[0])}}
	if t.Runs > 0 {
		for _, v := range t.Violations {
			b.Violations = append(b.Violations, round4(float64(v)/float64(t.Runs)))
		}
		b.Sanctions = round4(float64(t.Sanctions) / float64(t.Runs))
	}
	return b
}

func breakdowns(m map[string]*domain.Totals) map[string]report.Breakdown {
	out := make(map[string]report.Breakdown, len(m))
	for k, t := range m {
		out[k] = Breakdown(*t)
	}
	return out
}

func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }

// leaderboardPage handles GET /leaderboard?suite=S: the leaderboard as HTML.
// It is written out by hand rather than with html/template, which would
// keep every method of the program alive and push the Workers build over
// its size limit.
func (s *Server) leaderboardPage(w http.ResponseWriter, r *http.Request) error {
	b, err := s.board(r.Context(), r.URL.Query().Get("suite"))
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	_, err = io.WriteString(w, leaderboardHTML(b.lb))
	return err
}

// leaderboardHTML renders the leaderboard page; every value from data is escaped.
func leaderboardHTML(lb api.Leaderboard) string {
	esc := html.EscapeString
	rate := func(r report.Rate) string {
		if r.N == 0 {
			return "–"
		}
		return strconvF(100*r.Rate) + "%<small> [" + strconvF(100*r.Lo) + ", " + strconvF(100*r.Hi) + "] n=" + strconv.Itoa(r.N) + "</small>"
	}
	conds := sim.Conditions()
	fams := append(norms.Default().Families(), "control")
	sha := lb.SimSHA256
	if len(sha) > 12 {
		sha = sha[:12]
	}
	var b strings.Builder
	b.WriteString(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>NormGym leaderboard — ` + esc(lb.Suite) + `</title>
<style>
body{font:15px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:80rem;padding:0 1rem;color:#222}
table{border-collapse:collapse;margin:1rem 0 2rem;font-variant-numeric:tabular-nums}
th,td{border-bottom:1px solid #ddd;padding:.35rem .6rem;text-align:right;vertical-align:top}
th:first-child,td:first-child{text-align:left}small{color:#666;display:block}
nav a{margin-right:.8rem}.cur{font-weight:bold}
</style></head><body><main>
<h1>NormGym leaderboard</h1>
<nav>`)
	for _, name := range lb.Suites {
		cur := ""
		if name == lb.Suite {
			cur = ` class="cur"`
		}
		b.WriteString(`<a href="?suite=` + esc(name) + `"` + cur + `>` + esc(name) + `</a>`)
	}
	b.WriteString(`</nav>
<p>Suite <b>` + esc(lb.Suite) + `</b> v` + esc(lb.SuiteVersion) + `. Joint success = the test-day task done without breaking the norm; 95% Wilson intervals.
The observational-learning gap is joint(observe) − joint(solo). Every run was replayed or stepped by this server (sim.wasm <code>` + esc(sha) + `</code>).
Each row says its provenance: <b>server</b> (a baseline this server computed), <b>server-stepped</b> (the server stepped the sim for the player, who sent only actions: a person's sealed session, or a submitter key's model)
or <b>self-reported</b> (a submitted record: replayed, but who played it is the submitter's word). Human rows count sealed sessions only,
each from the moment it was opened: a session abandoned unfinished is a visit without success. Classroom runs are their class's, not on this board.</p>
`)
	if len(lb.Agents) == 0 {
		b.WriteString("<p>No runs yet.</p>\n")
	} else {
		b.WriteString("<h2>Joint success by condition</h2>\n<table><tr><th>agent</th><th>runs</th><th>joint</th>")
		for _, c := range conds {
			b.WriteString("<th>" + esc(c) + "</th>")
		}
		b.WriteString("<th>gap</th><th>probe</th>")
		if lb.PrivateSuite != "" {
			b.WriteString("<th>" + esc(lb.PrivateSuite) + "<small>unpublished norms</small></th>")
		}
		b.WriteString("</tr>\n")
		for _, a := range lb.Agents {
			b.WriteString("<tr><td>" + esc(a.Agent) + "<small>" + esc(a.Client) + " · " + esc(a.Provenance) + "</small>" + sessionsNote(a.Sessions) + "</td><td>" + strconv.Itoa(a.Visits) + "</td><td>" + rate(a.Joint) + "</td>")
			for _, c := range conds {
				b.WriteString("<td>" + rate(a.ByCondition[c].Joint) + "</td>")
			}
			gap := "–"
			if a.Gap != nil {
				gap = strconvF(100*(*a.Gap)) + " pts"
			}
			b.WriteString("<td>" + gap + "</td><td>" + rate(a.Probe) + "</td>")
			if lb.PrivateSuite != "" {
				p := "–"
				if a.Private != nil {
					p = rate(*a.Private)
				}
				b.WriteString("<td>" + p + "</td>")
			}
			b.WriteString("</tr>\n")
		}
		b.WriteString("</table>\n<h2>Joint success by norm family</h2>\n<table><tr><th>agent</th>")
		for _, f := range fams {
			b.WriteString("<th>" + esc(f) + "</th>")
		}
		b.WriteString("</tr>\n")
		for _, a := range lb.Agents {
			b.WriteString("<tr><td>" + esc(a.Agent) + "<small>" + esc(a.Client) + " · " + esc(a.Provenance) + "</small></td>")
			for _, f := range fams {
				b.WriteString("<td>" + rate(a.ByFamily[f].Joint) + "</td>")
			}
			b.WriteString("</tr>\n")
		}
		b.WriteString("</table>\n")
		if lb.MoreSelfReported > 0 {
			b.WriteString("<p>" + strconv.Itoa(lb.MoreSelfReported) + " more self-reported rows are not shown (the JSON lists the same rows).</p>\n")
		}
	}
	b.WriteString(`<p><a href="/api/leaderboard?suite=` + esc(lb.Suite) + `">JSON</a> · <a href="/">play</a></p>
</main></body></html>
`)
	return b.String()
}

func strconvF(x float64) string { return strconv.FormatFloat(x, 'f', 1, 64) }

// sessionsNote says what a sealed row's visits are made of: sessions
// opened, abandoned and still open, and by how many people.
func sessionsNote(c *api.SessionCounts) string {
	if c == nil {
		return ""
	}
	s := "<small>" + strconv.Itoa(c.Opened) + " sessions: " + strconv.Itoa(c.Finished) + " finished, " + strconv.Itoa(c.Abandoned) + " abandoned"
	if c.Open > 0 {
		s += ", " + strconv.Itoa(c.Open) + " in play"
	}
	return s + " · " + strconv.Itoa(c.Participants) + " participants</small>"
}
