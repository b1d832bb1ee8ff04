package server

import (
	"html"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/normgym/normgym/norms"
	"github.com/normgym/normgym/serve/api"
	"github.com/normgym/normgym/sim"
	"github.com/normgym/normgym/sim/report"
)

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
		b.WriteString("<h2>Joint success by condition</h2>\n<table><tr><th>agent</th><th>runs<small>of the suite's visits · cells</small></th><th>joint</th>")
		for _, c := range conds {
			b.WriteString("<th>" + esc(c) + "</th>")
		}
		b.WriteString("<th>gap</th><th>probe</th>")
		if lb.PrivateSuite != "" {
			b.WriteString("<th>" + esc(lb.PrivateSuite) + "<small>unpublished norms</small></th>")
		}
		b.WriteString("</tr>\n")
		for _, a := range lb.Agents {
			b.WriteString("<tr><td>" + esc(a.Agent) + "<small>" + esc(a.Client) + " · " + esc(a.Provenance) + "</small>" + sessionsNote(a.Sessions) + "</td><td>" + strconv.Itoa(a.Visits) + coverageNote(a.Coverage) + "</td><td>" + rate(a.Joint) + "</td>")
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

// coverageNote says how much of the suite a row played: its share of the
// suite's visits, and the suite's cells (norm × condition) it holds.
func coverageNote(c *api.SuiteCoverage) string {
	if c == nil || c.SuiteVisits == 0 {
		return ""
	}
	return "<small>" + strconvF(100*float64(c.Visits)/float64(c.SuiteVisits)) + "% of " + strconv.Itoa(c.SuiteVisits) +
		" · " + strconv.Itoa(c.Cells) + " of " + strconv.Itoa(c.SuiteCells) + " cells</small>"
}

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
