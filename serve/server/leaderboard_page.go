package server

import (
	_ "embed"
	"io"
	"net/http"
	"strconv"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/serve/htmlpage"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/report"
)

// leaderboardTemplate is the leaderboard page's markup (leaderboard.html,
// a serve/htmlpage template: every value escaped); leaderboardData lays a
// leaderboard out for it.
//
//go:embed leaderboard.html
var leaderboardTemplate string

var leaderboardPageTmpl = htmlpage.MustParse(leaderboardTemplate)

// leaderboardPage handles GET /leaderboard?suite=S: the leaderboard as HTML.
func (s *Server) leaderboardPage(w http.ResponseWriter, r *http.Request) error {
	b, err := s.board(r.Context(), r.URL.Query().Get("suite"))
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	_, err = io.WriteString(w, leaderboardPageTmpl.Render(leaderboardData(b.lb)))
	return err
}

// leaderboardData lays a leaderboard out for the page.
func leaderboardData(lb api.Leaderboard) htmlpage.Data {
	var d htmlpage.Data
	sha := lb.SimSHA256
	if len(sha) > 12 {
		sha = sha[:12]
	}
	d.Set("suite", lb.Suite).Set("version", lb.SuiteVersion).Set("sha", sha).Set("private", lb.PrivateSuite)
	if lb.MoreSelfReported > 0 {
		d.Set("more", strconv.Itoa(lb.MoreSelfReported))
	}
	var suites []htmlpage.Data
	for _, name := range lb.Suites {
		var l htmlpage.Data
		l.Set("name", name)
		if name == lb.Suite {
			l.Set("current", "1")
		}
		suites = append(suites, l)
	}
	conds, fams := sim.Conditions(), append(norms.Default().Families(), "control")
	d.SetList("suites", suites).SetList("conditions", names(conds)).SetList("families", names(fams))
	var rows []htmlpage.Data
	for _, a := range lb.Agents {
		rows = append(rows, rowData(a, conds, fams, lb.PrivateSuite != ""))
	}
	d.SetList("rows", rows)
	if len(rows) == 0 {
		d.Set("empty", "1")
	}
	return d
}

// rowData lays one row out: its joint success and by condition (lead),
// the gap, the probe and the private column (tail), by family.
func rowData(a api.LeaderboardEntry, conds, fams []string, private bool) htmlpage.Data {
	var r htmlpage.Data
	r.Set("agent", a.Agent).Set("client", a.Client).Set("provenance", a.Provenance).Set("sessions", sessionsNote(a.Sessions)).
		Set("visits", strconv.Itoa(a.Visits)).Set("coverage", coverageNote(a.Coverage)).Set("gap", "–")
	if a.Gap != nil {
		r.Set("gap", strconv.FormatFloat(100*(*a.Gap), 'f', 1, 64)+" pts")
	}
	lead := []htmlpage.Data{rateData(a.Joint)}
	for _, c := range conds {
		lead = append(lead, rateData(a.ByCondition[c].Joint))
	}
	tail := []htmlpage.Data{rateData(a.Probe)}
	if private {
		var p report.Rate
		if a.Private != nil {
			p = *a.Private
		}
		tail = append(tail, rateData(p))
	}
	var fam []htmlpage.Data
	for _, f := range fams {
		fam = append(fam, rateData(a.ByFamily[f].Joint))
	}
	return *r.SetList("lead", lead).SetList("tail", tail).SetList("byfamily", fam)
}

// rateData is a rate as the page prints it: percentages to one decimal,
// or none.
func rateData(r report.Rate) htmlpage.Data {
	var d htmlpage.Data
	if r.N == 0 {
		return *d.Set("none", "1")
	}
	pct := func(x float64) string { return strconv.FormatFloat(100*x, 'f', 1, 64) }
	return *d.Set("n", strconv.Itoa(r.N)).Set("pct", pct(r.Rate)).Set("lo", pct(r.Lo)).Set("hi", pct(r.Hi))
}

// names is a list of items with one value, name.
func names(list []string) []htmlpage.Data {
	out := make([]htmlpage.Data, len(list))
	for i, n := range list {
		out[i].Set("name", n)
	}
	return out
}

// coverageNote says how much of the suite a row played: its share of the
// suite's visits, and the suite's cells (norm × condition) it holds ("" when
// unknown).
func coverageNote(c *api.SuiteCoverage) string {
	if c == nil || c.SuiteVisits == 0 {
		return ""
	}
	return strconv.FormatFloat(100*float64(c.Visits)/float64(c.SuiteVisits), 'f', 1, 64) + "% of " + strconv.Itoa(c.SuiteVisits) +
		" · " + strconv.Itoa(c.Cells) + " of " + strconv.Itoa(c.SuiteCells) + " cells"
}

// sessionsNote says what a sealed row's visits are made of: sessions
// opened, abandoned and still open, and by how many people ("" for a row
// without sealed sessions).
func sessionsNote(c *api.SessionCounts) string {
	if c == nil {
		return ""
	}
	s := count(c.Opened, "session") + ": " + strconv.Itoa(c.Finished) + " finished, " + strconv.Itoa(c.Abandoned) + " abandoned"
	if c.Open > 0 {
		s += ", " + strconv.Itoa(c.Open) + " in play"
	}
	return s + " · " + count(c.Participants, "participant")
}

// count is n and a noun, plural unless n is 1.
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
